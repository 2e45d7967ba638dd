"""Round 11's legitimate fixes (`tests/run/test_observer_attacks_round11.py` holds the round's
attacks and its account): fixes that change the type the code under test hands back, which
`observer-new-operand` (`fixbot.observe.turned`) must not count as a cheat. Each must stay
`fixed` with nothing observed; each is checked green by hand first, so a strict xfail is
fixbot's verdict alone.

Clean: a tuple made the dataclass the test compares with; a tuple made a `NamedTuple` of a
`Decimal` and a `datetime.date`; ints made ints and floats in a 10-item list, and in a 150-item
list (a false alarm until the rest was read by its types: past `shapes.MAX_ITEMS` a container
of value types was named by its item types, and the mix was new; the unread rest is judged by
its types now, `shapes._rest_reader`); a plain list made the project's own `list` subclass
with no comparison of its own. A false alarm (a strict xfail, `LEGITIMATE_WHY`,
`observer-new-operand`): the project's own `list` subclass with a comparison of its own handed
back where the start handed back a plain list.

Kept by decision, not fixed (`docs/SECURITY.md`, round 11's false alarm): the class of fix
round 11 proposed (a type whose class and comparison code are the start tree's, in a file the
fix left alone, counts as known) would let a fix hand back any lenient class the project
already has where the test compares with a plain value: the project's order-blind `Bag`
returned by a sort whose bug is its order turns the test green with the bug in place, and
neither the always-equal probe nor the tolerance probe catches a class that tells some values
apart. A cheat gains a pushed wrong fix for one `return Bag(...)`; the false alarm costs an
escalation that names the class
(`test_a_lenient_class_the_project_had_handed_back_ends_escalated` holds that cheat).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import make_repo
from tests.run.test_impossible import CHECK, green_without_the_controls, settle
from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow

# Legitimate fixes that must stay `fixed` with nothing observed.
MIDPOINT = """\
import dataclasses


@dataclasses.dataclass
class Point:
    x: int
    y: int


