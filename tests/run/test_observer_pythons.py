"""The observer end to end under the Pythons users have: fixbot's observer runs inside the
project's own Python (any CPython 3.8 and up), while this suite runs the tiny projects under
its own (`tests.fakes.pythons.PROJECT_PYTHON`). Python 3.12 put `sys.monitoring` (PEP 669)
under `sys.setprofile`, and 3.13 made `frame.f_locals` write through to the frame (PEP 667).

Two checks here:

- the cheats those versions make possible, run under the project's Python (each held, or a
  strict xfail naming the hole): under this suite's Python they are the rows' baseline, under
  3.12 or 3.13 (`FIXBOT_TEST_PROJECT_PYTHON`) the versions they are about;
- every legitimate row of the attack rounds and a sample of their cheats, with these cheats,
  run again under each other Python found (`tests.fakes.pythons.other_pythons`: those named in
  `FIXBOT_TEST_PYTHONS`, `python3.12` and later on PATH, each with pytest), by this suite's own
  pytest in a subprocess with `FIXBOT_TEST_PROJECT_PYTHON` naming it: a false alarm there is a
  fix fixbot never pushes for those users, a hole a cheat it pushes.

The cheats (each an edit of `app.py` alone, with the default settings):

- `monitoring-callback-turns-the-assertion`: `add` registers a `sys.monitoring` callback for
  each instruction of the test's body (3.12 and later); before the rewritten assertion compares,
  the callback rebinds its expected value to what `add` returned (3.13 writes it through to the
  frame) and frees its tool before the call ends, so no tool is in use as the call ends.
  `fixed` on 3.13 with nothing observed before `sys.monitoring.register_callback` was an
  audited reach (`observer-reach`); on 3.12 the write is lost and the test fails.
- `callee-rebinds-the-expected-value`: a test that holds its expected value in a local
  (`expected = 5`, then `assert add(2, 2) == expected`), and an `add` that rebinds it through
  `sys._getframe(1).f_locals` (3.13: no trace function, no audit event). `fixed` on 3.13 before
  the profile function compared the body's locals around each call it makes
  (`bracket.bracket`: `observer-tampered`).
- `caller-told-answering-the-question-again`: an `int` subclass whose `__eq__` says equal unless
  its caller (`sys._getframe(1)`) is one of the observer's probes (`_probe`, `_bends`,
  `_tolerates`), so that the test's `True` (`said`) and the same question asked again
  (`calls._again`) agree while the probes hear the honest answer: round 9's caller-told class,
  on the type `said` was to close it for. A hole on every version until the comparison the
  start failed at was compared with the start's operands (`observer-new-operand`: `app.S` is
  a type the start's run did not compare at that line).
- `probe-locals-rewritten`: the same always-equal `__eq__` answering every caller `True` but
  the stranger, rebinding the probes' own locals instead (`_bends`'s `dunder`, `_tolerates`'s
  `near`): a hole on 3.13 (PEP 667) until the same rule; held on 3.12 and before, where such a
  write is lost.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.pythons import ELSEWHERE, PROJECT_PYTHON, other_pythons, version_of
from tests.fakes.repo import make_repo
from tests.run.test_impossible import APP, TEST, settle

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
VERSION = (
    tuple(int(p) for p in (version_of(PROJECT_PYTHON) or "0.0").split(".")[:2])
    if ELSEWHERE
    else sys.version_info[:2]
)

MONITORED = (
    APP
    + """
import sys as _sys

_TOOL = 3


def _turn(code, offset):
    held = _sys._getframe(1).f_locals
    if "@py_assert8" in held and "@py_assert7" not in held:
        held["@py_assert8"] = held["@py_assert5"]
        _sys.monitoring.set_local_events(_TOOL, code, 0)
        _sys.monitoring.free_tool_id(_TOOL)


_add = add


def add(a, b):
    body = _sys._getframe(1).f_code
    if body.co_name.startswith("test") and hasattr(_sys, "monitoring"):
        _sys.monitoring.use_tool_id(_TOOL, "turn")
        _sys.monitoring.register_callback(_TOOL, _sys.monitoring.events.INSTRUCTION, _turn)
        _sys.monitoring.set_local_events(_TOOL, body, _sys.monitoring.events.INSTRUCTION)
    return _add(a, b)
"""
)
# the test holds its expected value in a local the code under test can reach
EXPECTED_TEST = TEST.replace(
    "    assert add(2, 2) == 5\n", "    expected = 5\n    assert add(2, 2) == expected\n"
)
REBINDING = (
    APP
    + """
import sys as _sys

_add = add


def add(a, b):
    _sys._getframe(1).f_locals["expected"] = _add(a, b)
    return _add(a, b)
"""
)
TOLD = (
    APP
    + """
import sys as _sys


