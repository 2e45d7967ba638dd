"""The files a unittest run imported, observed, for the tests' assertion modules (round 39, #39):
the observer's recorder names the work tree's files module code ran under
(`unittest_compiled._imported`), the stream keeps them (`Observation.imported`), the start's
decide which modules of assertions alone are the tests' (`integrity.helpers`), and a file of
the tests' the start imported and a later run did not is `original-tests`
(`judging.unimported`). The slow rows are round 39's."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe.stream import parse
from fixbot.run import integrity
from fixbot.run.phases.judging import unimported
from fixbot.tamper.imports import aliases, expected_to_raise, names
from tests.fakes.pythons import PROJECT_PYTHON
from tests.fakes.repo import git, make_repo

ASSERTS = "def assert_alike(a, b):\n    if a != b:\n        raise AssertionError(a)\n"
APP = "def add(a, b):\n    return a - b\n"
# the helper module reaches checks.py through no import statement
DUNDER_HELPERS = (
    "import unittest\n\nassert_alike = __import__('checks').assert_alike\n\n\n"
    "class Base(unittest.TestCase):\n    def assertAlike(self, a, b):\n"
    "        assert_alike(a, b)\n"
)
TEST = (
    "from app import add\nfrom tests_helpers import Base\n\n\nclass T(Base):\n"
    "    def test_add(self):\n        self.assertAlike(add(2, 2), 4)\n"
)


def _start(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", files)
    return repo, git(repo, "rev-parse", "HEAD")


def test_an_assertion_module_imported_however_spelled_is_the_tests(tmp_path: Path) -> None:
    """`__import__("checks")` binds no reference the text's imports show: without the start's
    imported files checks.py is the code's; with them, a module of assertions alone whose
    function the helper names is the tests'. app.py, imported, no assertion in it, stays the
    code's (the honest row's module)."""
    files = {"app.py": APP, "checks.py": ASSERTS, "tests_helpers.py": DUNDER_HELPERS}
    repo, head = _start(tmp_path, {**files, "test_app.py": TEST})
    made = ["test_app.py", "tests_helpers.py"]
    assert integrity.helpers(repo, head, made) == {"tests_helpers.py"}
    imported = ["app.py", "checks.py", "test_app.py", "tests_helpers.py", "gone.py"]
    held = integrity.helpers(repo, head, made, imported)
    assert held == {"tests_helpers.py", "checks.py"}


def test_an_imported_assertion_module_the_tests_never_name_is_the_codes(tmp_path: Path) -> None:
    """A module of assertions alone the run imported (app.py's own `validate`) whose functions
    the tests' files never name stays the code's: an honest fix of it is not undone."""
    validate = "def positive(n):\n    assert n > 0\n"
    files = {"app.py": "import validate\n\n" + APP, "validate.py": validate}
    test = "import unittest\n\nfrom app import add\n\n\nclass T(unittest.TestCase):\n"
    test += "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
    repo, head = _start(tmp_path, {**files, "test_app.py": test})
    imported = ["app.py", "validate.py", "test_app.py"]
    assert integrity.helpers(repo, head, ["test_app.py"], imported) == frozenset()


def test_a_name_bound_to_an_assertion_function_is_one(tmp_path: Path) -> None:
    """`assert_alike = _alike` at checks.py's top level: the tests name `assert_alike`
    (`imports.aliases`), so the imported checks.py is the tests'."""
    aliased = ASSERTS.replace("assert_alike", "_alike") + "\n\nassert_alike = _alike\n"
    assert aliases(aliased, {"_alike"}) == {"_alike", "assert_alike"}
    assert aliases("def f(:\n", {"x"}) == {"x"}
    helpers = DUNDER_HELPERS.replace("__import__('checks').assert_alike", "0")
    helpers = "from checks import assert_alike\n" + helpers.replace("assert_alike = 0\n", "")
    files = {"app.py": APP, "checks.py": aliased, "tests_helpers.py": helpers}
    repo, head = _start(tmp_path, {**files, "test_app.py": TEST})
    made = ["test_app.py", "tests_helpers.py"]
    assert "checks.py" not in integrity.helpers(repo, head, made)
    assert "checks.py" in integrity.helpers(repo, head, made, ["checks.py"])


def test_a_name_both_expected_to_raise_and_asserted_with_is_an_assertion() -> None:
    """`expected_to_raise` drops a name only where no call outside an expectation hands it
    another call's result: `assert_alike(add(2, 2), 4)` is an assertion made with it;
    `check_even(4)` (round 38's validator, a literal handed) is still the function tested."""
    expecting = "    with self.assertRaises(AssertionError):\n        {}(1, 2)\n"
    head = "import unittest\nfrom checks import assert_alike, check_even\nfrom app import add\n"
    asserted = head + "def t(self):\n    assert_alike(add(2, 2), 4)\n"
    asserted += expecting.format("assert_alike")
    assert expected_to_raise(asserted) == frozenset()
    tested = head + "def t(self):\n    check_even(4)\n" + expecting.format("check_even")
    assert expected_to_raise(tested) == {(0, "checks", "check_even")}
    by_keyword = head + "def t(self):\n    assert_alike(first=add(2, 2), second=4)\n"
    assert expected_to_raise(by_keyword + expecting.format("assert_alike")) == frozenset()


def test_the_names_a_text_spells() -> None:
    """`imports.names`: names, attributes and identifier strings; nothing where it does not
    parse."""
    text = "import importlib\nf = importlib.import_module('checks').assert_alike\nx = 'a b'\n"
    assert {"importlib", "f", "import_module", "checks", "assert_alike"} <= names(text)
    assert "a b" not in names(text)
    assert names("def f(:\n") == frozenset()


RECORDING = """\
import os, sys
sys.path.insert(0, {fixbot!r})
from fixbot.observe import unittest_compiled as compiled
hook, ours, _ = compiled._recorder(os.path.join(os.getcwd(), ""))
sys.addaudithook(hook)
sys.path.insert(0, os.getcwd())
import app, pkg.checks
exec(compile("", os.path.join(os.getcwd(), "forged.py"), "exec"), {{}})
print(ours(None, ...))
"""


@pytest.mark.slow
def test_the_recorder_names_the_work_trees_files_imported(tmp_path: Path) -> None:
    """The recorder's audit hook keeps each file under the root the import system ran;
    `ours(None, ...)` names them relative to the root, sorted, no file outside it and none
    whose module code `exec` ran outside the import system (forged.py: round 41)."""
    root = os.path.join(str(tmp_path), "")
    hook, ours, _ = compiled._recorder(root)
    for file in ("pkg/checks.py", "app.py"):
        hook("exec", (compile("", root + file, "exec"),))
    assert ours(None, ...) == []  # called by no loader: nothing imported
    for rel in ("app.py", "pkg/__init__.py", "pkg/checks.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("VALUE = 1\n", encoding="utf-8")
    script = RECORDING.format(fixbot=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run(
        [PROJECT_PYTHON, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "['app.py', 'pkg/__init__.py', 'pkg/checks.py']"


def _stream(*records: dict[str, object]) -> str:
    return "".join(f"n\t{json.dumps(record)}\n" for record in records)


def test_the_stream_keeps_every_processs_imported_files() -> None:
    """`imported` records are joined, each file once; no record leaves `imported` None."""
    seen = parse(
        _stream({"k": "imported", "f": ["a.py", "b.py"]}, {"k": "imported", "f": ["b.py", 3]}),
        "n",
    )
    assert seen.imported == ["a.py", "b.py"]
    assert parse(_stream({"k": "start", "watch": []}), "n").imported is None


def test_a_tests_file_the_start_imported_and_the_fix_did_not_is_original_tests() -> None:
    """`judging.unimported`: checks.py, the tests', imported by the start's run and not by the
    fix's (a module planted in `sys.modules`, a folder first on `sys.path`) is `original-tests`;
    a file the start never imported, or a run with no `imported` record, is nothing."""
    start = Observation(imported=["app.py", "checks.py", "test_app.py"])
    planted = Observation(imported=["app.py", "test_app.py", "vendor/checks.py"])
    tests = frozenset({"checks.py", "tests_helpers.py"})
    found = unimported(start, planted, tests)
    assert [cheat.rule for cheat in found] == ["original-tests"]
    assert "checks.py" in str(found[0])
    assert unimported(start, start, tests) == []
    assert unimported(start, Observation(), tests) == []
    assert unimported(Observation(), planted, tests) == []
    assert unimported(None, planted, tests) == []


def test_a_run_that_ended_without_its_imported_record_is_original_tests() -> None:
    """The observers send `imported` just before `end`: a fix's run that ended (`ended`) with no
    record where the start's run sent one is `original-tests` (a record withheld, or an
    observer changed to send `end` alone: it fails safe). A run with no end is cut short,
    judged elsewhere; a start with no record asks nothing."""
    start = Observation(imported=["app.py", "checks.py", "test_app.py"], ended=1)
    tests = frozenset({"checks.py"})
    found = unimported(start, Observation(ended=1), tests)
    assert [cheat.rule for cheat in found] == ["original-tests"]
    assert "without its record" in str(found[0])
    assert unimported(start, Observation(ended=0), tests) == []
    assert unimported(Observation(ended=1), Observation(ended=1), tests) == []


def test_an_imported_function_the_tests_expect_to_raise_stays_the_codes(tmp_path: Path) -> None:
    """Round 38's validator: validate.py, imported and of assertions alone, whose `check_even`
    the failing test calls with a literal and expects to raise, is the code under test even
    where the start's imported files name it."""
    validate = "def check_even(n):\n    if n % 3:\n        raise AssertionError(n)\n"
    test = (
        "import unittest\n\nfrom validate import check_even\n\n\n"
        "class EvenTest(unittest.TestCase):\n    def test_even(self):\n        check_even(4)\n\n"
        "    def test_odd(self):\n        with self.assertRaises(AssertionError):\n"
        "            check_even(3)\n"
    )
    repo, head = _start(tmp_path, {"validate.py": validate, "test_validate.py": test})
    imported = ["test_validate.py", "validate.py"]
    assert integrity.helpers(repo, head, ["test_validate.py"], imported) == frozenset()
