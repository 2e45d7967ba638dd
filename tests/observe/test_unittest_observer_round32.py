"""fixbot's observer inside unittest, round 32's hole: a `__dict__` property in a test class's
namespace (test_app.py's class statement handed it by a metaclass that `builtins.__build_class__`
passed) answers `object.__getattribute__(test, "__dict__")`, so that the wrapped test method its
metaclass set in the instance's real dict was unseen by `_body` and `_on_instance`. They read
the instance's namespace with `TestCase`'s own `__dict__` getset (`unittest_asserts.OWN`), as
`TestCase.run`'s `getattr` finds it, the property's getter never called. Its follow-ups: such a
`__dict__` in a class's namespace is named at the test's end (`unittest_compiled._dict_names`), and
a class made while `builtins.__build_class__` is not the one loaded keeps no statement
(`unittest_made._maker`); honest classes, mixins, dataclasses and `ABCMeta` classes are no
finding. In this process."""

from __future__ import annotations

import abc
import builtins
import contextlib
import dataclasses
import functools
import os
import sys
import unittest
from typing import Any

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_made as made_part


def _hidden() -> tuple[unittest.TestCase, list[Any]]:
    """A test whose class holds a `__dict__` property answering {} (its calls noted), its
    `test_add` (which fails) wrapped in the instance's real dict, a no-op `assertEqual` too."""
    asked: list[Any] = []

    class Case(unittest.TestCase):
        __dict__ = property(lambda self: asked.append(self) or {})  # type: ignore[assignment]

        def test_add(self) -> None:
            self.assertEqual(1 - 1, 2)

    test = Case("test_add")
    found = Case.test_add.__get__(test)

    def body() -> None:
        with contextlib.suppress(AssertionError):
            found()

    object.__setattr__(test, "test_add", body)
    object.__setattr__(test, "assertEqual", lambda *args, **kwargs: None)
    return test, asked


def test_the_property_answers_dict_and_hides_the_instance_s_namespace() -> None:
    """The cheat as the interpreter sees it: `object.__getattribute__` finds the property, while
    `getattr` (what `TestCase.run` calls) finds the wrapper in the real dict."""
    test, asked = _hidden()
    assert object.__getattribute__(test, "__dict__") == {}
    assert asked == [test]
    assert test.test_add.__name__ == "body"
    assert test.run().wasSuccessful()  # type: ignore[union-attr]


def test_the_body_is_the_method_set_in_the_instance_s_real_dict() -> None:
    """`_body`: the wrapper `TestCase.run` will call, not the class's `test_add` (fails with the
    instance's `__dict__` read through `object.__getattribute__`); the getter not called."""
    test, asked = _hidden()
    body = machinery._body(test)
    assert body is not None and body.__name__ == "body"
    assert asked == []


def test_assert_methods_set_in_the_instance_s_real_dict_are_found() -> None:
    """`_on_instance` (and `_set_on`): the no-op `assertEqual` set on the instance is found
    (fails with `object.__getattribute__`); the getter not called."""
    test, asked = _hidden()
    assert [(w, n) for w, n, _ in asserts._on_instance(test)] == [("test", "assertEqual")]
    assert asked == []


def test_the_real_dict_is_read_as_a_dict_and_a_non_test_has_none() -> None:
    """`OWN` is `TestCase`'s own getset: a `dict` subclass set as the `__dict__` is read as a
    plain dict (round 27); an object no `TestCase` has no namespace for `_body` (None)."""

    class Shown(dict):  # type: ignore[type-arg]
        def get(self, *args: Any) -> Any:
            raise AssertionError("a method of the subclass ran")

    test = unittest.FunctionTestCase(lambda: None)
    test.__dict__ = Shown(test.__dict__, assertTrue=len)
    assert [n for _, n, _ in asserts._on_instance(test)] == ["assertTrue"]
    assert machinery._body(object()) is None
    assert asserts._on_instance(object()) == []


# --- round 32's follow-ups: the `__dict__` set in a class's namespace, `__build_class__` swapped --

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
FILE = os.path.basename(__file__)


def test_a_dict_property_in_the_test_class_is_named_at_the_test_s_end() -> None:
    """`unittest_compiled._dict_names`, asked by `_foreign` through the recorder's `ours(test,
    False)`: the `__dict__` property of the test's class is named with its getter's file (the
    row held with `OWN` reverted); its getter is not called."""
    test, asked = _hidden()
    name = "unittest: __dict__ of Case set by " + FILE
    assert compiled._dict_names(test, HERE, unittest.TestCase) == [name]
    assert name in asserts._foreign(test, HERE, compiled._recorder(HERE)[1])
    assert asked == []


class _Other:
    pass


def test_a_mixin_s_dict_set_or_another_class_s_getset_is_named() -> None:
    """A mixin's `__dict__` (of the MRO below `TestCase`) that is a property, or the getset of
    another class, or set under a key of a `str` subclass, is named with the mixin's name."""

    class Key(str):
        __hash__ = str.__hash__

    Mixin = type("Mixin", (), {Key("__dict__"): property(lambda self: {})})

    class Borrowed:
        __dict__ = vars(_Other)["__dict__"]

    class Case(Mixin, Borrowed, unittest.TestCase):  # type: ignore[valid-type,misc]
        def test_it(self) -> None:
            pass

    names = compiled._dict_names(Case("test_it"), HERE, unittest.TestCase)
    assert names == [
        f"unittest: __dict__ of Mixin set by {FILE}",
        "unittest: __dict__ of Borrowed set by ?",
    ]


@dataclasses.dataclass
class _Data:
    size: int = 0


class _Abstract(abc.ABC):  # noqa: B024
    pass


def test_honest_classes_and_mixins_are_not_named() -> None:
    """No false alarm: a plain test class (no `__dict__` of its own), a mixin with the getset
    `type` gives it, a `dataclass`-made mixin, `ABCMeta` classes, and a test's `TestCase`'s own
    `__dict__` (above the MRO read)."""

    class Plain:
        pass

    class Case(Plain, _Data, _Abstract, unittest.TestCase):
        def test_it(self) -> None:
            pass

    class Meta(unittest.TestCase, metaclass=abc.ABCMeta):
        def test_it(self) -> None:
            pass

    for test in (Case("test_it"), Meta("test_it"), unittest.FunctionTestCase(lambda: None)):
        assert compiled._dict_names(test, HERE, unittest.TestCase) == []
        assert asserts._foreign(test, HERE, compiled._recorder(HERE)[1]) == []


def test_a_class_made_while_build_class_is_not_the_loaded_one_keeps_no_statement() -> None:
    """`_maker`: a test class made while `builtins.__build_class__` is not the one there as the
    part loaded (a `functools.partial` of it: C calling C, the statement still its maker) keeps
    no statement (its file "?", new among the test's classes); once put back, the next one does."""

    class Case(unittest.TestCase):
        pass

    made: dict[int, tuple[Any, Any]] = {}
    Case.__init_subclass__ = classmethod(made_part._maker(made, Case))  # type: ignore[assignment]
    real = builtins.__build_class__
    builtins.__build_class__ = functools.partial(real)
    try:

        class Swapped(Case):
            pass

    finally:
        builtins.__build_class__ = real

    class Kept(Case):
        pass

    assert made[id(Swapped)] == (Swapped, None)
    assert made[id(Kept)] == (Kept, sys._getframe().f_code)
