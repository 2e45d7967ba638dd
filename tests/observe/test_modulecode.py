"""The module code each work-tree file ran (`fixbot/observe/modulecode.py`), shared by the
unittest observer and the pytest plugin: what the audit hook keeps, and the pytest plugin's
`imported` record, streamed once as the session ends (pyimp)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixbot.observe import judge, modulecode
from tests.observe.test_observer import PYTEST, observe

ROOT = os.path.join(os.sep, "work", "tree", "")


def test_the_module_code_of_each_file_under_the_roots_is_kept_once() -> None:
    """A file's first module code is kept; a second, other one makes it False (neither is the
    file's); a function's code, a file outside the roots and no code at all are passed over."""
    codes: dict[str, object] = {}
    first = compile("x = 1", ROOT + "app.py", "exec")
    modulecode.kept((first,), codes, (ROOT,))
    modulecode.kept((first,), codes, (ROOT,))
    assert codes == {ROOT + "app.py": first}
    modulecode.kept((compile("x = 2", ROOT + "app.py", "exec"),), codes, (ROOT,))
    assert codes[ROOT + "app.py"] is False
    inner = next(c for c in compile("def f(): pass", ROOT + "f.py", "exec").co_consts if c)
    modulecode.kept((inner,), codes, (ROOT,))
    modulecode.kept((compile("", "/elsewhere/site.py", "exec"),), codes, (ROOT,))
    modulecode.kept(("not code",), codes, (ROOT,))
    modulecode.kept((), codes, (ROOT,))
    assert list(codes) == [ROOT + "app.py"]
    assert modulecode.imported(codes, ROOT) == ["app.py"]


def test_the_recorder_names_no_file_whose_code_exec_ran_outside_the_import_system() -> None:
    """Module code compiled under a file's name and handed to the recorder as an `exec` event
    not called by the import system (here: by this test) names nothing (round 41's [import
    record forged by exec]); `tests/observe/test_modulenames.py` holds what it does name."""
    record, files = modulecode.recorder(ROOT)
    for file in ("pkg/checks.py", "app.py"):
        record((compile("", ROOT + file, "exec"),))
    record((ROOT + "other.py", "r", 0))
    assert files() == []


# a module of the tests' reached through no import statement, a conftest, a package
IMPORTING = (
    "import importlib\n\nfrom pkg import mod\n\n"
    'checks = importlib.import_module("checks")\n\n\n'
    "def test_add():\n    checks.assert_alike(mod.VALUE, 4)\n"
)
FILES = {
    "tests/test_app.py": IMPORTING,
    "checks.py": "def assert_alike(a, b):\n    if a != b:\n        raise AssertionError(a)\n",
    "conftest.py": "SEEN = True\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "VALUE = 4\n",
    "unused.py": "VALUE = 5\n",
}


@pytest.mark.slow
def test_the_pytest_plugin_streams_the_files_its_process_imported(tmp_path: Path) -> None:
    """The plugin's `imported` record names the work tree's files the session imported: the
    test module pytest rewrote and ran itself (its assertion rewriting), the conftest, a
    package and its module, and checks.py, reached through `importlib`; no file it did not
    import, none outside the work tree. Fails without the record: `imported` None."""
    seen = observe(tmp_path, PYTEST, FILES, [])
    assert seen.tests == {"tests/test_app.py::test_add": "passed"}, seen
    expected = ["checks.py", "conftest.py", "pkg/__init__.py", "pkg/mod.py", "tests/test_app.py"]
    assert seen.imported == expected
    assert seen.sessions == seen.ended == 1


EXITING = "import os\n\n\ndef test_add():\n    os._exit(0)\n"


@pytest.mark.slow
def test_a_process_ended_before_its_sessions_end_streams_no_imported_record(
    tmp_path: Path,
) -> None:
    """The record goes out as the session ends, before its `end`: a process the code ends
    earlier (`os._exit(0)`) streams neither, and its run is cut short, never verified by a
    missing record."""
    start = observe(tmp_path / "start", PYTEST, FILES, [])
    assert start.imported is not None
    seen = observe(tmp_path / "fix", PYTEST, {"tests/test_app.py": EXITING}, [])
    assert seen.imported is None and seen.ended == 0 < seen.sessions
    assert any(f.startswith("observer-cut-short") for f in judge.findings(start, seen))
