"""fixbot's observer inside unittest, round 24's holes and those that followed them in-process:
the assert methods set on a test, their code held to what its files were compiled to, and
unittest's own functions held to what its modules bound at load (split from
`test_unittest_observer.py`, whose helpers it imports)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import types
import unittest
from pathlib import Path

import pytest

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_result as result_part
from tests.observe.test_unittest_observer import _Real

# --- round 24's holes --------------------------------------------------------------------------


class _Alike:
    """Round 24: a class in the equality table, "called" as an assert method: raises nothing."""

    def __init__(self, first: object, second: object, msg: object = None) -> None:
        pass


class _Mismatch(AssertionError):
    pass


def test_a_class_set_as_an_assert_method_is_named_an_exception_class_is_not() -> None:
    root = os.path.join(os.path.dirname(__file__), "")
    test = _Real("test_add")
    vars(test)["failureException"] = _Mismatch  # raised, not called: the test's own habit
    assert asserts._foreign(test, root) == []
    test.addTypeEqualityFunc(int, _Alike)  # type: ignore[arg-type]  # a class: runs no file
    assert asserts._foreign(test, root) == ["unittest: _type_equality_funcs of test set by ?"]


def test_the_context_manager_class_running_test_part_executor_is_machinery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 24: `contextlib._GeneratorContextManager.__exit__` replaced to swallow the
    assertion `_Outcome.testPartExecutor` (a `@contextmanager`) is told of."""
    places = machinery._places(None)
    names = [path for _, path, _ in places]
    before = machinery._prints(places)
    manager = contextlib._GeneratorContextManager  # type: ignore[attr-defined]
    monkeypatch.setattr(manager, "__exit__", lambda self, *info: True)
    after = machinery._prints(places)
    moved = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
    assert moved == ["_GeneratorContextManager.__exit__"]


def test_a_machinery_functions_closure_cell_rewritten_moves_its_fingerprint() -> None:
    """Round 24: `_Outcome.testPartExecutor`'s cell (the generator function `contextmanager`
    wraps) rewritten, its code and defaults the same."""
    places = machinery._places(None)
    names = [path for _, path, _ in places]
    cell = vars(unittest.case._Outcome)["testPartExecutor"].__closure__[0]
    real = cell.cell_contents
    before = machinery._prints(places)
    try:
        cell.cell_contents = lambda *a, **k: None
        after = machinery._prints(places)
    finally:
        cell.cell_contents = real
    moved = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
    assert moved == ["_Outcome.testPartExecutor"]
    assert machinery._prints(places) == before


