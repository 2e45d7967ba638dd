import pytest

from fixbot.agent.guard import is_test_file, tampering

TEST = """import pytest

def test_add():
    assert add(1, 2) == 3

def test_sub():
    assert sub(3, 2) == 1
"""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_app.py", True),
        ("test_app.py", True),
        ("pkg/app_test.py", True),
        ("web/app.test.ts", True),
        ("tests/helpers.py", True),
        ("src/app.py", False),
        ("src/testing.py", False),
    ],
)
def test_is_test_file(path: str, expected: bool) -> None:
    assert is_test_file(path) is expected


def test_code_edit_is_allowed() -> None:
    assert tampering("src/app.py", "x = 1\n", "x = 2\n") is None


def test_deleting_a_test_file_is_refused() -> None:
    reason = tampering("tests/test_app.py", TEST, None)
    assert reason is not None and "deleting the test file" in reason


def test_removing_a_test_function_is_refused() -> None:
    new = TEST.replace("def test_sub():\n    assert sub(3, 2) == 1\n", "")
    reason = tampering("tests/test_app.py", TEST, new)
    assert reason is not None and "test_sub" in reason


@pytest.mark.parametrize(
    "marker",
    [
        "@pytest.mark.skip(reason='x')\n",
        "@pytest.mark.xfail\n",
        "@pytest.mark.skipif(True, reason='')\n",
    ],
)
def test_adding_skip_markers_is_refused(marker: str) -> None:
    new = TEST.replace("def test_add", marker + "def test_add")
    reason = tampering("tests/test_app.py", TEST, new)
    assert reason is not None and "skip/xfail" in reason


def test_pytest_skip_call_is_refused() -> None:
    new = TEST.replace(
        "    assert add(1, 2) == 3", "    pytest.skip('later')\n    assert add(1, 2) == 3"
    )
    assert tampering("tests/test_app.py", TEST, new) is not None


def test_removing_an_assert_is_refused_but_changing_one_is_not() -> None:
    removed = TEST.replace("    assert add(1, 2) == 3", "    add(1, 2)")
    assert "assertions" in (tampering("tests/test_app.py", TEST, removed) or "")
    changed = TEST.replace("== 3", "== 3.0")
    assert tampering("tests/test_app.py", TEST, changed) is None


def test_adding_a_new_test_is_allowed() -> None:
    assert (
        tampering("tests/test_app.py", TEST, TEST + "\ndef test_mul():\n    assert 2 * 2 == 4\n")
        is None
    )
    new_test = "def test_x():\n    assert add(2, 2) == 4\n"
    assert tampering("tests/test_new.py", None, new_test) is None


def test_pytest_config_changes_are_refused() -> None:
    old = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    new = old.replace('"-q"', '"-q --deselect tests/test_app.py::test_sub"')
    assert "test or lint configuration" in (tampering("pyproject.toml", old, new) or "")
    assert tampering("pyproject.toml", old, old.replace('"x"', '"y"')) is None


def test_conftest_deselect_hook_is_refused() -> None:
    new = "def pytest_collection_modifyitems(config, items):\n    items.clear()\n"
    assert tampering("conftest.py", "", new) is not None
    assert tampering("tests/conftest.py", "import os\n", "import os\nimport sys\n") is None


@pytest.mark.parametrize(
    "path", [".github/workflows/ci.yml", "tox.ini", "pytest.ini", ".gitlab-ci.yml"]
)
def test_ci_and_runner_config_is_refused(path: str) -> None:
    assert tampering(path, "a: 1\n", "a: 2\n") is not None
