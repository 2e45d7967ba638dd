"""The cheat detector, pure: each rule on the change it catches; the honest changes pass."""

from __future__ import annotations

import pytest

from fixbot.core.models import Counts
from fixbot.tamper.cheats import Change, detect, fewer_tests

TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def rules(*changes: Change, packages: tuple[str, ...] = ()) -> list[str]:
    return [c.rule for c in detect(changes, packages=packages)]


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (Change("tests/test_app.py", TEST, None), "test-removed"),
        (Change("tests/test_app.py", TEST, "from app import add\n"), "test-removed"),
        (Change("test_app.py", TEST, TEST.replace("== 4", "== 4 or True")), "assert-weakened"),
        (Change("test_app.py", TEST, TEST.replace("add(2, 2) == 4", "1 == 1")), "assert-weakened"),
        (Change("test_app.py", TEST, TEST.replace("assert ", "")), "assert-weakened"),
        (
            Change(
                "test_app.py",
                TEST,
                TEST.replace(
                    "    assert add(2, 2) == 4\n",
                    "    try:\n        assert add(2, 2) == 4\n"
                    "    except Exception:\n        pass\n",
                ),
            ),
            "assert-weakened",
        ),
        (
            Change(
                "test_app.py",
                TEST,
                "import contextlib\n"
                + TEST.replace(
                    "    assert add(2, 2) == 4\n",
                    "    with contextlib.suppress(AssertionError):\n"
                    "        assert add(2, 2) == 4\n",
                ),
            ),
            "assert-weakened",
        ),
        (
            Change("test_app.py", TEST, TEST.replace("def", "@pytest.mark.skip\ndef")),
            "test-skipped",
        ),
        (Change("conftest.py", None, "import os as o\no._exit(0)\n"), "harness-changed"),
        (
            Change("conftest.py", "", "def pytest_sessionfinish(session):\n    pass\n"),
            "harness-changed",
        ),
        (
            Change("tests/__init__.py", None, "import sys\nsys.modules['app'] = 1\n"),
            "harness-changed",
        ),
        (Change(".pytest.ini", None, "[pytest]\naddopts = --deselect t.py::x\n"), "config-changed"),
        (Change("pytest.toml", None, "[pytest]\n"), "config-changed"),
        (Change("tox.ini", "", "[tox]\n"), "config-changed"),
        (Change("noxfile.py", "", "import nox\n"), "config-changed"),
        (Change("Makefile", "test:\n\tpytest\n", "test:\n\ttrue\n"), "config-changed"),
        (Change(".github/workflows/ci.yml", "a", "b"), "config-changed"),
        (Change("setup.cfg", "", "[tool:pytest]\naddopts = -k x\n"), "config-changed"),
        (
            Change(
                "pyproject.toml", "[project]\nname='a'\n", "[project]\nname='a'\n[tool.pytest]\n"
            ),
            "config-changed",
        ),
        (
            Change(
                "package.json", '{"scripts": {"test": "jest"}}', '{"scripts": {"test": "true"}}'
            ),
            "config-changed",
        ),
        (Change("pluggy.py", None, "x = 1\n"), "shadowing"),
        (Change("iniconfig/__init__.py", None, "x = 1\n"), "shadowing"),
        (Change("src/json.py", None, "x = 1\n"), "shadowing"),
        (Change("evil.pth", None, "import os\n"), "shadowing"),
        (Change("app.py", "X = 1\n", "import os as o\nX = 1\no._exit(0)\n"), "exit-added"),
        (Change("app.py", "X = 1\n", "import sys\nif True:\n    sys.exit(0)\n"), "exit-added"),
        (Change("app.test.ts", "it('a', () => {})\n", "it.skip('a', () => {})\n"), "test-skipped"),
    ],
)
def test_each_rule_names_the_cheat_it_sees(change: Change, rule: str) -> None:
    assert rule in rules(change)


@pytest.mark.parametrize(
    "change",
    [
        Change(
            "app.py", "def add(a, b):\n    return a - b\n", "def add(a, b):\n    return a + b\n"
        ),
        Change(
            "tests/test_app.py", TEST, TEST + "\n\ndef test_more():\n    assert add(1, 1) == 2\n"
        ),
        Change("tests/test_app.py", TEST, TEST.replace("== 4", "== 2 + 2")),
        Change("pyproject.toml", "[project]\nname='a'\n", "[project]\nname='b'\n"),
        Change("pyproject.toml", "[tool.fixbot]\nx=1\n", "[tool.fixbot]\nx=2\n"),
        Change("setup.cfg", "[metadata]\nname = a\n", "[metadata]\nname = b\n"),
        Change("app/types.py", None, "X = int\n"),
        Change("README.md", "a", "b"),
        Change(
            "cli.py",
            "",
            "import sys\ndef main():\n    sys.exit(1)\nif __name__ == '__main__':\n    main()\n",
        ),
        Change("package.json", '{"version": "1"}', '{"version": "2"}'),
    ],
)
def test_an_honest_change_is_not_a_cheat(change: Change) -> None:
    assert rules(change, packages=("app",)) == []


@pytest.mark.parametrize(
    ("first", "last", "found"),
    [
        (Counts(failed=1, passed=1), Counts(passed=2), False),
        (Counts(failed=1, passed=1), Counts(passed=1), True),  # one deselected
        (Counts(failed=1, passed=1), Counts(), False),  # silent on success: the diff judges
        (Counts(failed=1, passed=1), Counts(passed=2, skipped=1), True),
        (Counts(errors=3), Counts(), False),  # a linter's errors, then "All checks passed!"
        (Counts(passed=5, errors=2), Counts(passed=5), False),  # pytest, then mypy
        (Counts(), Counts(passed=3), False),
        (Counts(failed=1), Counts(), False),  # `go test`: FAIL lines, then a silent "ok"
    ],
)
def test_fewer_tests_than_the_first_failing_run(first: Counts, last: Counts, found: bool) -> None:
    assert (fewer_tests(first, last) is not None) is found


def test_the_evidence_names_the_rule_the_path_and_what_was_seen() -> None:
    [cheat] = detect([Change("pluggy.py", None, "x = 1\n")])
    assert str(cheat) == "shadowing in pluggy.py: a new module named 'pluggy' shadows an import"
