"""Round 16's legitimate fixes: honest fixes whose value handed back to the watched body is
large, so `fixbot.observe.classes.pinner`'s walk (`holds.py`) reads much of it, and whose start
raised before it handed anything back (no run of the start's to excuse a walk cut by its bounds,
`watch.MAX_ITEMS`): a parser's tree of the project's own node objects, the shape of a real
project's result (sqlparse's token lists, Markdown's element trees). Each must stay `fixed` with
nothing observed; each is checked green by hand first, so a strict xfail is fixbot's verdict
alone (`LEGITIMATE_WHY`).

And `fixbot.observe.unread` (obs26, then the lead): an honest comparison the body makes of a
call's result left on the stack, where that result is an object of a class made at run time
(`self.assertTrue(corner() == Point(0, 0))`, not rewritten by pytest: unittest's style), is
read nowhere; where the object's class's own Python `__eq__` runs for it from the body's
comparison (a dataclass's) it is settled (`unread.settler`): `fixed`. Where the class's
comparison is C (a named tuple's, `tuple.__eq__`; an enum member's, identity) nothing runs that
a class swapped in could not also do: unverified, `observer-tampered`, a human looks (the
documented cost, a strict xfail row).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow

TREE = '''\
class Token:
    """A word of the text, its parent the group holding it."""

    def __init__(self, text, parent=None):
        self.text = text
        self.parent = parent


class Group(Token):
    """A run of tokens."""

    def __init__(self, tokens):
        super().__init__(" ".join(t.text for t in tokens))
        self.tokens = tokens
        for token in tokens:
            token.parent = self


def parse(text, width=10):
    """The words of `text` as `Token`s, grouped `width` by `width` under one `Group`."""
    words = [Token(w) for w in text.split()]
    groups = [Group(words[i : i + width]) for i in range(0, len(words), width)]
    return Group(groups[0])
'''
# the start raises before it hands anything back: the whole text is one group, not groups of it
FIX = {"app.py": TREE.replace("return Group(groups[0])", "return Group(groups)")}
TEST = """\
from app import parse


def test_parse():
    tree = parse(" ".join(str(i) for i in range({n})))
    assert len(tree.tokens) == {groups}
    assert tree.tokens[-1].tokens[-1].text == "{last}"
"""


def _case(words: int) -> tuple[dict[str, str], dict[str, str]]:
    test = TEST.format(n=words, groups=words // 10, last=words - 1)
    return {"app.py": TREE, "tests/test_app.py": test}, FIX


POINT = '''\
import dataclasses


@dataclasses.dataclass
class Point:
    x: int
    y: int


def corner():
    """The origin."""
    return Point(0, 1)
'''
ASSERT_TRUE_TEST = """\
import unittest

from app import Point, corner


class TestCorner(unittest.TestCase):
    def test_corner(self):
        self.assertTrue(corner() == Point(0, 0))
"""
NAMED = POINT.replace("import dataclasses", "import collections").replace(
    "@dataclasses.dataclass\nclass Point:\n    x: int\n    y: int\n",
    'Point = collections.namedtuple("Point", "x y")\n',
)
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "a-small-tree-handed-back-where-the-start-raised": _case(200),
    "a-tree-of-two-thousand-tokens-handed-back-where-the-start-raised": _case(2000),
    "a-dataclass-compared-off-the-stack-in-assert-true": (
        {"app.py": POINT, "tests/test_app.py": ASSERT_TRUE_TEST},
        {"app.py": POINT.replace("Point(0, 1)", "Point(0, 0)")},
    ),
    "a-named-tuple-compared-off-the-stack-in-assert-true": (
        {"app.py": NAMED, "tests/test_app.py": ASSERT_TRUE_TEST},
        {"app.py": NAMED.replace("Point(0, 1)", "Point(0, 0)")},
    ),
}
LEGITIMATE_WHY: dict[str, str] = {
    "a-named-tuple-compared-off-the-stack-in-assert-true": (
        "observer-tampered, the documented cost of unread.py: a comparison of a call's result"
        " left on the stack (no source to read it from) whose value is an object of a class"
        " made at run time whose comparison is C (tuple's), which no frame shows deciding, is"
        " unverified"
    ),
}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)
