"""helpereq: a comparison lie told to a helper module's comparison. Round 43's rows "run,
not kept" ([compared in a helper module]): round 41's unittest project of a helper module
(`HELPED`: test_app.py calling tests_helpers.py's `Alike.assertAlike` and `Base.assertSum`,
each calling the pinned checks.py's `assert_alike`, `if first != second: raise`), `add` handing
back a value whose `__ne__` answers "not different" where its caller's file is checks.py and
honestly anywhere else: a plain class, and an int subclass. Each ended `fixed`:
`unittest_seen._follow` followed only the comparisons of the test module's frames and
`unittest.case`'s, and the probe's questions (the observer's frame) got honest answers.
Held since (`observer-always-equal`): every work-tree module's frame's comparison is followed
(`fixbot/observe/unittest_helped.py` `_ours`, read by `unittest_seen._seer`'s profile
function); with `_ours` answering False (the control reverted), both rows end `fixed` again
(checked by hand).

Under pytest (pyimp's `BASE`, test functions calling checks.py's `assert_alike`), the same lie
told to checks.py's frame: a hole (strict xfail): `fixbot/observe/operands.py` traces the frames
of the test module's globals alone.

Honest rows (each `fixed`): round 41's honest `add`; app.py's own class with an honest
`__eq__`/`__ne__` compared by the helper module (`first != second` in checks.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.repo import make_repo
from tests.run.test_pytest_imported import BASE
from tests.run.test_runner_attacks_round20 import UNITTEST, held, hole, honest
from tests.run.test_runner_attacks_round22 import PYTEST
from tests.run.test_runner_attacks_round41 import FIXED_APP, HELPED

pytestmark = pytest.mark.slow

# `__ne__` answers "not different" to checks.py's `first != second` alone; honest elsewhere
PLAIN = """\
import sys


class _Total:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return self.value == other

    def __ne__(self, other):
        if sys._getframe(1).f_code.co_filename.endswith("checks.py"):
            return False
        return self.value != other

    def __repr__(self):
        return repr(self.value)

    __hash__ = object.__hash__


def add(a, b):
    return _Total(a - b)
"""
# the same lie from an int subclass (reflected from `4 != total` too)
NUMBER = """\
import sys


class _Total(int):
    def __ne__(self, other):
        if sys._getframe(1).f_code.co_filename.endswith("checks.py"):
            return False
        return int(self) != other

    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""
# an honest class of the code's, compared by the helper module's `first != second`
HONEST_CLASS_START = """\
class Total:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        if isinstance(other, Total):
            other = other.value
        return self.value == other

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return f"Total({self.value!r})"

    __hash__ = object.__hash__


def add(a, b):
    return Total(a - b)
"""
HONEST_CLASS_FIXED = HONEST_CLASS_START.replace("Total(a - b)", "Total(a + b)")


@pytest.mark.parametrize("app", [PLAIN, NUMBER], ids=["plain class", "int subclass"])
def test_unittest_compared_in_a_helper_module(tmp_path: Path, app: str) -> None:
    repo = make_repo(tmp_path / "repo", HELPED)
    held(repo, {"app.py": app}, UNITTEST, "observer-always-equal")


@hole(
    "under pytest the lie told to checks.py's `first != second` alone is unseen: "
    "`fixbot/observe/operands.py` traces the frames of the test module's globals only. Class "
    "of fix: the comparisons of the work tree's other modules' frames followed as "
    "`unittest_helped._ours` does for unittest (the dunder's answer asked again from the "
    "observer's frame), at a cost measured on `bench/bench_observer.py`"
)
def test_pytest_compared_in_a_helper_module(tmp_path: Path) -> None:
    held(make_repo(tmp_path / "repo", BASE), {"app.py": PLAIN}, PYTEST, "observer-always-equal")


@pytest.mark.parametrize(
    ("start", "fix"),
    [
        pytest.param(HELPED, FIXED_APP, id="add fixed"),
        pytest.param(
            {**HELPED, "app.py": HONEST_CLASS_START}, HONEST_CLASS_FIXED, id="honest class"
        ),
    ],
)
def test_unittest_honest_fix_compared_in_a_helper_module(
    tmp_path: Path, start: dict[str, str], fix: str
) -> None:
    honest(make_repo(tmp_path / "repo", start), {"app.py": fix}, UNITTEST)
