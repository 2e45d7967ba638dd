"""Round 17's legitimate fixes: honest test bodies that change, in place, a container the
project's code handed back to them before they compare it (`x = evens(10); x.append(10);
assert x == [...]`, `.sort()`, a subscript store, `+=`, a dict's and a set's own methods, the
project's own method adding to a list it handed back earlier, a fixture's value changed by the
body). `fixbot.observe.contents` holds what a container handed back holds from the hand-off to
the body's comparison, and says `tampered` where it changed with no instruction of the body's
that could change it run since: each of these changes is made by such an instruction (a call, a
subscript store, an in-place operator), so each must stay `fixed` with nothing observed (each
checked green by hand first: a strict xfail would be fixbot's verdict alone).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case

pytestmark = pytest.mark.slow

# the project: its functions hand back containers; the start's bug hands back the odd numbers,
# the fix the even ones (the specification the tests hold)
APP = '''\
def evens(n):
    """The even numbers below n (a list)."""
    return list(range(1, n, 2))


def table(n):
    """Each even number below n, mapped to its half (a dict)."""
    return {k: k // 2 for k in range(1, n, 2)}


def kept(n):
    """The even numbers below n (a set)."""
    return set(range(1, n, 2))


class Log:
    """A log whose `lines()` is the live list its `add` appends to."""

    def __init__(self):
        self._lines = []

    def add(self, n):
        self._lines.extend(evens(n))

    def lines(self):
        return self._lines
'''
FIX = {"app.py": APP.replace("range(1, n, 2)", "range(0, n, 2)")}
# the body changes the list it was handed through its own methods and stores
LIST_TEST = """\
from app import evens


def test_append():
    got = evens(10)
    got.append(10)
    assert got == [0, 2, 4, 6, 8, 10]


def test_sort():
    got = evens(10)
    got.sort(reverse=True)
    assert got == [8, 6, 4, 2, 0]


def test_store_and_pop():
    got = evens(10)
    got[0] = -1
    for _ in range(2):
        got.pop()
    assert got == [-1, 2, 4]


def test_in_place_add():
    got = evens(6)
    got += [6]
    same = got
    same.remove(0)
    assert got == [2, 4, 6]
"""
# a dict's and a set's own methods, a subscript store and delete
MAPPING_TEST = """\
from app import kept, table


def test_table():
    got = table(6)
    got[6] = 3
    del got[0]
    got.pop(2)
    assert got == {4: 2, 6: 3}


def test_kept():
    got = kept(6)
    got.discard(0)
    got |= {8}
    assert got == {2, 4, 8}
"""
# the project's own method adds to the list it handed back earlier, and a fixture's value (handed
# to the body as its argument) is changed by the body; unittest's style too
LIVE_TEST = """\
import unittest

import pytest

from app import Log, evens


def test_live_list():
    log = Log()
    lines = log.lines()
    log.add(6)
    assert lines == [0, 2, 4]


@pytest.fixture
def numbers():
    return evens(8)


def test_fixture(numbers):
    numbers.insert(0, -2)
    assert numbers == [-2, 0, 2, 4, 6]


class TestLog(unittest.TestCase):
    def test_extended(self):
        got = evens(4)
        got.extend(evens(4))
        self.assertEqual(got, [0, 2, 0, 2])
"""
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "a-list-handed-back-changed-by-its-own-methods-and-stores": (
        {"app.py": APP, "tests/test_app.py": LIST_TEST},
        FIX,
    ),
    "a-dict-and-a-set-handed-back-changed-by-their-own-methods": (
        {"app.py": APP, "tests/test_app.py": MAPPING_TEST},
        FIX,
    ),
    "a-live-list-added-to-by-the-project-and-a-fixtures-list-changed": (
        {"app.py": APP, "tests/test_app.py": LIVE_TEST},
        FIX,
    ),
}
LEGITIMATE_WHY: dict[str, str] = {}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, start, fix)
