"""The result fixbot's observer inside unittest hands `TestCase.run` (`unittest_observer.py`:
copied beside it as `<module>_unittest_result`, imported by it only in a unittest run and taken
out of `sys.modules` once it is loaded): `_Watched` forwards everything to the runner's result
and streams each outcome `TestCase.run` reports, as reported (`{"k": "r", ...}`: the observer's
docstring); a success is streamed "failed" where the test's outcome hides a failure
(`_swallowed`). Its methods are machinery the observer fingerprints
(`unittest_machinery.OWN`, looked up in this module). What it uses is held as positional
defaults or slots; it imports the standard library alone and nothing of fixbot's.
"""

from __future__ import annotations

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


class _Watched:
    """The result `TestCase.run` is given: everything is the runner's result's (`_real`), and
    each outcome it is told is streamed first, as reported (`_decide`). Slots alone: no
    instance attribute can stand over a method."""

    __slots__ = ("_held", "_real", "_said", "_send", "_state", "_test")

    def __init__(
        self, real: Any, test: str, send: Any, state: list[Any], held: tuple[Any, ...]
    ) -> None:
        self._real, self._test, self._send, self._state, self._said = real, test, send, state, 0
        self._held = held

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def _decide(self, outcome: str) -> None:
        self._said += 1
        if outcome == "failed":
            self._state[2] = True
        self._send({"k": "r", "id": self._test, "w": "call", "o": outcome})

    def startTest(self, test: Any) -> None:
        self._state[1] += 1  # as `TestResult.startTest` counts `testsRun`: `Ran N tests`
        self._real.startTest(test)

    def addSuccess(self, test: Any, _swallowed: Any = _swallowed) -> None:
        self._decide("failed" if _swallowed(test, self._held[2]) else "passed")
        self._real.addSuccess(test)

    def addFailure(self, test: Any, err: Any) -> None:
        self._decide("failed")
        self._real.addFailure(test, err)

    def addError(self, test: Any, err: Any) -> None:
        self._decide("failed")
        self._real.addError(test, err)

    def addSkip(self, test: Any, reason: str) -> None:
        self._decide("skipped")
        self._real.addSkip(test, reason)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        if err is not None:
            self._decide("failed")
        self._real.addSubTest(test, subtest, err)

    def addExpectedFailure(self, test: Any, err: Any) -> None:
        self._decide("skipped")  # not a pass: a test marked to fail
        self._real.addExpectedFailure(test, err)

    def addUnexpectedSuccess(self, test: Any) -> None:
        self._decide("failed")  # fails the run, as unittest counts it
        self._real.addUnexpectedSuccess(test)