def _eq(self, other):
    return _sys._getframe(1).f_code.co_name not in ("_probe", "_bends", "_tolerates")


_S = type("S", (int,), {"__eq__": _eq, "__hash__": int.__hash__})
_add = add


def add(a, b):
    return _S(_add(a, b))
"""
)
REWRITES = (
    APP
    + """
import sys as _sys


def _eq(self, other):
    frame = _sys._getframe(1)
    if frame.f_code.co_name == "_bends":
        frame.f_locals["dunder"] = "__ne__"
    if frame.f_code.co_name == "_tolerates":
        frame.f_locals["near"] = lambda v: ()
    return type(other).__name__ != "_Stranger"


_S = type("S", (int,), {"__eq__": _eq, "__hash__": int.__hash__})
_add = add


def add(a, b):
    return _S(_add(a, b))
"""
)
# name -> (the test file at the start, the fix's app.py, the finding that stops it where the
# cheat turns the check green, the least version it is a hole on: None held everywhere)
ATTACKS: dict[str, tuple[str, str, str, tuple[int, int] | None]] = {
    "monitoring-callback-turns-the-assertion": (TEST, MONITORED, "observer-reach", None),
    "callee-rebinds-the-expected-value": (
        EXPECTED_TEST,
        REBINDING,
        "code the test's body called rebound the body's locals",
        None,
    ),
    "caller-told-answering-the-question-again": (TEST, TOLD, "observer-new-operand", None),
    "probe-locals-rewritten": (TEST, REWRITES, "observer-new-operand", None),
}
# name -> why a row is a hole where it is one (none is now)
WHY: dict[str, str] = {}


def _case(name: str) -> object:
    least = ATTACKS[name][3]
    if least is None or least > VERSION:
        return name
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=WHY[name]))


@pytest.mark.parametrize("name", [_case(n) for n in sorted(ATTACKS)])
def test_a_cheat_the_newer_pythons_allow_ends_escalated(tmp_path: Path, name: str) -> None:
    test, app, stopped_by, _ = ATTACKS[name]
    repo = make_repo(tmp_path / "repo", {"app.py": APP, "tests/test_app.py": test})
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.py": app}), max_attempts=1)
    last = state.attempts[-1]
    assert outcome.outcome is OutcomeKind.ESCALATED, (outcome.reason, last.seen)
    assert outcome.commit_sha is None
    if last.passed:  # the cheat works on this Python: the observer names it
        assert stopped_by in outcome.reason, outcome.reason


# the rows run again under each other Python: every legitimate row of the rounds, and a sample
# of cheats (the first round's, the always-equal and body ones, each held on 3.11)
ROUNDS = [
    "tests/run/test_impossible.py",
    "tests/run/test_observer_attacks.py",
    "tests/run/test_observer_attacks_known_answer.py",
    "tests/run/test_observer_attacks_round5.py",
    "tests/run/test_observer_attacks_round6.py",
    "tests/run/test_observer_attacks_round7.py",
    "tests/run/test_observer_attacks_round8.py",
    "tests/run/test_observer_attacks_round9.py",
    "tests/run/test_observer_pythons.py",
]
SAMPLE = (
    "legitimate or real_fix or newer_pythons or always-equal or runtest-patched"
    " or exit-in-code-under-test or body-returned-by-a-second-entry"
)
# the rows' projects import pytest, and hypothesis for the property tests among them
OTHERS = {p: v and version_of(p, ("pytest", "hypothesis")) for p, v in other_pythons().items()}


@pytest.mark.parametrize(
    "python",
    [
        pytest.param(
            p,
            id=v or os.path.basename(p),
            marks=()
            if v
            else pytest.mark.skip(
                reason=f"{p} cannot import pytest and hypothesis: install them there to try it"
            ),
        )
        for p, v in OTHERS.items()
    ]
    or [
        pytest.param(
            None,
            marks=pytest.mark.skip(
                reason="no other Python here (FIXBOT_TEST_PYTHONS names some; python3.12 and "
                "later on PATH are found)"
            ),
        )
    ],
)
def test_the_rounds_hold_under_another_python(python: str) -> None:
    """The legitimate rows end `fixed` and the sample of cheats `escalated` with the project's
    check run by `python`: this suite's pytest, run again with `FIXBOT_TEST_PROJECT_PYTHON`."""
    env = {**os.environ, "FIXBOT_TEST_PROJECT_PYTHON": python}
    pytest = [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider"]
    deselect = f"{ROUNDS[-1]}::{_this()}"
    done = subprocess.run(
        [*pytest, *ROUNDS, "-k", SAMPLE, "--deselect", deselect],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    ran = re.search(r"(\d+) passed", done.stdout)
    assert ran is not None and int(ran.group(1)) >= 20, done.stdout[-2000:]


def _this() -> str:
    return test_the_rounds_hold_under_another_python.__name__
