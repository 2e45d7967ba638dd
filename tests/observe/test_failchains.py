"""What a failing unittest test's failure went through: the observer's chain, read from a real
traceback unittest handed its result (`fixbot.observe.unittest_failers._chain`), the stream's
`failer` record and the files it makes the tests' (`fixbot.observe.failchains.supports`)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import unittest
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import failchains
from fixbot.observe.failchains import CALLED
from fixbot.observe.stream import parse
from fixbot.observe.unittest_failers import _chain
from fixbot.tamper.changes import is_test_file
from tests.fakes.pythons import PROJECT_PYTHON
from tests.observe.test_unittest_observer import run

CHECKER = """\
class Checker:
    def same(self, first, second):
        if first != second:
            getattr(self, "fa" + "il")(f"{first!r} != {second!r}")

    def raised(self, first, second):
        if first != second:
            failure = type(self).failureException
            raise failure(f"{first!r} != {second!r}") from None
"""
# an app mixin whose method calls back a hook the test class overrides, which asserts
PROCESSOR = """\
class Processor:
    def process(self, value):
        self.validate(value * 2)

    def raw(self, value):
        assert value > 0, "app code asserts too"

    def explicit(self, value):
        if value < 0:
            raise AssertionError("app code raises the failure's type")

    def broken(self):
        raise ValueError("an error, not the test's failure")
"""
TESTS = """\
import unittest

from checker import Checker
from processor import Processor


class AppTest(Checker, Processor, unittest.TestCase):
    def test_same(self):
        self.same(1, 2)

    def test_hook(self):
        self.process(1)

    def test_raw(self):
        self.raw(0)

    def test_direct(self):
        self.assertEqual(1, 2)

    def test_raised(self):
        self.raised(1, 2)

    def test_sub(self):
        with self.subTest(1):
            self.raised(1, 2)
        with self.subTest(2):
            self.broken()

    def validate(self, value):
        self.assertEqual(value, 3)
"""


class _Kept(unittest.TestResult):
    """A result keeping each failure's chain, read from the `(type, value, traceback)` it is
    handed before unittest's own result cuts the traceback (3.11: `_clean_tracebacks`), as the
    observer's result does (`unittest_result._Watched`), by the test's method name; the last
    run's `(type, value, traceback)` by name in `errs`."""

    errs: dict[str, Any] = {}

    def __init__(self, root: str) -> None:
        super().__init__()
        self.root, self.chains = root, {}

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        name = test.id().rsplit(".", 1)[-1]
        self.chains[name] = _chain(err, self.root, test.failureException)
        _Kept.errs[name] = err
        super().addFailure(test, err)