def test_the_names_test_part_executor_looks_up_as_it_runs_are_machinery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 24: `unittest.case._ShouldStop` rebound to `AssertionError`: every failure passed
    over as the stop `subTest` raises under `failfast`; the module's globals moved with it
    (round 44: `unittest.case.round` added, every name of its globals is machinery)."""
    places = machinery._places(None)
    names = [path for _, path, _ in places]
    before = machinery._prints(places)
    monkeypatch.setattr(unittest.case, "_ShouldStop", AssertionError)
    after = machinery._prints(places)
    moved = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
    assert moved == ["_ShouldStop", "unittest.case:globals"]
    monkeypatch.setattr(unittest.case, "round", lambda *a: 0, raising=False)
    again = machinery._prints(places)
    moved = [n for n, b, a in zip(names, after, again, strict=True) if b != a]
    assert moved == ["unittest.case:globals"]


def test_the_body_is_found_without_asking_a_metaclass_s_own_mro() -> None:
    """`_body` reads the test class's MRO as `type` holds it: a metaclass of the project's
    whose `__mro__` is a property (code that would run inside the observer) is never asked."""
    asked: list[str] = []

    class Meta(type):
        @property
        def __mro__(cls) -> tuple[type, ...]:  # type: ignore[override]
            asked.append("mro")
            return (cls,)

    class Case(unittest.TestCase, metaclass=Meta):
        def test_it(self) -> None:
            pass

    body = machinery._body(Case("test_it"))
    assert body is vars(Case)["test_it"] and asked == []


class _Stops(unittest.TestCase):
    """Round 24: a body that raises unittest's own stop, as the code under test did; and the
    stop's legitimate uses, which end in no success. Run by its test below, not by pytest."""

    __test__ = False

    def test_stopped(self) -> None:
        raise unittest.case._ShouldStop  # type: ignore[attr-defined]

    def test_returns(self) -> None:
        pass

    def test_subtest_under_failfast(self) -> None:
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)

    @unittest.expectedFailure
    def test_expected_in_a_subtest(self) -> None:
        with self.subTest(i=0):
            self.assertEqual(1, 2)
        self.fail("not reached: the expected failure stops the body")

    def test_skipped(self) -> None:
        self.skipTest("no")

    def test_stopped_in_a_subtest(self) -> None:
        for i in range(2):  # round 26: the subtest's executor passes over it, the body returns
            with self.subTest(i=i):
                if i == 0:
                    raise unittest.case._ShouldStop  # type: ignore[attr-defined]

    def test_nested_subtest_under_failfast(self) -> None:
        for i in range(3):  # unittest's stop leaves the inner subtest's block, then the outer's
            with self.subTest(i=i), self.subTest(j=0):
                self.assertNotEqual(i, 1)

    @unittest.expectedFailure
    def test_expected_in_a_nested_subtest(self) -> None:
        with self.subTest(i=0), self.subTest(j=0):
            self.assertEqual(1, 2)
        self.fail("not reached: the expected failure stops the body")

    def test_subtests_pass(self) -> None:
        for i in range(2):
            with self.subTest(i), self.subTest(msg="m", _orig=i, _stop=i):
                sub: object = self._subtest  # type: ignore[attr-defined]
                said = (getattr(sub, "_message", None), dict(getattr(sub, "params", {})))
                self.assertEqual(said, ("m", {"_orig": i, "_stop": i}))


def test_a_success_whose_body_did_not_return_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 24: `unittest.case._ShouldStop` raised by the code under test is passed over by
    `_Outcome.testPartExecutor` and `TestCase.run` reports a success; the observer's
    `TestCase._callTestMethod` (`unittest_result._caller`) counts the body's entries and
    returns, and such a success is streamed "failed". Round 26: the same stop raised inside a
    subtest's block, which the subtest's executor passes over (the body returns), is counted
    by the observer's `TestCase.subTest` (`unittest_result._subtester`): "failed" too.
    Unittest's own stops (nested subtests too) are not successes; a subtest's keyword
    parameters named as the observer's defaults are the subtest's."""
    bodies: list[list[object]] = []
    caller = result_part._caller(vars(unittest.TestCase)["_callTestMethod"], bodies)
    monkeypatch.setattr(unittest.TestCase, "_callTestMethod", caller)
    sub = result_part._subtester(vars(unittest.TestCase)["subTest"], bodies, unittest.case)
    monkeypatch.setattr(unittest.TestCase, "subTest", sub)
    sent: list[dict[str, object]] = []
    held = ("u1", (), unittest.case._Outcome, "/")  # type: ignore[attr-defined]
    outcomes = {}
    for name in sorted(n for n in vars(_Stops) if n.startswith("test_")):
        test, real = _Stops(name), unittest.TestResult()
        real.failfast = "failfast" in name
        body: list[object] = [test, 0, 0, 0]
        watched = result_part._Watched(real, name, sent.append, [True, 0, False], held, body)
        bodies.append(body)
        unittest.TestCase.run(test, watched)
        bodies.pop()
        outcomes[name] = [r["o"] for r in sent if r["id"] == name and r["k"] == "r"]
    assert outcomes == {
        "test_stopped": ["failed"],  # unittest reported a success
        "test_returns": ["passed"],
        "test_subtest_under_failfast": ["failed"],
        "test_expected_in_a_subtest": ["skipped"],
        "test_skipped": ["skipped"],
        "test_stopped_in_a_subtest": ["failed"],  # unittest reported a success
        "test_nested_subtest_under_failfast": ["failed"],  # the inner subtest's failure
        "test_expected_in_a_nested_subtest": ["skipped"],
        "test_subtests_pass": ["passed"],
    }
    # a run no record is held for (outside `runTests`) counts nothing
    assert unittest.TestCase.run(_Stops("test_returns"), unittest.TestResult()).wasSuccessful()
    # one that would count nothing, set on the test's class by other code, is named
    root = os.path.join(os.path.dirname(__file__), "")
    uncounted = eval(compile("lambda self, method: method()", "/tmp/app.py", "eval"))
    monkeypatch.setattr(_Stops, "_callTestMethod", uncounted, raising=False)
    named = ["unittest: _callTestMethod of _Stops set by /tmp/app.py"]
    assert asserts._foreign(_Stops("test_returns"), root) == named
    # and one `subTest` that would count nothing (round 26)
    monkeypatch.delattr(_Stops, "_callTestMethod")
    monkeypatch.setattr(_Stops, "subTest", uncounted, raising=False)
    named = ["unittest: subTest of _Stops set by /tmp/app.py"]
    assert asserts._foreign(_Stops("test_returns"), root) == named


FORGED_MODULE = """import unittest


