"""Round 14's legitimate fixes (`tests/run/test_observer_attacks_round14.py` holds the round's
attacks): honest fixes whose test compares outside its body's own frame, in a generator
expression or a helper of the test module, which the trace function now reads as the body's
(`fixbot.observe.operands.tracer`) and `fixbot.observe.turned` counts towards the comparison the
start failed at. Each must stay `fixed` with nothing observed; each is checked green by hand
first, so a strict xfail is fixbot's verdict alone (`LEGITIMATE_WHY`, none).

- `genexpr-of-ints-made-right`: `assert all(a == b for ...)` over `int`s (built-ins' own).
- `helper-comparing-a-dataclass-of-the-test-module`: a helper compares two instances of a
  dataclass the test module defines (its `__eq__` Python: the profile function's to judge).
- `helper-comparing-lists-of-that-dataclass`: the same in lists (a container of them).
- `lambda-comparing-strs-made-right`: a lambda of the test module's, called by `filter` (C),
  compares `str`s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow


def _case(app: str, test: str, old: str, new: str) -> tuple[dict[str, str], dict[str, str]]:
    """A start whose `app.py` is `app` and whose test is `test`, and a fix writing `new` for
    `old` in `app.py`."""
    assert old in app
    return {"app.py": app, "tests/test_app.py": test}, {"app.py": app.replace(old, new)}


EVENS = '''\
def evens(n):
    """The even numbers below n (a list)."""
    return list(range(1, n, 2))
'''
EVENS_TEST = """\
from app import evens


def test_evens():
    assert all(a == b for a, b in zip(evens(10), [0, 2, 4, 6, 8]))
"""
CORNER = '''\
def corner(w, h):
    """The far corner of a w by h box, an (x, y) pair."""
    return (0, 0)


def corners(w, h):
    """The near and far corners of a w by h box, (x, y) pairs."""
    return [(0, 0), (0, 0)]
'''
POINT_TEST = """\
import dataclasses

from app import corner, corners


@dataclasses.dataclass
class Point:
    x: int
    y: int


def _same(got, want):
    left, right = Point(*got), Point(*want)
    return left == right


def _all_same(got, want):
    left, right = [Point(*p) for p in got], [Point(*p) for p in want]
    return left == right


def test_corner():
    assert _same(corner(3, 4), (3, 4))
"""
# the same module, its test comparing lists of the dataclass
POINTS_TEST = POINT_TEST.replace(
    "def test_corner():\n    assert _same(corner(3, 4), (3, 4))",
    "def test_corners():\n    assert _all_same(corners(3, 4), [(0, 0), (3, 4)])",
)
WORDS = '''\
def words(text):
    """The words of text, in order."""
    return text.split()[::-1]
'''
WORDS_TEST = """\
from app import words


def test_words():
    assert list(filter(lambda w: w != "bb", words("bb a ccc"))) == ["a", "ccc"]
"""
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "genexpr-of-ints-made-right": _case(EVENS, EVENS_TEST, "range(1, n, 2)", "range(0, n, 2)"),
    "helper-comparing-a-dataclass-of-the-test-module": _case(
        CORNER, POINT_TEST, "return (0, 0)\n", "return (w, h)\n"
    ),
    "helper-comparing-lists-of-that-dataclass": _case(
        CORNER, POINTS_TEST, "return [(0, 0), (0, 0)]", "return [(0, 0), (w, h)]"
    ),
    "lambda-comparing-strs-made-right": _case(
        WORDS, WORDS_TEST, "text.split()[::-1]", "text.split()"
    ),
}
LEGITIMATE_WHY: dict[str, str] = {}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)
