"""fixbot's observer inside unittest, round 31's hole: a metaclass of app.py's whose
`__getattribute__` answers `__dict__` with a class's namespace as first given, after its
`__init__` rewrote the real one (`type.__setattr__`): the test method wrapped (a failure
swallowed), a no-op `assertEqual` set. `vars(klass)` asks the metaclass; the unittest parts
read a class's namespace as `type`'s own `__dict__` descriptor holds it (`_ns`), as
`TestCase.run`'s `getattr` finds it. In this process, on the round-27 helpers' project
(`test_unittest_class_files._Project`: module code run as importing it runs it, the
recorder's hook told)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_made as made_part
from fixbot.observe import unittest_watch as watch
from tests.observe.test_unittest_class_files import _Project

# app.py's metaclass (round 31's row's, `test_runner_attacks_round31.SHOWN`), setting a no-op
# `assertEqual` as well
APP = """\
def _wrapped(found):
    def body(self):
        try:
            found(self)
        except AssertionError:
            pass

    return body


def alike(first, second, msg=None):
    pass


class Shown(type):
    def __init__(cls, name, bases, space, **kwargs):
        super().__init__(name, bases, space, **kwargs)
        type.__setattr__(cls, "_shown", dict(space))
        type.__setattr__(cls, "assertEqual", alike)
        for key, value in space.items():
            if key.startswith("test_"):
                type.__setattr__(cls, key, _wrapped(value))

    def __getattribute__(cls, name):
        if name == "__dict__":
            return type.__getattribute__(cls, "_shown")
        return type.__getattribute__(cls, name)
"""
TEST_APP = """\
import unittest

from app import Shown


class Mix(metaclass=Shown):
    def test_helper(self):
        pass


class Case(Mix, unittest.TestCase):
    def test_it(self):
        self.assertEqual(1, 2)


class Plain(unittest.TestCase, metaclass=Shown):
    def test_it(self):
        self.assertEqual(1, 2)
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[_Project, Any, Any]:
    project = _Project(os.path.join(str(tmp_path), ""), monkeypatch)
    app = project.imported("app", APP)
    return project, project.imported("test_app", TEST_APP), app


def test_the_metaclass_answers_vars_with_the_namespace_as_first_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack as `vars()` sees it (what the parts read before round 31): the test file's
    own `test_it`, no `assertEqual`; `getattr`, as `TestCase.run` and the body ask, finds
    app.py's wrapper and no-op."""
    _, module, app = _project(tmp_path, monkeypatch)
    case = module.Case
    assert vars(case)["test_it"].__code__.co_filename.endswith("test_app.py")
    assert "assertEqual" not in vars(case) and "assertEqual" not in vars(module.Mix)
    assert case.test_it.__code__.co_filename.endswith("app.py")
    assert case.assertEqual is app.alike
    module.Case("test_it").test_it()  # the failure swallowed


def test_the_body_is_what_the_real_namespace_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_body`: the wrapper `TestCase.run` will call (app.py's), not the test file's function
    the metaclass shows; `_lookup` reads a class attribute past the metaclass too."""
    project, module, app = _project(tmp_path, monkeypatch)
    body = machinery._body(module.Case("test_it"))
    assert body is not None and body.__code__.co_filename == project.root + "app.py"
    assert machinery._lookup(module, "Case.assertEqual") is app.alike


def test_assert_methods_the_metaclass_hides_are_set_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_set_on`: the no-op `assertEqual` in the test class's and the mixin's real namespaces
    is found; on a test class of the test file alone (`Plain`: no mixin, whose file app.py
    would be one of the test's, `alike.rebased`'s to name) `_foreign` names it, and the 3.12+
    watch's `_present` reads it the same way."""
    project, module, _ = _project(tmp_path, monkeypatch)
    found = asserts._set_on(module.Case("test_it"), project.ours)[0]
    assert [(w, n) for w, n, _ in found] == [
        ("Case", "assertEqual"),
        ("a base class", "assertEqual"),
    ]
    test = module.Plain("test_it")
    named = ["unittest: assertEqual of Plain set by app.py"]
    assert asserts._foreign(test, project.root, project.ours) == named
    assert watch._present(test, project.root, project.ours) == named


def test_a_mixin_s_file_is_its_real_namespace_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_mixin_file`: the mixin's functions as its real namespace holds them (app.py's wrapper
    and no-op), not the test file's `test_helper` the metaclass shows: app.py, new among the
    test's classes' files (`alike.rebased`)."""
    project, module, _ = _project(tmp_path, monkeypatch)
    assert project.ours(module.Mix, True) == project.root + "app.py"
    files = asserts._class_files(module.Case("test_it"), project.root, project.ours)
    assert files == ["test_app.py", "app.py"]


class _Hiding(type):
    """A metaclass answering `__dict__` with an empty namespace."""

    def __getattribute__(cls, name: str) -> Any:
        return {} if name == "__dict__" else type.__getattribute__(cls, name)


def _new(kind: Any, *args: Any) -> Any:
    return type.__new__(kind, *args)


def test_a_metaclass_s_new_and_hooks_are_read_past_its_own_metaclass() -> None:
    """`unittest_made`'s other namespace reads (`NS`): a metaclass's own `__new__` (`_news`:
    the frames passed to the class statement's) and a type's `__get__` (`_descriptor`: a value
    of it runs code) are found where the metaclass of that class hides them from `vars()`."""
    meta = _Hiding("Meta", (type,), {"__new__": staticmethod(_new)})
    hooked = _Hiding("Hooked", (), {"__get__": lambda self, owner, kind=None: None})
    assert vars(meta) == vars(hooked) == {}
    assert made_part._news(meta) == [id(_new.__code__)]
    assert made_part._descriptor(hooked)
    assert made_part._own_functions(hooked()) is None
