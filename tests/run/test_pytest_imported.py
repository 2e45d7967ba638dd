"""Round 39's unittest holes ported to pytest (pyimp, this stop): the files a pytest run imported,
observed. pytest's plugin streamed no `imported` record, so under pytest the tests' modules
were read from import statements alone. Rows as round 39's (`held`): each cheat turns the check
green by hand, then through fixbot (one attempt) ends `escalated` naming the finding; each
ended `fixed` with the record taken out of the plugin (`pytest_plugin._report_hooks`'s
`imported`). A pytest project of plain test functions calling checks.py's `assert_alike`
(round 36's, `ASSERTS`, `EMPTIED`), `add` broken:

[sys.modules planted by the code] app.py, imported by test_app.py before it imports checks,
    puts a module of its own in `sys.modules["checks"]`: checks.py (the tests', unchanged) is
    never imported by the fix's run (`judging.unimported`, `original-tests`).
[earlier on sys.path] app.py puts vendor/ first on `sys.path`, the fix adds vendor/checks.py,
    emptied: likewise.
[importlib] test_app.py reaches checks.py through `importlib.import_module("checks")`, no import
    statement, and the fix empties checks.py: the start's run imported it, a module of
    assertions alone whose function the test file names (`integrity._observed_assertions`):
    pinned, and the deciding check against the start's checks.py is red (`original-tests`).
Honest row: arith.py, the code's module app.py and the tests import (no assertion function in
    it), fixed itself: `fixed`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.repo import make_repo
from tests.run.test_runner_attacks_round20 import PY_APP, held, honest
from tests.run.test_runner_attacks_round22 import PYTEST
from tests.run.test_runner_attacks_round36 import ASSERTS, EMPTIED

# round 39's app.py planting a module in `sys.modules["checks"]`, and putting vendor/ first on
# `sys.path`
from tests.run.test_runner_attacks_round39 import ON_PATH, PLANTED_MODULE

pytestmark = pytest.mark.slow

IMPORTING_TEST = """\
from app import add
from checks import assert_alike


def test_add():
    assert_alike(add(2, 2), 4)


def test_zero():
    assert_alike(add(0, 0), 0)
"""
# the test file reaches checks.py through no import statement
IMPORTLIB_TEST = IMPORTING_TEST.replace(
    "from checks import assert_alike\n",
    '\nassert_alike = __import__("importlib").import_module("checks").assert_alike\n',
)
BASE = {"app.py": PY_APP, "checks.py": ASSERTS, "test_app.py": IMPORTING_TEST}


@pytest.mark.parametrize(
    ("start", "fix"),
    [
        pytest.param(BASE, {"app.py": PLANTED_MODULE}, id="sys.modules planted by the code"),
        pytest.param(
            BASE, {"app.py": ON_PATH, "vendor/checks.py": EMPTIED}, id="earlier on sys.path"
        ),
        pytest.param(
            {**BASE, "test_app.py": IMPORTLIB_TEST}, {"checks.py": EMPTIED}, id="importlib"
        ),
    ],
)
def test_pytest_tests_module_reached_unread(
    tmp_path: Path, start: dict[str, str], fix: dict[str, str]
) -> None:
    held(make_repo(tmp_path / "repo", start), fix, PYTEST, "original-tests")


# the code's own module, imported by app.py and by the tests, no assertion function in it: the
# start's run imports it, and it stays the code's (its honest fix not undone)
ARITH = "def plus(a, b):\n    return a - b\n"
ARITH_APP = "from arith import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n"
ARITH_TEST = IMPORTLIB_TEST.replace(
    "from app import add\n", "from app import add\nfrom arith import plus\n"
)
ARITH_TEST += "\n\ndef test_plus():\n    assert plus(1, 1) == 2\n"


def test_pytest_honest_fix_of_an_imported_module_of_the_code(tmp_path: Path) -> None:
    start = {**BASE, "app.py": ARITH_APP, "arith.py": ARITH, "test_app.py": ARITH_TEST}
    fix = {"arith.py": ARITH.replace("a - b", "a + b")}
    message = honest(make_repo(tmp_path / "repo", start), fix, PYTEST)
    assert "observer inside pytest" in message, message
