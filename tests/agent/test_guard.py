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


FORCE_EXIT_ZERO = [
    "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n",
    "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
    "    outcome.get_result().outcome = 'passed'\n",
    "import os\n\ndef pytest_unconfigure(config):\n    os._exit(0)\n",
    "collect_ignore = ['test_app.py']\n",
    "pytest_plugins = ['no_fail']\n",
]


@pytest.mark.parametrize("new", FORCE_EXIT_ZERO)
def test_conftest_tricks_that_force_a_green_run_are_refused(new: str) -> None:
    for path in ("conftest.py", "tests/conftest.py", "tests/CONFTEST.py"):
        assert "hook" in (tampering(path, "import pytest\n", "import pytest\n" + new) or "")


def test_changing_an_existing_conftest_hook_body_is_refused() -> None:
    old = "def pytest_collection_modifyitems(config, items):\n    items.sort()\n"
    new = "def pytest_collection_modifyitems(config, items):\n    items.clear()\n"
    assert tampering("conftest.py", old, new) is not None


def test_fixture_edits_in_conftest_are_allowed() -> None:
    old = "import pytest\n\n@pytest.fixture\ndef rate():\n    return 1\n"
    assert tampering("tests/conftest.py", old, old.replace("return 1", "return 2")) is None


@pytest.mark.parametrize(
    "path",
    [
        "pytest.py",
        "unittest.py",
        "src/pytest.py",
        "pytest/__init__.py",
        "_pytest/main.py",
        "sitecustomize.py",
        "usercustomize.py",
        "evil.pth",
        "PyTest.py",
    ],
)
def test_modules_shadowing_the_test_runner_are_refused(path: str) -> None:
    reason = tampering(path, None, "def main():\n    raise SystemExit(0)\n")
    assert reason is not None and "shadow" in reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    assert add(1, 2) == 3", "    assert add(1, 2) == add(1, 2)"),
        ("    assert add(1, 2) == 3", "    result = add(1, 2)\n    assert result == result"),
        ("    assert add(1, 2) == 3", "    assert True"),
        ("    assert add(1, 2) == 3", "    assert 1, 'always'"),
        ("    assert add(1, 2) == 3", "    self.assertEqual(x, x)"),
    ],
)
def test_assertions_that_cannot_fail_are_refused(old: str, new: str) -> None:
    reason = tampering("tests/test_app.py", TEST, TEST.replace(old, new))
    assert reason is not None and "cannot fail" in reason


@pytest.mark.parametrize(
    "path",
    [
        "ruff.toml",
        ".ruff.toml",
        "mypy.ini",
        ".flake8",
        "Makefile",
        "makefile",
        "GNUmakefile",
        ".github/actions/setup/action.yml",
        ".github/dependabot.yml",
        ".GitHub/Workflows/ci.yml",
        "jest.config.js",
        "vitest.config.ts",
        ".eslintrc.json",
        "eslint.config.mjs",
        "noxfile.py",
        ".pre-commit-config.yaml",
    ],
)
def test_test_and_ci_configuration_is_protected_by_default(path: str) -> None:
    assert "controls how the check runs" in (tampering(path, "a = 1\n", "a = 2\n") or "")


def test_lint_sections_of_pyproject_and_package_scripts_are_protected() -> None:
    old = '[project]\nname = "x"\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
    assert tampering("pyproject.toml", old, old.replace('["E", "F"]', "[]")) is not None
    assert tampering("pyproject.toml", old, old + "\n[tool.mypy]\nignore_errors = true\n")
    package = '{"name": "x", "scripts": {"test": "jest"}, "dependencies": {"a": "1"}}'
    assert tampering("package.json", package, package.replace('"jest"', '"true"')) is not None
    assert tampering("package.json", package, package.replace('"1"', '"2"')) is None