def ints_alike(first, second, msg=None):
    if first != second:
        raise AssertionError(msg)


class Case(unittest.TestCase):
    def test_it(self):
        pass
"""


def test_an_assert_function_forged_under_the_test_files_name_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Round 24: a function the code under test compiled under the test file's name, put in
    the test's `addTypeEqualityFunc` table, names one of its classes' files; it is held to the
    code that file was compiled to as it was imported (`unittest_compiled._recorder`: the
    first module code `exec` ran under that name, as its audit hook saw it)."""
    root = os.path.join(str(tmp_path), "")
    file = root + "test_forged.py"
    hook, ours, made = compiled._recorder(root)
    module = types.ModuleType("test_forged")
    module.__file__ = file
    monkeypatch.setitem(sys.modules, "test_forged", module)
    monkeypatch.setattr(unittest.TestCase, "__init_subclass__", made)  # as the observer does
    code = compile(FORGED_MODULE, file, "exec")
    hook("exec", (code,))  # as importing it raises
    exec(code, vars(module))
    test = module.Case("test_it")
    test.addTypeEqualityFunc(int, module.ints_alike)  # the file's own: no finding
    assert asserts._foreign(test, root, ours) == []
    space: dict[str, object] = {}
    forged = compile("def alike(first, second, msg=None): pass", file, "exec")
    hook("exec", (forged,))  # the code under test's, later: not the file's
    exec(forged, space)
    test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
    named = ["unittest: _type_equality_funcs of test set by test_forged.py, not compiled from it"]
    assert asserts._foreign(test, root, ours) == named
    assert asserts._foreign(test, root) == []  # taken at its code's word, it passed
    # a file no module code was recorded for (a script run as `__main__`) is taken at its word
    assert compiled._recorder(root)[1](space["alike"], file) is True


