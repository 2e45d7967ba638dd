"""The result fixbot's observer inside unittest hands `TestCase.run` (`unittest_observer.py`:
copied beside it as `<module>_unittest_result`, imported by it only in a unittest run and taken
out of `sys.modules` once it is loaded): `_Watched` forwards everything to the runner's result
and streams each outcome `TestCase.run` reports, as reported (`{"k": "r", ...}`: the observer's
docstring), a failure with the files its traceback went through into unittest's failing
machinery, or from the frame that raised the test's `failureException` itself (`failer`:
`unittest_failers._chain`, told that class by `_failure`); a success is streamed "failed" where
the test's outcome hides a failure (`_swallowed`) or where the test's body was entered and did
not return (`_unreturned`: the observer's `TestCase._callTestMethod`, `_caller`, counts each
entry of a body and each return; its `TestCase.subTest`, `_subtester`, each unittest stop that
left a subtest's block).
Its methods are machinery the observer fingerprints (`unittest_machinery.OWN`, looked up in
this module). What it uses is held as positional defaults or slots; it imports the standard
library alone and nothing of fixbot's. `__unittest` marks its frames as unittest's own, as
unittest's modules are: a failure's traceback starts at the test's code, not at `_caller`'s.
"""

from __future__ import annotations

import importlib

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__unittest = True  # unittest leaves this module's frames out of a failure's traceback


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_result`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_result")] + name
    )


# `_chain`: the files a failure's traceback went through into unittest's failing machinery
failers = _sibling("unittest_failers")


def _swallowed(
    test: Any, kind: Any, _get: Any = object.__getattribute__, _type: Any = type
) -> bool:
    """Whether a success `TestCase.run` reports for `test` hides a failure: the test's outcome
    (`test._outcome`, still set as `run` reports) kept one as expected (`expectedFailure`) where
    `run` expected none (an honest expected failure is reported `addExpectedFailure`), or is not
    of unittest's outcome class `kind`, captured at load (round 22: the code under test set
    `_outcome.expecting_failure` during the test, or put a class of its own there)."""
    try:
        outcome = _get(test, "_outcome")
    except AttributeError:
        return False
    if outcome is None:
        return False
    if _type(outcome) is not kind:
        return True
    try:
        return _get(outcome, "expectedFailure") is not None
    except AttributeError:
        return False


def _unreturned(body: list[Any]) -> bool:
    """Whether the test whose body record is `body` (`[test, entries, returns, stops]`, counted
    by `_caller`'s `TestCase._callTestMethod`) entered its body more often than the body returned:
    an exception left it, which `_Outcome.testPartExecutor` then passed over. Round 24: the
    code under test raised `unittest.case._ShouldStop`, which `testPartExecutor` takes for the
    stop `subTest` raises under `failfast` or after an expected failure, and `TestCase.run`
    reported a success; unittest itself reports none where its own stop left the body (the
    subtest's failure, or the expected failure, is reported instead). No entry counted (a class
    with its own `_callTestMethod` that never calls `TestCase`'s, as `IsolatedAsyncioTestCase`):
    no verdict, False. Round 26: the same stop raised inside `with self.subTest()` is passed
    over by the subtest's `testPartExecutor`, the body returns: the observer's `subTest`
    (`_subtester`) counts each one that left a subtest's block (`body[3]`), and unittest's
    own leaves one only after a failure or an expected failure (never before a success)."""
    unreturned: bool = body[1] != body[2] or body[3] != 0
    return unreturned


def _record(test: Any, bodies: list[list[Any]], _len: Any = len, _range: Any = range) -> Any:
    """The record of the innermost run of `test` on `bodies` (`[test, entries, returns,
    stops]`, pushed by the observer's `TestCase.run`), or None (a run outside `runTests`)."""
    for at in _range(_len(bodies) - 1, -1, -1):
        if bodies[at][0] is test:
            return bodies[at]
    return None


def _profiled(test: Any, method: Any, orig: Any, given: tuple[Any, list[Any], Any]) -> Any:
    """`orig(test, method)` (the body's call) with the observer's watch over the calls the code
    of `test`'s files makes (`given[0](test)`: `unittest_watch._watcher`), its `now`
    (`given[1]`) set to `test`, and put back as it ends (a test's run inside another's); the
    watch proves itself still on over the same codes as the body ends (round 30)."""
    watch, now, _ = given
    was = now[:]
    now[:] = [test]
    codes = watch(test)
    try:
        return orig(test, method)
    finally:
        now[:] = was
        watch(test, codes)


def _caller(
    orig: Any, bodies: list[list[Any]], watch: Any = None, now: Any = None, codes: Any = None
) -> Any:
    """The observer's `TestCase._callTestMethod` around `orig` (the one captured at load): it
    counts, in the record of the innermost run of the same test on `bodies` (`[test, entries,
    returns, stops]`, pushed by the observer's `TestCase.run` as it begins and taken off as it
    ends), each entry of the body and each return from it (`_unreturned`), and calls the body
    under the observer's `watch` (`_profiled`, with `now` and `codes`; None: none). A call for
    a test no run of the observer's holds (a run outside `runTests`) counts nothing."""

    def _callTestMethod(  # unittest's own name
        self: Any,
        method: Any,
        _orig: Any = orig,
        _bodies: list[list[Any]] = bodies,
        _record: Any = _record,
        _profile: Any = watch,  # held apart: a default the observer's audit hook guards
        _watch: Any = (watch, now, codes),
        _profiled: Any = _profiled,
    ) -> Any:
        body = _record(self, _bodies)
        if body is None:
            return _orig(self, method)
        body[1] += 1
        done = _orig(self, method) if _profile is None else _profiled(self, method, _orig, _watch)
        body[2] += 1
        return done

    return _callTestMethod


def _subtester(orig: Any, bodies: list[list[Any]], case: Any) -> Any:
    """The observer's `TestCase.subTest` around `orig` (the one captured at load, a
    `@contextmanager` function; `case` is `unittest.case`, its `_ShouldStop` and the message
    sentinel captured now): the subtest is `orig`'s, and each `_ShouldStop` that leaves its
    block is counted in the record of the innermost run of the same test on `bodies`
    (`body[3]`, `_record`) and goes on to `orig`'s, which passes over it (`_unreturned`).
    Its own arguments are positional-only: a subtest's keyword parameters, whatever their
    names, are the subtest's. A `@contextmanager` function, as unittest's."""
    import contextlib

    sentinel = getattr(case, "_subtest_msg_sentinel", None)

    def subTest(  # unittest's own name
        self: Any,
        msg: Any = sentinel,
        _orig: Any = orig,
        _bodies: list[list[Any]] = bodies,
        _stop: Any = case._ShouldStop,
        _sentinel: Any = sentinel,
        _record: Any = _record,
        /,
        **params: Any,
    ) -> Any:
        given = _orig(self, **params) if msg is _sentinel else _orig(self, msg, **params)
        with given:
            try:
                yield
            except _stop:
                body = _record(self, _bodies)
                if body is not None:
                    body[3] += 1
                raise

    return contextlib.contextmanager(subTest)


def _failure(
    test: Any, _getattr: Any = getattr, _isinstance: Any = isinstance, _type: Any = type
) -> Any:
    """The `failureException` of `test` (a `TestCase`, or None) as unittest reads it to tell a
    failure from an error (`test.failureException`): a class, or None where it is none or
    reading it raised (`unittest_failers._raised`' `failure`)."""
    if test is None:
        return None
    try:
        found = _getattr(test, "failureException", None)
    except Exception:  # the test's own attribute: its error is the test's, not the observer's
        return None
    return found if _isinstance(found, _type) else None


class _Watched:
    """The result `TestCase.run` is given: everything is the runner's result's (`_real`), and
    each outcome it is told is streamed first, as reported (`_decide`). Slots alone: no
    instance attribute can stand over a method."""

    __slots__ = ("_body", "_held", "_real", "_said", "_send", "_state", "_test")

    def __init__(
        self,
        real: Any,
        test: str,
        send: Any,
        state: list[Any],
        held: tuple[Any, ...],
        body: list[Any],
    ) -> None:
        self._real, self._test, self._send, self._state, self._said = real, test, send, state, 0
        self._held, self._body = held, body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def _decide(
        self,
        outcome: str,
        err: Any = None,
        test: Any = None,
        _chain: Any = failers._chain,
        _called: Any = failers._called,
        _failure: Any = _failure,
    ) -> None:
        self._said += 1
        if outcome == "failed":
            self._state[2] = True
        self._send({"k": "r", "id": self._test, "w": "call", "o": outcome})
        chain = _chain(err, self._held[3], _failure(test)) if err is not None else None
        if chain:  # a failure a helper called unittest's failing machinery for, or raised
            called = {"c": 1} if _called(err) else {}
            self._send({"k": "failer", "id": self._test, "f": chain, **called})

    def startTest(self, test: Any) -> None:
        self._state[1] += 1  # as `TestResult.startTest` counts `testsRun`: `Ran N tests`
        self._real.startTest(test)

    def addSuccess(
        self, test: Any, _swallowed: Any = _swallowed, _unreturned: Any = _unreturned
    ) -> None:
        hidden = _swallowed(test, self._held[2]) or _unreturned(self._body)
        self._decide("failed" if hidden else "passed")
        self._real.addSuccess(test)

    def addFailure(self, test: Any, err: Any) -> None:
        self._decide("failed", err, test)
        self._real.addFailure(test, err)

    def addError(self, test: Any, err: Any) -> None:
        self._decide("failed")
        self._real.addError(test, err)

    def addSkip(self, test: Any, reason: str) -> None:
        self._decide("skipped")
        self._real.addSkip(test, reason)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        if err is not None:
            self._decide("failed", err, test)
        self._real.addSubTest(test, subtest, err)

    def addExpectedFailure(self, test: Any, err: Any) -> None:
        self._decide("skipped")  # not a pass: a test marked to fail
        self._real.addExpectedFailure(test, err)

    def addUnexpectedSuccess(self, test: Any) -> None:
        self._decide("failed")  # fails the run, as unittest counts it
        self._real.addUnexpectedSuccess(test)