def test_allowed_edits_stay_allowed() -> None:
    assert tampering("src/makefile_parser.py", "x = 1\n", "x = 2\n") is None
    assert tampering("docs/pytest.md", "a\n", "b\n") is None
    assert tampering("src/app.py", "assert x == y\n", "assert x == z\n") is None


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [  # the bypasses that turned pytest green past the text rules
        (".pytest.ini", None, "[pytest]\naddopts = --deselect test_calc.py::test_add\n"),
        ("pytest.toml", None, '[pytest]\naddopts = ["--deselect", "test_calc.py::test_add"]\n'),
        ("conftest.py", None, "import os as o\no._exit(0)\n"),
        ("pluggy.py", None, "import os\nos._exit(0)\n"),
        ("iniconfig/__init__.py", None, "import os\nos._exit(0)\n"),
        ("test_calc.py", TEST, TEST.replace("== 3", "== 3 or True")),
        (
            "test_calc.py",
            TEST,
            TEST.replace(
                "    assert add(1, 2) == 3\n",
                "    try:\n        assert add(1, 2) == 3\n"
                "    except AssertionError:\n        pass\n",
            ),
        ),
        ("tests/__init__.py", None, "import sys\nsys.modules['calc'] = object()\n"),
    ],
)
def test_the_bypasses_of_the_text_rules_are_refused_at_edit_time(
    path: str, old: str | None, new: str
) -> None:
    assert tampering(path, old, new) is not None


def test_a_new_module_named_like_the_standard_library_inside_a_package_is_allowed() -> None:
    assert tampering("app/types.py", None, "X = int\n") is None


@pytest.mark.parametrize(
    ("path", "old", "new", "rule"),
    [
        (
            ".pytest.ini",
            None,
            "[pytest]\naddopts = --deselect tests/test_app.py::test_add\n",
            "controls how the check runs",
        ),
        (
            "pytest.toml",
            None,
            '[pytest]\naddopts = ["-k", "not test_add"]\n',
            "controls how the check runs",
        ),
        ("tox.toml", None, "[env.test]\ncommands = [['true']]\n", "controls how the check runs"),
        ("tests/conftest.py", "", "collect_ignore = ['test_app.py']\n", "collection"),
        ("tests/test_app.py", TEST, "pytestmark = []\n" + TEST + "# --deselect\n", "skip"),
        (".prettierrc", "{}", '{"semi": false}', "controls how the check runs"),
        ("app.py", "x = 1\n", "import atexit, os\natexit.register(os._exit, 0)\n", "exit-added"),
        (
            "app.py",
            "x = 1\n",
            "import _pytest.python\n_pytest.python.Function.runtest = id\n",
            "framework-patched",
        ),
        (
            "app.py",
            "x = 1\n",
            "class S(int):\n    def __eq__(self, o):\n        return True\n",
            "always-equal",
        ),
        ("tests/test_app.py", TEST, 'pytest_plugins = ["rewriter"]\n' + TEST, "plugin-added"),
        ("tests/test_app.py", TEST, "import app\napp.add = max\n" + TEST, "unit-rebound"),
    ],
)
def test_the_rules_of_the_one_table_refuse_at_edit_time(
    path: str, old: str | None, new: str, rule: str
) -> None:
    """The guard reads the tampering rules the final-diff detector reads (`fixbot.tamper`):
    what it missed before (`.pytest.ini`, `pytest.toml`, `tox.toml`, `collect_ignore`,
    `--deselect`) and each new rule refuse the edit before it lands."""
    reason = tampering(path, old, new)
    assert reason is not None and rule in reason, reason


def test_the_checks_own_script_is_refused_when_the_guard_is_told_of_it() -> None:
    assert tampering("check.sh", "pytest\n", "exit 0\n") is None
    reason = tampering("check.sh", "pytest\n", "exit 0\n", frozenset({"check.sh"}))
    assert reason is not None and "check-script" in reason


RUST_LIB = """pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }
}
"""


def test_a_rust_test_in_the_codes_file_is_refused_at_edit_time() -> None:
    """The final diff's `rust-test-changed` is the model's early word too: a test inside
    src/lib.rs weakened is refused as the edit is made; the code's fix and a test added are
    not; a macro by an assertion's name outside the tests is refused."""
    weakened = RUST_LIB.replace("add(2, 2), 4", "add(2, 2), 0")
    reason = tampering("src/lib.rs", RUST_LIB, weakened)
    assert reason is not None and "rust-test-changed" in reason and "tests" in reason
    assert tampering("src/lib.rs", RUST_LIB, RUST_LIB.replace("a - b", "a + b")) is None
    zero = "    #[test]\n    fn zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n"
    added = RUST_LIB.replace("    }\n}\n", "    }\n\n" + zero + "}\n")
    assert tampering("src/lib.rs", RUST_LIB, added) is None
    shadowed = "macro_rules! assert_eq { ($a:expr, $b:expr) => {}; }\n" + RUST_LIB
    reason = tampering("src/lib.rs", RUST_LIB, shadowed)
    assert reason is not None and "framework-patched" in reason