def _failures(tmp_path: Path, extra: str = "") -> dict[str, list[str]]:
    """Run `TESTS` and `extra` methods of its class (with checker.py and processor.py beside
    it, in `tmp_path`): each test's failure's chain, its files relative to `tmp_path`."""
    tests = TESTS + extra
    for name, text in (("checker", CHECKER), ("processor", PROCESSOR), ("test_app", tests)):
        (tmp_path / f"{name}.py").write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("test_app", tmp_path / "test_app.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("checker", "processor"):
            sys.modules.pop(name, None)
    result = _Kept(os.path.join(os.path.realpath(tmp_path), ""))
    unittest.defaultTestLoader.loadTestsFromModule(module).run(result)
    return result.chains


def test_the_chain_names_the_frames_between_the_test_and_unittests_failure(
    tmp_path: Path,
) -> None:
    chains = _failures(tmp_path)
    assert chains["test_same"] == ["checker.py", "test_app.py"]
    assert chains["test_direct"] == ["test_app.py"]
    assert chains["test_hook"] == ["test_app.py", "processor.py", "test_app.py"]
    assert chains["test_raw"] == []  # an `assert` of the code's: no unittest frame
    assert _chain(None, "/") == []


EXTRA = """\

    def test_explicit(self):
        self.explicit(-1)

    def test_own_raise(self):
        raise self.failureException("the test's own")
"""


def test_a_frame_that_raised_the_tests_failure_itself_is_named(tmp_path: Path) -> None:
    chains = _failures(tmp_path, EXTRA)
    root = os.path.join(os.path.realpath(tmp_path), "")
    # `raise type(self).failureException(...) from None` in the mixin: from that frame up
    assert chains["test_raised"] == ["checker.py", "test_app.py"]
    # the over-reading the rule accepts: an app mixin's explicit `raise AssertionError`
    assert chains["test_explicit"] == ["processor.py", "test_app.py"]
    assert chains["test_own_raise"] == ["test_app.py"]
    assert chains["test_raw"] == []  # its `assert` statement: no chain
    # no `failureException` told (None), or the value no instance of it: no chain
    err = _Kept.errs["test_raised"]
    assert _chain(err, root, None) == _chain(err, root, KeyError) == []


@pytest.mark.slow
def test_the_observer_streams_each_failures_chain_and_its_mixin_is_the_tests(
    tmp_path: Path,
) -> None:
    for name, text in (("checker", CHECKER), ("processor", PROCESSOR), ("test_app", TESTS)):
        (tmp_path / f"{name}.py").write_text(text)
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-m", "unittest")
    assert done.returncode == 1, done.stderr
    assert seen.failers == {
        # into unittest's machinery: the chain's first entry says so (`CALLED`)
        "test_app.AppTest.test_same": [[CALLED, "checker.py", "test_app.py"]],
        "test_app.AppTest.test_direct": [[CALLED, "test_app.py"]],
        "test_app.AppTest.test_hook": [[CALLED, "test_app.py", "processor.py", "test_app.py"]],
        # the mixin's own `raise` of the test's `failureException`: no unittest frame
        "test_app.AppTest.test_raised": [["checker.py", "test_app.py"]],
        # a subtest's failure the same; its error (a `ValueError` raised) none
        "test_app.AppTest.test_sub": [["checker.py", "test_app.py"]],
    }
    assert seen.classes["test_app.AppTest.test_same"] == [
        "test_app.py",
        "checker.py",
        "processor.py",
    ]
    assert failchains.supports(seen, is_test_file) == {"checker.py"}


def _seen(
    chains: dict[str, list[list[str]]], outcome: str = "failed", called: bool = False
) -> Observation:
    made = ["test_app.py", "checker.py", "processor.py"]
    tests = {f"test_app.AppTest.{name}": outcome for name in chains}
    records = [
        {
            "k": "failer",
            "id": f"test_app.AppTest.{name}",
            "f": chain,
            **({"c": 1} if called else {}),
        }
        for name, found in chains.items()
        for chain in found
    ]
    lines = [f"n\t{json.dumps(record)}" for record in records]
    seen = parse("\n".join(lines), "n")
    seen.tests = tests
    seen.classes = {test: made for test in tests}
    return seen


def test_a_mixin_that_called_unittests_failure_is_the_tests() -> None:
    seen = _seen({"test_same": [["checker.py", "test_app.py"]]})
    assert seen.failers == {"test_app.AppTest.test_same": [["checker.py", "test_app.py"]]}
    assert failchains.supports(seen, is_test_file) == {"checker.py"}


def test_code_the_test_called_is_not() -> None:
    # the app mixin called the test's own hook, which asserted: the walk stops at the hook
    seen = _seen({"test_hook": [["test_app.py", "processor.py", "test_app.py"]]})
    assert failchains.supports(seen, is_test_file) == frozenset()
    # a file of no class of the test's, one above the work tree, a test file first
    chains = [["util.py", "/usr/lib/x.py", "../up.py"], ["tests/h.py", "checker.py"]]
    seen = _seen({"test_same": chains})
    made = ["test_app.py", "/usr/lib/x.py", "../up.py", "checker.py"]
    seen.classes = {test: made for test in seen.tests}
    assert failchains.supports(seen, is_test_file) == frozenset()


def test_a_test_that_passed_names_nothing() -> None:
    assert (
        failchains.supports(_seen({"test_same": [["checker.py"]]}, "passed"), is_test_file)
        == frozenset()
    )


def test_any_work_tree_file_that_called_unittests_failure_is_the_tests_mixin_or_not() -> None:
    """Round 44's [failed through an app-side helper]: verify.py made no class of the test's
    but called `case.assertEqual` for it: the tests'. The same chain raised (no "c"): a file
    that made no class of the test's is not (an app's own `raise AssertionError`); a file
    outside the work tree, or past the test's own, never."""
    chain = [["verify.py", "/usr/lib/helper.py", "test_app.py", "app.py"]]
    seen = _seen({"test_same": chain}, called=True)
    assert seen.failers == {"test_app.AppTest.test_same": [[CALLED, *chain[0]]]}
    assert failchains.supports(seen, is_test_file) == {"verify.py"}
    assert failchains.supports(_seen({"test_same": chain}), is_test_file) == frozenset()