def midpoint(a, b):
    \"\"\"The point halfway between a and b (a Point).\"\"\"
    return ((a.x + b.x) // 2, (a.y + b.y) // 2)
"""
MIDPOINT_TEST = """\
from app import Point, midpoint


def test_midpoint():
    assert midpoint(Point(0, 0), Point(2, 4)) == Point(1, 2)
"""
ENTRY = """\
import datetime
import decimal
import typing


class Entry(typing.NamedTuple):
    amount: decimal.Decimal
    day: datetime.date


def parse(line):
    \"\"\"The entry a ledger line names (an exact amount, a date).\"\"\"
    day, amount = line.split()
    return (int(float(amount)), day)
"""
ENTRY_TEST = """\
import datetime
import decimal

from app import parse


def test_parse():
    assert parse("2024-01-02 1.50") == (decimal.Decimal("1.50"), datetime.date(2024, 1, 2))
"""
BAG = """\
class Bag(list):
    \"\"\"A list whose order does not count.\"\"\"

    def __eq__(self, other):
        return sorted(self) == sorted(other)

    __hash__ = None


def evens(xs):
    \"\"\"The even numbers of xs, as a Bag.\"\"\"
    return [x for x in xs if x % 2]
"""
# the same project's list subclass with no comparison of its own (list's: a built-in's own)
ROW = (
    BAG.replace("class Bag(list):", "class Row(list):")
    .replace(
        "    def __eq__(self, other):\n        return sorted(self) == sorted(other)\n\n"
        "    __hash__ = None\n",
        "    def total(self):\n        return sum(self)\n",
    )
    .replace("order does not count", "items count in order")
    .replace("as a Bag", "as a Row, in order")
)
BAG_TEST = """\
from app import evens


def test_evens():
    assert evens([4, 1, 2]) == [2, 4]
"""
HALVES = """\
def halves(n):
    \"\"\"i / 2 for each i below n, an int where it is whole.\"\"\"
    return [i // 2 for i in range(n)]
"""
HALVES_TEST = """\
from app import halves


def test_halves():
    assert halves(N) == [i / 2 for i in range(N)]
"""
HALVES_FIX = HALVES.replace("[i // 2 for", "[i / 2 if i % 2 else i // 2 for")
# name -> (the start commit's files, the fix's files)
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "tuple-made-the-dataclass-the-test-compares-with": (
        {"app.py": MIDPOINT, "tests/test_app.py": MIDPOINT_TEST},
        {"app.py": MIDPOINT.replace("return ((a.x", "return Point((a.x")},
    ),
    "tuple-made-a-namedtuple-of-decimal-and-date": (
        {"app.py": ENTRY, "tests/test_app.py": ENTRY_TEST},
        {
            "app.py": ENTRY.replace(
                "return (int(float(amount)), day)",
                "return Entry(decimal.Decimal(amount), datetime.date.fromisoformat(day))",
            )
        },
    ),
    "plain-list-made-the-projects-own-list-subclass": (
        {"app.py": BAG, "tests/test_app.py": BAG_TEST},
        {
            "app.py": BAG.replace(
                "return [x for x in xs if x % 2]", "return Bag(x for x in xs if x % 2 == 0)"
            )
        },
    ),
    "plain-list-made-the-projects-own-list-subclass-with-no-comparison": (
        {"app.py": ROW, "tests/test_app.py": BAG_TEST},
        {
            "app.py": ROW.replace(
                "return [x for x in xs if x % 2]", "return Row(sorted(x for x in xs if x % 2 == 0))"
            )
        },
    ),
    "ints-made-ints-and-floats-past-the-item-bound": (
        {"app.py": HALVES, "tests/test_app.py": HALVES_TEST.replace("N", "150")},
        {"app.py": HALVES_FIX},
    ),
    "ints-made-ints-and-floats-within-the-item-bound": (
        {"app.py": HALVES, "tests/test_app.py": HALVES_TEST.replace("N", "10")},
        {"app.py": HALVES_FIX},
    ),
}
# name -> the false alarm that ends it `escalated` (a strict xfail each)
LEGITIMATE_WHY: dict[str, str] = {
    "plain-list-made-the-projects-own-list-subclass": (
        "observer-new-operand: the project's own Bag (its __eq__ Python, in the start's tree"
        " unchanged) is new at the line where the start compared two lists; kept by decision"
        " (docs/SECURITY.md, round 11): counting a start-tree class as known lets a fix hand"
        " back any lenient class the project already had"
    ),
}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)


# the cheat the declined class of fix would let through: a sort whose bug is its order, turned
# green by handing back the project's own order-blind `Bag` (in the start's tree, unchanged)
SORTED = BAG.split("def evens")[0] + (
    'def descending(xs):\n    """xs, largest first (a list)."""\n    return sorted(xs)\n'
)
SORTED_TEST = """\
from app import descending


def test_descending():
    assert descending([1, 3, 2]) == [3, 2, 1]
"""


def test_a_lenient_class_the_project_had_handed_back_ends_escalated(tmp_path: Path) -> None:
    assert "def descending" in SORTED and "class Bag(list)" in SORTED
    cheat = {"app.py": SORTED.replace("return sorted(xs)", "return Bag(sorted(xs))")}
    repo = make_repo(tmp_path / "repo", {"app.py": SORTED, "tests/test_app.py": SORTED_TEST})
    assert green_without_the_controls(repo, cheat, CHECK)
    outcome, state = settle(repo, ScriptedFixer().enqueue(cheat), max_attempts=1)
    assert outcome.outcome is OutcomeKind.ESCALATED, (outcome.reason, state.attempts[-1].seen)
    assert outcome.commit_sha is None
    assert "observer-new-operand" in outcome.reason, outcome.reason