def test_an_assert_function_compiled_under_the_test_files_name_before_it_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Round 26: a package unittest's discovery imports before test_app.py (`helpers/`, sorted
    first) ran module code compiled under the test file's name, so the first module code under
    that name was the code under test's: its function passed as the file's. Two module codes
    under one name make neither the file's, the file's own functions named too (the safe
    side)."""
    root = os.path.join(str(tmp_path), "")
    file = root + "test_forged.py"
    hook, ours, made = compiled._recorder(root)
    space: dict[str, object] = {}
    forged = compile("def alike(first, second, msg=None): pass", file, "exec")
    hook("exec", (forged,))  # the code under test's, first
    exec(forged, space)
    module = types.ModuleType("test_forged")
    module.__file__ = file
    monkeypatch.setitem(sys.modules, "test_forged", module)
    monkeypatch.setattr(unittest.TestCase, "__init_subclass__", made)
    code = compile(FORGED_MODULE, file, "exec")
    hook("exec", (code,))  # as importing it raises, after
    exec(code, vars(module))
    test = module.Case("test_it")
    test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
    named = ["unittest: _type_equality_funcs of test set by test_forged.py, not compiled from it"]
    assert asserts._foreign(test, root, ours) == named
    test.addTypeEqualityFunc(int, module.ints_alike)
    assert asserts._foreign(test, root, ours) == named
    hook, ours, _ = compiled._recorder(root)
    hook("exec", (code,))
    hook("exec", (code,))  # the same code run again is no second code
    assert ours(module.ints_alike, file) is True


def test_a_function_compiled_under_unittests_own_file_is_not_unittests() -> None:
    """Round 26: app.py compiled `def assertListEqual(first, second, msg=None): pass` under
    `<unittest's folder>/case.py` and put it in the test's equality table: its code's name and
    file were unittest's own, so `_kept` passed it over. Unittest's own is the function its
    module binds under that qualified name (`_bound_by_unittest`); `IsolatedAsyncioTestCase`'s
    own `_callTestMethod` is still its."""
    root = os.path.join(os.path.dirname(__file__), "")
    case = os.path.join(os.path.dirname(unittest.__file__), "case.py")
    space: dict[str, object] = {}
    source = "def assertListEqual(first, second, msg=None): pass"
    exec(compile(source, case, "exec"), space)
    test = _Real("test_add")
    test.addTypeEqualityFunc(list, test.assertListEqual)
    assert asserts._foreign(test, root) == []
    test.addTypeEqualityFunc(int, space["assertListEqual"])  # type: ignore[arg-type]
    assert asserts._foreign(test, root) == [f"unittest: _type_equality_funcs of test set by {case}"]
    asynchronous = unittest.IsolatedAsyncioTestCase._callTestMethod
    file = asynchronous.__code__.co_filename
    assert asserts._kept(asynchronous, "_callTestMethod", file)
    assert not asserts._bound_by_unittest(print, case)


def test_a_function_bound_in_unittests_module_after_the_load_is_not_unittests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 27: a no-op `assertListEqual` compiled under `<unittest's folder>/util.py` and
    bound in `unittest.util` (whose namespace nothing fingerprints), or under `case.py` and
    bound as `TestCase.assertListEqual` only while `assertEqual` picks it, was the function
    unittest's module binds (`_bound_by_unittest`), so `_kept` passed it over in the test's
    equality table. It must be one that module bound at the observer's load (`BOUND`)."""
    root = os.path.join(os.path.dirname(__file__), "")
    folder = os.path.dirname(unittest.__file__)
    for module, qualname in (("util", "assertListEqual"), ("case", "TestCase.assertListEqual")):
        file = os.path.join(folder, module + ".py")
        space: dict[str, object] = {}
        exec(compile("def assertListEqual(first, second, msg=None): pass", file, "exec"), space)
        fake: types.FunctionType = space["assertListEqual"]  # type: ignore[assignment]
        fake.__qualname__ = qualname
        owner = sys.modules["unittest." + module]
        if module == "case":
            owner = owner.TestCase  # type: ignore[attr-defined]
        monkeypatch.setattr(owner, "assertListEqual", fake, raising=False)
        assert asserts._bound_by_unittest(fake, file) is False
        test = _Real("test_add")
        test.addTypeEqualityFunc(int, fake)  # type: ignore[arg-type]
        assert asserts._foreign(test, root) == [
            f"unittest: _type_equality_funcs of test set by {file}"
        ]
        monkeypatch.undo()
    real = unittest.TestCase.assertListEqual
    assert asserts._bound_by_unittest(real, real.__code__.co_filename)


def test_a_unittest_module_imported_after_the_load_is_held_to_its_module_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 27: a module of unittest's imported after the observer's load
    (`unittest.async_case`, as `IsolatedAsyncioTestCase` first asked) is not in `BOUND`, and a
    no-op `assertListEqual` compiled under its file and bound there passed as unittest's own.
    The recorder keeps that module's code as imported, as it keeps the work tree's files'
    (`_recorder`), and a function unittest's table may hold must be nested in it (`ours`)."""
    root = os.path.join(os.path.dirname(__file__), "")
    file = os.path.join(os.path.dirname(unittest.__file__), "later_part.py")
    hook, ours, _ = compiled._recorder(root)
    module = types.ModuleType("unittest.later_part")
    code = compile("def assertListEqual(first, second, msg=None): pass", file, "exec")
    hook("exec", (code,))  # as importing it raises
    exec(code, vars(module))
    monkeypatch.setitem(sys.modules, "unittest.later_part", module)
    test = _Real("test_add")
    test.addTypeEqualityFunc(int, module.assertListEqual)
    assert asserts._foreign(test, root, ours) == []  # the module's own: kept
    space: dict[str, object] = {}
    exec(compile("def assertListEqual(first, second, msg=None): pass", file, "exec"), space)
    monkeypatch.setattr(module, "assertListEqual", space["assertListEqual"])
    test.addTypeEqualityFunc(int, space["assertListEqual"])  # type: ignore[arg-type]
    assert asserts._foreign(test, root, ours) == [
        f"unittest: _type_equality_funcs of test set by {file}"
    ]


