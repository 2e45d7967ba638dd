"""Round 15's legitimate fixes (`tests/run/test_observer_attacks_round15.py` holds the round's
attacks): honest fixes whose test compares the project's value outside every frame of the test
module, in a helper of another module of the tests (`tests/helpers.py`) or in unittest's
`assertEqual`, the value a list of objects of the project's classes (a dataclass, a named tuple,
an enum: classes made at run time, pinned at the hand-off by `fixbot.observe.classes.pinner`,
their comparisons a Python function's or a built-in's own). Each must stay `fixed` with nothing
observed (no class changed, no slot counted); each is checked green by hand first, so a strict
xfail is fixbot's verdict alone (`LEGITIMATE_WHY`, none).

And (obs23, the first class) honest fixes whose test's comparison result pytest's rewrite stores
and copies before its jump (an operand of an `or` or an `and`) or the test keeps in a local, each
followed since round 15 on every version (`fixbot.observe.jumps._store`, `followed._stored`): its
`op` owes a `fol`, which must come, told:

- `or-whose-first-comparison-is-made-right`: `assert add(2, 2) == 4 or add(1, 1) < 0` (the
  first jump taken).
- `or-whose-second-comparison-is-made-right`: `assert add(2, 2) < 0 or add(1, 1) == 2` (the
  first not taken; the second copied to the assertion's own local and jumped on).
- `and-of-two-comparisons-made-right`: `assert add(2, 2) == 4 and add(1, 1) == 2`.
- `comparison-kept-in-a-local-made-right`: `same = add(2, 2) == 4`, then `assert same`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow

SHAPES = '''\
import collections
import dataclasses
import enum


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


Pair = collections.namedtuple("Pair", "x y")


@dataclasses.dataclass
class Tile:
    at: Pair
    colour: Colour


def tiles(n):
    """A row of n tiles, alternating red and blue from red."""
    return [Tile(Pair(i, 0), Colour.BLUE if i % 2 else Colour.BLUE) for i in range(n)]
'''
WANT = "[Tile(Pair(0, 0), Colour.RED), Tile(Pair(1, 0), Colour.BLUE), Tile(Pair(2, 0), Colour.RED)]"
HELPERS = '''\
def same(got, want):
    """Whether `got` is `want`."""
    return got == want
'''
HELPER_TEST = f"""\
from app import Colour, Pair, Tile, tiles
from helpers import same


def test_tiles():
    assert same(tiles(3), {WANT})
"""
UNITTEST_TEST = f"""\
import unittest

from app import Colour, Pair, Tile, tiles


class TestTiles(unittest.TestCase):
    def test_tiles(self):
        self.assertEqual(tiles(3), {WANT})
"""
FIX = {
    "app.py": SHAPES.replace(
        "Colour.BLUE if i % 2 else Colour.BLUE", "Colour.BLUE if i % 2 else Colour.RED"
    )
}
# `add` subtracts: each test below fails at the start and passes once it adds
SUBTRACTS = '''\
def add(a, b):
    """The sum of a and b."""
    return a - b
'''


def _adds(body: str) -> tuple[dict[str, str], dict[str, str]]:
    """A start whose `add` subtracts and whose test's body is `body`, and the fix that adds."""
    test = f"from app import add\n\n\ndef test_add():\n{body}\n"
    fixed = SUBTRACTS.replace("a - b", "a + b")
    return {"app.py": SUBTRACTS, "tests/test_app.py": test}, {"app.py": fixed}


LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "objects-compared-in-a-helper-of-another-test-module": (
        {"app.py": SHAPES, "tests/test_app.py": HELPER_TEST, "tests/helpers.py": HELPERS},
        FIX,
    ),
    "objects-compared-in-unittests-assert-equal": (
        {"app.py": SHAPES, "tests/test_app.py": UNITTEST_TEST},
        FIX,
    ),
    "or-whose-first-comparison-is-made-right": _adds("    assert add(2, 2) == 4 or add(1, 1) < 0"),
    "or-whose-second-comparison-is-made-right": _adds("    assert add(2, 2) < 0 or add(1, 1) == 2"),
    "and-of-two-comparisons-made-right": _adds("    assert add(2, 2) == 4 and add(1, 1) == 2"),
    "comparison-kept-in-a-local-made-right": _adds("    same = add(2, 2) == 4\n    assert same"),
}
LEGITIMATE_WHY: dict[str, str] = {}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)
