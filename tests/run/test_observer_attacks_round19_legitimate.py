"""Round 19's legitimate fixes: honest test bodies that define classes whose bodies change their
own namespaces before a comparison reads them. `fixbot.observe.unstored` holds a class body's
namespace (an exact `dict`, read where that runs nothing: no cell and no fast variable before
3.13) as a frame's locals are held, and allows a change of it at the body's own `STORE_NAME`/
`DELETE_NAME`, `SETUP_ANNOTATIONS`, subscript store or delete, and at a call only in a body that
spells `locals`, `vars` or `f_locals`: each change below is made so (stores, `del`,
annotations, `locals()[k] = v`, `locals().update(...)`, `vars().update(...)`, a comprehension
(inlined on 3.12 and later), a decorator, a nested class, a method calling `super()`, a
dataclass, an `Enum` and a metaclass's `__prepare__` mapping (not held), a class reading a local
of the test's (a free variable), unittest's style), so each must stay `fixed` with nothing
observed (each checked green by hand first: a strict xfail would be fixbot's verdict alone).

One is a false alarm, a strict xfail: `a-class-body-calling-the-projects-frame-helper` (the
project's `register(**names)` writes into its caller's namespace through
`sys._getframe(1).f_locals`, an old idiom of class advisors, zope's `implements()`): a change of
the namespace at a call of a body that spells no `locals` is what round 19's call-spelled cheat
makes, and the observer cannot tell the two apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case

pytestmark = pytest.mark.slow

# the project: the start's bug adds one too many
APP = '''\
import sys


def add(a, b):
    """a + b."""
    return a + b + 1


def register(**names):
    """Bind `names` in the caller's namespace (a class body's), as class advisors did."""
    sys._getframe(1).f_locals.update(names)
'''
FIX = {"app.py": APP.replace("return a + b + 1", "return a + b")}
# class bodies changing their namespaces by their own instructions
STORES_TEST = """\
import dataclasses
import enum
import unittest

from app import add


class Base:
    def size(self):
        return add(1, 0)


class Ordered(type):
    @classmethod
    def __prepare__(mcs, name, bases):
        return {"made": add(0, 0)}


def test_stores():
    class Case:
        total = add(2, 2)
        gone = total
        del gone
        typed: int = add(1, 1)
        locals()["keyed"] = add(0, 3)
        vars().update(updated=add(2, 3))
        locals().update({"more": add(3, 3)})
        squares = [add(i, 0) * i for i in range(3)]

        @staticmethod
        def made():
            return add(3, 4)

        class Inner:
            deep = add(4, 4)

    assert [Case.total, Case.typed, Case.keyed, Case.updated, Case.more] == [4, 2, 3, 5, 6]
    assert Case.squares == [0, 1, 4] and Case.made() == 7 and Case.Inner.deep == 8
    assert Case.__annotations__ == {"typed": int}


def test_super_and_dataclass():
    class Sized(Base):
        def size(self):
            return super().size() + add(1, 0)

    @dataclasses.dataclass
    class Point:
        x: int = add(0, 1)
        y: int = dataclasses.field(default_factory=lambda: add(1, 1))

    assert Sized().size() == 2
    assert Point() == Point(1, 2)


def test_enum_prepare_and_free_variable():
    step = add(1, 1)

    class Color(enum.Enum):
        RED = add(0, 1)
        BLUE = add(1, 1)

    class Kept(metaclass=Ordered):
        doubled = step * 2

    assert Color.BLUE.value == 2 and Kept.made == 0 and Kept.doubled == 4


class TestClasses(unittest.TestCase):
    def test_made(self):
        class Case:
            total = add(2, 2)
            ok = [4] == [total]

        self.assertTrue(Case.ok)
"""
# the project's helper writes into the class body's namespace from a call
HELPER_TEST = """\
from app import add, register


def test_registered():
    class Case:
        register(total=add(2, 2))
        ok = [4] == [total]

    assert Case.ok, Case.total
"""
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "class-bodies-changing-their-namespaces-by-their-own-instructions": (
        {"app.py": APP, "tests/test_app.py": STORES_TEST},
        FIX,
    ),
    "a-class-body-calling-the-projects-frame-helper": (
        {"app.py": APP, "tests/test_app.py": HELPER_TEST},
        FIX,
    ),
}
LEGITIMATE_WHY: dict[str, str] = {
    "a-class-body-calling-the-projects-frame-helper": (
        "a class body's namespace changed by a call of a body spelling no locals, vars or "
        "f_locals is read as a rewrite (round 19's call-spelled cheat makes the same change)"
    ),
}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, start, fix)
