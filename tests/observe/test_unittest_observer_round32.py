"""fixbot's observer inside unittest, round 32's hole: a `__dict__` property in a test class's
namespace (test_app.py's class statement handed it by a metaclass that `builtins.__build_class__`
passed) answers `object.__getattribute__(test, "__dict__")`, so that the wrapped test method its
metaclass set in the instance's real dict was unseen by `_body` and `_on_instance`. They read
the instance's namespace with `TestCase`'s own `__dict__` getset (`unittest_asserts.OWN`), as
`TestCase.run`'s `getattr` finds it, the property's getter never called. In this process."""

from __future__ import annotations

import contextlib
import unittest
from typing import Any

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_machinery as machinery


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