def test_a_tests_dict_of_a_dict_subclass_is_read_as_a_dict() -> None:
    """Round 27: app.py set the running test's `__dict__` (no audit event) to an instance of
    a `dict` subclass holding a `_getAssertEqualityFunc` that hands back a no-op: `_on_instance`
    read anything but a plain dict as empty. A subclass's methods are not asked: its `items`
    hides nothing."""

    class Space(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            return iter(())

    root = os.path.join(os.path.dirname(__file__), "")
    test = _Real("test_add")
    space = Space(vars(test), _getAssertEqualityFunc=json.dumps)  # another file's function
    test.__dict__ = space
    file = json.dumps.__code__.co_filename
    assert asserts._foreign(test, root) == [
        f"unittest: _getAssertEqualityFunc of test set by {file}"
    ]
    space["test_add"] = lambda: None
    assert machinery._body(test) is space["test_add"]


def test_an_assert_method_set_under_a_name_of_a_str_subclass_is_named() -> None:
    """Round 28: app.py set `_getAssertEqualityFunc` on the running test under a key of a
    `str` subclass (equal to the name and of its hash: attribute lookup finds it), and on a
    test class through its namespace: `_set_on` read only keys of type `str`. A subclass's
    methods are not asked (its `startswith` says nothing; the name is its plain string)."""

    class Name(str):
        def startswith(self, *args):  # type: ignore[no-untyped-def,override]
            return False

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    root = os.path.join(os.path.dirname(__file__), "")
    test = _Real("test_add")
    vars(test)[Name("_getAssertEqualityFunc")] = json.dumps  # another file's function
    assert test._getAssertEqualityFunc is json.dumps
    file = json.dumps.__code__.co_filename
    assert asserts._foreign(test, root) == [
        f"unittest: _getAssertEqualityFunc of test set by {file}"
    ]
    [(name, _)] = asserts._assert_items({Name("assertTrue"): 1, "setUp": 2})
    assert type(name) is str and name == "assertTrue"
    # unittest's own, under another name: the plain name is compared, not the subclass's `__eq__`
    test = _Real("test_add")
    vars(test)[Name("assertEqual")] = unittest.TestCase.assertIsNotNone
    [found] = asserts._foreign(test, root)
    assert found.startswith("unittest: assertEqual of test set by ") and "case.py" in found


def test_unittests_own_assert_method_is_kept_only_where_unittest_would_have_it() -> None:
    """Round 25: `TestCase.assertNotEqual` in the equality table for `int` (as a method, or
    by its name, which `_getAssertEqualityFunc` looks up) passes every failing `assertEqual`,
    and was passed over as unittest's own. A method unittest's table names (`assertListEqual`)
    there, or one of unittest's set under its own name, is no finding."""
    root = os.path.join(os.path.dirname(__file__), "")
    test = _Real("test_add")
    test.addTypeEqualityFunc(list, test.assertListEqual)
    test.addTypeEqualityFunc(tuple, "assertTupleEqual")  # type: ignore[arg-type]
    vars(test)["assertEqual"] = test.assertEqual
    assert asserts._foreign(test, root) == []
    for turned in (test.assertNotEqual, "assertNotEqual", type("S", (str,), {})("assertListEqual")):
        test.addTypeEqualityFunc(int, turned)  # type: ignore[arg-type]
        found = asserts._foreign(test, root)
        assert len(found) == 1 and found[0].startswith("unittest: _type_equality_funcs of test")
    del test._type_equality_funcs[int]
    vars(test)["assertEqual"] = test.assertNotEqual
    [found] = asserts._foreign(test, root)
    assert found.startswith("unittest: assertEqual of test set by ") and "case.py" in found
