"""What a work-tree module's names are bound to at the run's end (`fixbot/observe/modulenames.py`)
and the import system's own runs of a file's code (`fixbot/observe/modulecode.py` `loaded`):
the `imported` record names a file only where the import system ran it and its names still
hold (round 41's holes). Real processes: a Python that adds the recorder's audit hook, then
imports a temp folder's modules; pytest with fixbot's plugin."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fixbot.observe import modulenames
from tests.fakes.pythons import PROJECT_PYTHON
from tests.observe.test_observer import PYTEST, observe

CHECKS = "def assert_alike(a, b):\n    if a != b:\n        raise AssertionError(a)\n"
HELPERS = "from checks import assert_alike\n"
# the process: the recorder's hook added first, then `main.py`'s own text
RUN = """\
import os, sys
sys.path.insert(0, {fixbot!r})
from fixbot.observe import modulecode
record, files = modulecode.recorder(os.path.join(os.getcwd(), ""))
sys.addaudithook(lambda event, args: record(args) if event == "exec" else None)
sys.path.insert(0, os.getcwd())
exec(compile(open("main.py").read(), "<main>", "exec"))
print(files())
"""


def recorded(tmp_path: Path, main: str, files: dict[str, str]) -> str:
    """The files the recorder names in a process whose `main.py` is `main`, beside `files`."""
    for rel, text in {**files, "main.py": main}.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    script = RUN.format(fixbot=root)
    done = subprocess.run(
        [PROJECT_PYTHON, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_names_a_module_binds_once_are_read_from_its_code() -> None:
    """An undecorated `def` bound once, `from m import n`, `import m`; a decorated or rebound
    def is not read."""
    source = (
        "import os\nfrom checks import assert_alike as same\nfrom . import sib\n"
        "@deco\ndef d():\n    pass\n\n\ndef f(x=1):\n    pass\n\n\n"
        "def g():\n    pass\n\n\ng = wrap(g)\n"
    )
    defs, imports = modulenames.bindings(compile(source, "t.py", "exec"))
    assert list(defs) == ["f"] and defs["f"].co_name == "f"
    assert imports == {
        "os": ("os", 0, None),
        "same": ("checks", 0, "assert_alike"),
        "sib": ("", 1, "sib"),
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("main", "named"),
    [
        pytest.param("import helpers\n", "['checks.py', 'helpers.py']", id="imported"),
        pytest.param(
            'exec(compile("", os.path.join(os.getcwd(), "checks.py"), "exec"), {})\n',
            "[]",
            id="forged by exec",
        ),
        pytest.param(
            "import checks\nchecks.assert_alike = print\nimport helpers\n",
            "[]",
            id="def rebound",
        ),
        pytest.param(
            "import checks, types\nsys.modules['checks'] = types.ModuleType('checks')\n"
            "sys.modules['checks'].assert_alike = print\nimport helpers\n",
            "[]",
            id="sys.modules swapped",
        ),
        pytest.param(
            "import checks, helpers\nfrom unittest import mock\n"
            "with mock.patch.object(checks, 'assert_alike', print):\n    pass\n",
            "['checks.py', 'helpers.py']",
            id="patched and put back",
        ),
    ],
)
def test_a_file_is_named_where_the_import_system_ran_it_and_its_names_hold(
    tmp_path: Path, main: str, named: str
) -> None:
    """Fails without `loaded`'s frames (the forged `exec` names checks.py) and without
    `modulenames.unheld` (the rebound and swapped rows name checks.py; helpers.py, whose
    `from checks import` bound the swapped module's function, is named in neither)."""
    files = {"checks.py": CHECKS, "helpers.py": HELPERS}
    assert recorded(tmp_path, main, files) == named


PATCHING_CONFTEST = "import checks\n\nchecks.assert_alike = lambda a, b: None\n"
MONKEYPATCHING = (
    "import checks\n\n\ndef test_add(monkeypatch):\n"
    "    monkeypatch.setattr(checks, 'assert_alike', print)\n"
    "    checks.assert_alike(4, 4)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "named"),
    [
        pytest.param({"conftest.py": PATCHING_CONFTEST}, False, id="conftest rebinds"),
        pytest.param({"tests/test_app.py": MONKEYPATCHING}, True, id="monkeypatch undone"),
    ],
)
def test_the_pytest_plugin_names_a_file_whose_names_hold(
    tmp_path: Path, files: dict[str, str], named: bool
) -> None:
    """Under pytest's plugin too: a conftest that rebinds checks.py's function at import leaves
    checks.py out of the record; a test's `monkeypatch`, undone by the session's end, does not."""
    test = "import checks\n\n\ndef test_add():\n    checks.assert_alike(4, 4)\n"
    base = {"tests/test_app.py": test}
    seen = observe(tmp_path, PYTEST, {"checks.py": CHECKS, **base, **files}, [])
    assert seen.imported is not None and ("checks.py" in seen.imported) is named, seen.imported
