"""fixbot's observer inside unittest (`fixbot/observe/unittest_observer.py`), loaded by the
observer folder's `sitecustomize.py` (`fixbot/observe/startup.py`) into a real Python process
given a real channel (`fixbot.observe.channel.Channel`): what it streams of a unittest run, that
it stays silent and takes no settings line elsewhere (a plain script, pytest), that the
workspace cannot shadow it and a project's own `sitecustomize` still runs, that one that cannot
load leaves the check as it was, that its fingerprints' part leaves `sys.modules`; and fixbot's
reading of its stream (`stream.parse`, the summary's comparison in `fixbot.observe.reporter`)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import types
import unittest
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import alike, bodies, judge, reporter
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_observer as observer
from fixbot.observe import unittest_result as result_part
from fixbot.observe import unittest_watch as watch_part
from fixbot.observe.channel import UNITTEST, Channel
from fixbot.observe.fingerprints import BEGUN, MAX_MACHINERY
from fixbot.observe.stream import parse
from tests.fakes.pythons import PROJECT_PYTHON, other_pythons, version_of

TESTS = """\
import unittest


class T(unittest.TestCase):
    def test_pass(self):
        pass

    def test_fail(self):
        self.assertEqual(1, 2)

    def test_error(self):
        raise KeyError("x")

    @unittest.skip("no")
    def test_skip(self):
        pass

    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)

    @unittest.expectedFailure
    def test_expected(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_unexpected(self):
        pass
"""
OUTCOMES = {
    "test_t.T.test_pass": "passed",
    "test_t.T.test_fail": "failed",
    "test_t.T.test_error": "failed",
    "test_t.T.test_skip": "skipped",
    "test_t.T.test_sub": "failed",
    "test_t.T.test_expected": "skipped",
    "test_t.T.test_unexpected": "failed",
}
SHOW = "import os, sys; sys.stderr.write('variable: %s\\n' % ('FIXBOT_OBSERVER' in os.environ))\n"


def pythons() -> list[str]:
    """The project's Python and the others found (`other_pythons`) that import unittest."""
    found = [PROJECT_PYTHON, *other_pythons()]
    return [p for p in dict.fromkeys(found) if version_of(p, ("unittest",))]


def run(
    where: Path, *words: str, base: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], Observation, int]:
    """Run `words` in `where` with a fresh channel: (the process, what was streamed, the
    settings lines left unread on the channel)."""
    channel = Channel.open()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FIXBOT_", "PYTHON"))}
    env.update(channel.env(base or {}))
    done = subprocess.run(
        list(words), cwd=where, env=env, pass_fds=channel.fds, capture_output=True, text=True
    )
    os.set_blocking(channel.fds[0], False)
    try:
        left = os.read(channel.fds[0], 1 << 20).count(b"\n")
    except BlockingIOError:
        left = 0
    return done, channel.close(), left


def lines_given() -> int:
    """The settings lines a fresh channel holds for the check's processes."""
    channel = Channel.open()
    os.set_blocking(channel.fds[0], False)
    count = os.read(channel.fds[0], 1 << 20).count(b"\n")
    channel.close()
    return count


@pytest.mark.slow
@pytest.mark.parametrize("python", pythons())
def test_each_outcome_is_streamed_as_testcase_run_reports_it(tmp_path: Path, python: str) -> None:
    (tmp_path / "test_t.py").write_text(TESTS)
    done, seen, left = run(tmp_path, python, "-m", "unittest", "-v")
    assert done.returncode == 1, done.stderr
    assert seen.tests == OUTCOMES
    assert (seen.sessions, seen.ended, seen.statuses, seen.runners) == (1, 1, [1], ["unittest"])
    # counted as unittest counts `testsRun` (3.12 and later start no skipped test: 6, else 7)
    assert f"Ran {seen.ran} tests" in done.stderr and seen.ran in (6, 7)
    assert seen.reported == 1 and not seen.forged
    assert left == lines_given() - 1  # its own line, and no other, taken
    # the machinery streamed at load and again at each test's end, unchanged
    (process,) = seen.loaded
    assert "unittest.case.TestCase.run" in seen.loaded[process]
    assert all(len(v) == 1 for k, v in seen.checked[process].items() if k in seen.loaded[process])


@pytest.mark.slow
def test_a_script_calling_unittest_main_is_observed(tmp_path: Path) -> None:
    (tmp_path / "test_t.py").write_text(TESTS + "\n\nunittest.main()\n")
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "test_t.py")
    assert done.returncode == 1
    assert {t.replace("__main__.", "test_t."): o for t, o in seen.tests.items()} == OUTCOMES
    assert (seen.sessions, seen.ended) == (1, 1) and f"Ran {seen.ran} tests" in done.stderr


@pytest.mark.slow
def test_a_plain_script_streams_nothing_and_takes_no_settings_line(tmp_path: Path) -> None:
    for name, text in {"plain.py": SHOW, "named.py": "import unittest.mock\n" + SHOW}.items():
        (tmp_path / name).write_text(text)
        done, seen, left = run(tmp_path, PROJECT_PYTHON, name)
        assert done.returncode == 0 and "variable: True" in done.stderr, done.stderr
        assert seen.sessions == 0 and not seen.forged and left == lines_given()


@pytest.mark.slow
def test_pytest_running_testcase_classes_is_observed_by_its_plugin_alone(tmp_path: Path) -> None:
    (tmp_path / "test_t.py").write_text(TESTS)
    # a script that names unittest and drives pytest: the plugin streams, the observer does not
    (tmp_path / "drive.py").write_text("import sys, pytest  # unittest\nsys.exit(pytest.main())\n")
    for words in (("-m", "pytest"), ("drive.py",)):
        done, seen, _ = run(tmp_path, PROJECT_PYTHON, *words, "-q", "-p", "no:cacheprovider")
        assert done.returncode == 1, done.stdout
        assert seen.sessions == 1 and seen.runners == [] and seen.ran == 0
        assert all(t.startswith("test_t.py::T::") for t in seen.tests), seen.tests


@pytest.mark.slow
def test_the_workspace_cannot_shadow_it_and_a_projects_own_sitecustomize_runs(
    tmp_path: Path,
) -> None:
    """The workspace's folder joins `sys.path` after `site` ran (its `sitecustomize.py` is
    not the one imported); the project's own, later on PYTHONPATH, runs after the observer."""
    (tmp_path / "test_t.py").write_text(TESTS)
    (tmp_path / "sitecustomize.py").write_text(
        "import sys; sys.stderr.write('shadowed by the work tree\\n')\n"
    )
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import sys; sys.stderr.write('project\\n')\n")
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-m", "unittest", base={"PYTHONPATH": str(own)})
    assert "project\n" in done.stderr and "shadowed by" not in done.stderr, done.stderr
    assert seen.sessions == 1 and seen.tests == OUTCOMES


@pytest.mark.slow
def test_an_observer_that_cannot_load_leaves_the_check_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('broken')\n")
    monkeypatch.setattr("fixbot.observe.channel.UNITTEST", broken)
    work = tmp_path / "work"
    work.mkdir()
    (work / "test_t.py").write_text(TESTS)
    done, seen, left = run(work, PROJECT_PYTHON, "-m", "unittest")
    assert done.returncode == 1 and "FAILED (failures=2, errors=1" in done.stderr
    assert "sitecustomize" not in done.stderr and "broken" not in done.stderr
    assert seen.sessions == 0 and left == lines_given()
    assert UNITTEST.name == "unittest_observer.py"


def test_unittests_stream_keeps_a_tests_worst_outcome_and_sums_what_ran() -> None:
    lines = [
        '{"k": "start", "watch": [], "runner": "unittest"}',
        '{"k": "r", "id": "m.T.test_a", "w": "call", "o": "failed"}',
        '{"k": "r", "id": "m.T.test_a", "w": "call", "o": "passed"}',
        '{"k": "end", "status": 1, "runner": "unittest", "ran": 1}',
    ]
    seen = parse("".join(f"n\t{line}\n" for line in lines), "n")
    assert seen.tests == {"m.T.test_a": "failed"} and seen.ran == 1 and seen.reported == 1


def test_a_summary_that_counts_other_tests_than_the_observer_saw_is_a_finding(
    tmp_path: Path,
) -> None:
    seen = Observation(sessions=1, ended=1, runners=["unittest"], ran=2)
    log = tmp_path / "check.log"
    log.write_text("..\nRan 2 tests in 0.001s\n\nOK\n")
    assert reporter.disagreements(None, reporter.summarized(seen, log)) == []
    log.write_text("Ran 1 test in 0.001s\n\nOK\nRan 2 tests in 0.001s\n\nOK\n")
    found = reporter.disagreements(None, reporter.summarized(seen, log))
    assert found and found[0].startswith("observer-report: unittest's summary")
    log.write_text("no summary\n")  # stderr discarded by the check: nothing to compare
    assert reporter.disagreements(None, reporter.summarized(seen, log)) == []
    seen.ended = 0  # cut short: `observer-cut-short` says so, the count is unknown
    log.write_text("Ran 5 tests in 0.001s\n")
    assert reporter.disagreements(None, reporter.summarized(seen, log)) == []


@pytest.mark.slow
def test_this_suites_python_is_among_those_tried() -> None:
    assert PROJECT_PYTHON in pythons() or sys.executable in pythons()


FORGER = """\
import unittest


class T(unittest.TestCase):
    def test_forges(self):
        run = unittest.TestCase.run
        send = [d for d in run.__defaults__ if callable(d) and d.__name__ == "send"][0]
        send({"k": "r", "id": "test_t.T.test_forges", "w": "call", "o": "passed"})
"""


WRITER = """\
import unittest


class T(unittest.TestCase):
    def test_writes(self):
        unittest.TestCase.run.__defaults__ = unittest.TestCase.run.__defaults__
"""


@pytest.mark.slow
def test_the_sender_answers_the_observer_alone(tmp_path: Path) -> None:
    """The sender found in the observer's defaults and called by a test ends the process
    (`sender.FAIL_CLOSED`): the stream is cut short, nothing forged is written. The read of
    the observer's defaults was streamed first by its audit hook (`reach`, round 22: its
    places, found there, were rewritten in place), and a write of them ends the process."""
    (tmp_path / "test_t.py").write_text(FORGER)
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-m", "unittest")
    assert done.returncode == 76, done.stderr
    assert seen.sessions == 1 and seen.ended == 0 and seen.tests == {}
    assert seen.machinery == ["observer: __defaults__ of run read by test_t.py"]
    (tmp_path / "test_t.py").write_text(WRITER)
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-m", "unittest")
    assert done.returncode == 76 and seen.ended == 0 and seen.tests == {}, done.stderr


PART_SEEN = """\
import sys
import unittest


class T(unittest.TestCase):
    def test_looks(self):
        found = [n for n in sys.modules if n.endswith("_unittest_machinery")]
        sys.stderr.write("part in sys.modules: %r\\n" % found)
"""


@pytest.mark.slow
def test_its_fingerprints_part_is_loaded_and_left_out_of_sys_modules(tmp_path: Path) -> None:
    """The part copied beside it (`channel.UNITTEST_PARTS`) streams the machinery's checks at
    each test's and the run's end, and no module of it is left for the code under test to find
    by name."""
    (tmp_path / "test_t.py").write_text(PART_SEEN)
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-m", "unittest")
    assert done.returncode == 0 and "part in sys.modules: []" in done.stderr, done.stderr
    assert seen.tests == {"test_t.T.test_looks": "passed"} and seen.ended == 1
    (process,) = seen.loaded
    assert "unittest.case.TestCase.run" in seen.checked[process]


# --- round 22's holes, each control in-process where it can be --------------------------------


def test_its_places_are_immutable_and_hold_testcases_own_behaviours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 22: the places were a list among `TestCase.run`'s defaults, rewritten in place by
    the code under test; and `assertEqual` replaced was no machinery."""
    places = machinery._places(None)
    assert type(places) is tuple and all(type(p) is tuple for p in places)
    names = [path for _, path, _ in places]
    for name in ("assertEqual", "fail", "failureException", "_getAssertEqualityFunc"):
        assert "TestCase." + name in names
    assert "TestCase._baseAssertEqual" in names and "TestCase.maxDiff" not in names
    assert len(names) == len(set(names)) <= MAX_MACHINERY  # every one kept by fixbot's reading
    before = machinery._prints(places)
    monkeypatch.setattr(unittest.TestCase, "assertEqual", lambda self, a, b, msg=None: None)
    after = machinery._prints(places)
    moved = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
    assert moved == ["TestCase.assertEqual"]


class _Real(unittest.TestCase):
    def test_add(self) -> None:
        self.assertEqual(1 + 1, 2)


class _StandIn(unittest.TestCase):
    """Round 22's stand-in: another body under the real test's id."""

    def runTest(self) -> None:
        pass

    def id(self) -> str:
        return _Real("test_add").id()


def test_each_tests_body_is_digested_as_run_begins_and_a_stand_in_is_a_finding() -> None:
    sent: list[dict[str, object]] = []
    held = ("u1", (), None, os.path.join(os.path.dirname(__file__), ""), asserts._word)
    real, stand_in = _Real("test_add"), _StandIn()
    for test in (real, stand_in):
        machinery._began(test, test.id(), sent.append, held, bodies._code_digest)
    (one, other) = (record for record in sent if record["k"] == "code")
    assert one["id"] == other["id"] == real.id() and one["h"] != other["h"]
    assert one["f"] == "test_unittest_observer.py"  # relative to the work tree's root
    # an instance attribute under the method's name is what `TestCase.run` calls
    vars(real)["test_add"] = stand_in.runTest
    machinery._began(real, real.id(), sent.append, held, bodies._code_digest)
    assert sent[-2]["h"] == other["h"]
    # fixbot keeps every unittest test's digest (its observer watches none) and holds the
    # verifying run's against the start's
    start, last = (
        _stream({"k": "r", "id": real.id(), "w": "call", "o": o}, dict(record, k="code"))
        for o, record in (("failed", one), ("passed", other))
    )
    assert last.digests == {real.id(): [other["h"]]}
    found = alike.swapped(start, last, {real.id()}, ["app.py"])
    assert found and found[0].startswith("observer-tampered: its body's code is not")
    assert alike.swapped(start, start, {real.id()}, ["app.py"]) == []


def _stream(*records: dict[str, object]) -> Observation:
    """A unittest run's stream of `records`, parsed."""
    lines = [{"k": "start", "watch": [], "runner": "unittest"}, *records, {"k": "end", "status": 0}]
    return parse("".join(f"n\t{json.dumps(line)}\n" for line in lines), "n")


def test_machinery_swapped_after_load_and_put_back_before_the_end_is_seen_at_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 28: `TestCase._callTestMethod` swapped as app.py is imported (after load) and put
    back as the first test calls it (before its end): one hash of the fingerprints streamed as
    each test's run begins (`check`, `at` "begin") is held against the same of the load's."""
    sent: list[dict[str, object]] = []
    places = machinery._places(result_part)
    held = ("u1", places, None, os.path.join(os.path.dirname(__file__), ""), asserts._word)
    observer._loaded(sent.append, held, machinery._prints(places))
    test = _Real("test_add")
    monkeypatch.setattr(unittest.TestCase, "_callTestMethod", lambda self, method: None)
    machinery._began(test, test.id(), sent.append, held, bodies._code_digest)
    monkeypatch.undo()  # put back before the end
    sent.append({"k": "check", "p": "u1", "at": "end", "m": machinery._prints(places)})
    machinery._began(test, test.id(), sent.append, held, bodies._code_digest)  # as loaded
    assert [record["k"] for record in sent] == ["load", "code", "check", "check", "code", "check"]
    assert sent[2]["at"] == "begin" and sent[2]["h"] != sent[5]["h"]
    assert judge.moved(_stream(*sent)) == [BEGUN]
    # the end's and an unchanged start's alone: the same as load's
    assert judge.moved(_stream(sent[0], *sent[3:])) == []


def test_an_assert_method_set_on_the_test_by_other_code_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`TestCase`'s own are machinery; one set on the test's class or instance is held to the
    files of the test's classes (and unittest's): the code under test's is named."""
    root = os.path.join(os.path.dirname(__file__), "")
    quiet = eval(compile("lambda *a, **k: None", "/tmp/app.py", "eval"))
    test = _Real("test_add")
    test.addTypeEqualityFunc(list, test.assertListEqual)  # the test's own: no finding
    assert asserts._foreign(test, root) == []
    vars(test)["assertEqual"] = quiet
    test.addTypeEqualityFunc(int, quiet)
    monkeypatch.setattr(_Real, "assertTrue", quiet)
    assert sorted(asserts._foreign(test, root)) == [
        "unittest: _type_equality_funcs of test set by /tmp/app.py",
        "unittest: assertEqual of test set by /tmp/app.py",
        "unittest: assertTrue of _Real set by /tmp/app.py",
    ]


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
    over as the stop `subTest` raises under `failfast`."""
    places = machinery._places(None)
    names = [path for _, path, _ in places]
    before = machinery._prints(places)
    monkeypatch.setattr(unittest.case, "_ShouldStop", AssertionError)
    after = machinery._prints(places)
    moved = [n for n, b, a in zip(names, before, after, strict=True) if b != a]
    assert moved == ["_ShouldStop"]


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
        outcomes[name] = [r["o"] for r in sent if r["id"] == name]
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


# --- round 25's holes: what the test's end alone did not see ------------------------------------


def test_the_function_assert_equal_picks_is_judged_as_it_is_picked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 25: a function of app.py's in the test's equality table that deletes its own
    entry as `assertEqual` calls it is gone by the test's end (`_foreign` finds nothing). The
    observer's `TestCase._getAssertEqualityFunc` (`unittest_machinery._asserter`) judges what
    it returns as it returns it (`unittest_machinery._used`), each name streamed once, while a
    run goes on; unittest's `_baseAssertEqual` and a method its table names, or the test's
    own, are no finding."""
    root = os.path.join(os.path.dirname(__file__), "")
    sent: list[dict[str, object]] = []
    state: list[object] = [True, 0, False, None]
    held = ("u1", (), None, root, asserts._word)
    orig = vars(unittest.TestCase)["_getAssertEqualityFunc"]
    judge = machinery._asserter(orig, sent.append, state, held)
    monkeypatch.setattr(unittest.TestCase, "_getAssertEqualityFunc", judge)
    test = _Real("test_add")
    test.assertEqual(2, 2)  # `_baseAssertEqual`
    test.addTypeEqualityFunc(list, test.assertListEqual)
    test.assertEqual([1], [1])
    assert sent == []
    source = "def alike(first, second, msg=None):\n    del test._type_equality_funcs[int]\n"
    space: dict[str, object] = {"test": test}
    exec(compile(source, "/tmp/app.py", "exec"), space)
    for _ in range(2):
        test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
        test.assertEqual(0, 4)  # passes: the function asserted nothing and took itself out
    assert asserts._foreign(test, root) == []  # the end sees nothing
    named = ["unittest: _type_equality_funcs of test, as used, set by /tmp/app.py"]
    assert sent == [{"k": "machinery", "changed": named}]  # once
    state[0] = False  # no run of the observer's: nothing streamed
    test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
    test.assertEqual(0, 4)
    assert len(sent) == 1
    assert "_getAssertEqualityFunc" in [c.co_name for c in machinery.CALLERS]
    assert ("unittest.case", "TestCase._getAssertEqualityFunc") in machinery.MACHINERY


class _Swapped(_Real):
    pass


def test_a_tests_class_or_bases_written_is_named() -> None:
    """Round 25: app.py set the running test's `__class__` to a subclass of its own whose
    `_getAssertEqualityFunc` set it back (and, left swapped, every class of the test's MRO was
    trusted). The recorder's audit hook (`unittest_compiled._recorder`, `_retyped`) keeps each
    write of a test's `__class__` or a test class's `__bases__`, and `_foreign` names it at the
    test's end, once; writes to other objects are not kept."""
    root = os.path.join(os.path.dirname(__file__), "")
    hook, ours, _ = compiled._recorder(root)
    test = _Real("test_add")
    assert asserts._foreign(test, root, ours) == []
    hook("object.__setattr__", (test, "__class__", _Swapped))
    hook("object.__setattr__", (_Swapped, "__bases__", (_Real,)))
    hook("object.__setattr__", (object(), "__class__", _Swapped))  # no test: not kept
    hook("object.__setattr__", (_Swapped, "__name__", "S"))  # no write of its class
    assert asserts._foreign(test, root, ours) == ["unittest: __class__ of test set"]
    assert asserts._foreign(test, root, ours) == []  # each write named once
    test.__class__ = _Swapped
    assert asserts._foreign(test, root, ours) == ["unittest: __bases__ of _Swapped set"]
    test.__class__ = _Real


RETYPED = """\
import importlib.util, sys, unittest


def part(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.modules["x_bytecode"] = part("x_bytecode", sys.argv[4])  # its parts, as copied beside it
sys.modules["x_unittest_made"] = part("x_unittest_made", sys.argv[3])
compiled, asserts = part("x_unittest_compiled", sys.argv[1]), part("asserts", sys.argv[2])

hook, ours, made = compiled._recorder("/nowhere/")
sys.addaudithook(hook)


class A(unittest.TestCase):
    def test_it(self):
        pass


class B(A):
    pass


test = A("test_it")
test.__class__ = B
test.__class__ = A
print(asserts._foreign(test, "/nowhere/", ours))
"""


@pytest.mark.slow
def test_the_interpreter_audits_a_tests_class_written(tmp_path: Path) -> None:
    """CPython raises `object.__setattr__` as an object's `__class__` is written (3.8 on): the
    class swapped and swapped back, as round 25's app.py did, is named (the project's
    Python)."""
    parts = [compiled.__file__, asserts.__file__, compiled.MAKING.__file__]
    parts += [compiled.MAKING.BYTECODE.__file__]
    done = subprocess.run(
        [PROJECT_PYTHON, "-c", RETYPED, *parts], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.stdout.strip() == "['unittest: __class__ of test set']", done.stderr


# --- round 27's holes: an assert method that takes itself away as it is called ------------------

# run by each Python 3.12 or later found (`sys.monitoring`): the code under test's `add` sets an
# `assertEqual` that asserts nothing on the running test, its class or `TestCase`, which takes
# itself away (or sets the real one back) as the test calls it; then a test that aliases and
# mocks its own assert methods; each line printed: the test's end's names and those streamed
TAKEN_AWAY = '''\
import importlib.util, json, os, sys, unittest
import unittest.mock as mock

def part(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(sys.argv[1], name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

sys.path.insert(0, sys.argv[1])  # the watch imports `unittest_asserts` beside it by name
asserts, result, watched = part("unittest_asserts"), part("unittest_result"), part("unittest_watch")
APP = """
import sys

def add(a, b, where):
    test = sys._getframe(1).f_locals["self"]
    owner = {"test": test, "class": type(test), "case": CASE}[where]
    real = vars(owner).get("assertEqual")

    def alike(*args):
        if real is None:
            delattr(owner, "assertEqual")
        else:
            setattr(owner, "assertEqual", real)

    setattr(owner, "assertEqual", alike)
    return a - b
"""
space = {"CASE": unittest.TestCase}
exec(compile(APP, "/tmp/app.py", "exec"), space)

class Named(unittest.TestCase):
    where = "test"

    def test_add(self):
        total = space["add"](2, 2, self.where)
        self.assertEqual(total, 4)

class Patched(unittest.TestCase):
    def setUp(self):
        self.assertSame = self.assertEqual

    def test_add(self):
        self.assertSame(2 + 2, 4)
        with mock.patch.object(self, "assertTrue") as checked:
            self.assertTrue(False)
        checked.assert_called_once_with(False)

sent, state = [], [True, 0, False, None]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
watch = watched._watcher(sent.append, state, ("u1", (), None, root, asserts._word))
orig = vars(unittest.TestCase)["_callTestMethod"]
on = watch if sys.argv[2] == "on" else ()
for where in ("test", "class", "case", "test"):
    test = Named("test_add")
    test.where = where
    result._caller(orig, [[test, 0, 0, 0]], *on)(test, test.test_add)
    print(json.dumps([asserts._foreign(test, root), sent]))
    sent.clear()
own = Patched("test_add")
own.setUp()
result._caller(orig, [[own, 0, 0, 0]], *on)(own, own.test_add)
print(json.dumps([asserts._foreign(own, root), sent]))
'''


@pytest.mark.slow  # a process under each Python 3.12 or later found (none: skipped)
def test_an_assert_method_that_takes_itself_away_is_seen_as_it_is_called(tmp_path: Path) -> None:
    """Round 27: `add` sets an `assertEqual` that asserts nothing on the running test, its class
    or `TestCase`, which takes itself away as the test calls it: gone by the test's end (no
    `_foreign` name, the fingerprints the same). On Python 3.12 and later the observer watches
    the calls of the test's files' code (`unittest_watch._watcher`, `sys.monitoring`; the body
    called under it, `unittest_result._caller`) and asks `_present` as one calls anything but
    `TestCase`'s own: each name streamed once. A test's own alias of unittest's method and a
    mock it patches in are named, as in the start's run. Before 3.12: no watch."""
    if sys.version_info < (3, 12):  # in this process: no tool id taken
        assert watch_part._watcher(print, [True], ()) == (None, None, None)
    versions = {p: version_of(p, ("unittest",)) or "3.0" for p in pythons()}
    newer = [p for p, v in versions.items() if int(v.split(".")[1]) > 11]
    if not newer:
        pytest.skip("no Python 3.12 or later found (sys.monitoring)")
    script = tmp_path / "taken.py"
    script.write_text(TAKEN_AWAY)
    folder = os.path.dirname(asserts.__file__)
    names = [f"unittest: assertEqual of {w} set by /tmp/app.py" for w in ("test", "Named")]
    names.append("unittest: assertEqual of TestCase set by /tmp/app.py")
    expected = [[[], [{"k": "machinery", "changed": [n]}]] for n in names] + [[[], []]]
    for python in newer:
        lines = [
            json.loads(line)
            for how in ("off", "on")
            for line in subprocess.run(
                [python, str(script), folder, how], capture_output=True, text=True, check=True
            ).stdout.splitlines()
        ]
        assert lines[:4] == [[[], []]] * 4, lines  # unwatched: unseen
        assert lines[5:9] == expected, lines  # watched: each name once (the last: said)
        end, sent = lines[-1]
        named = [n for record in sent for n in record["changed"]]
        assert named[0] == end[0] and named[0].startswith("unittest: assertSame of test set by ")
        assert named[1:] == ["unittest: assertTrue of test set by ?"], named
    assert "called" in [c.co_name for c in machinery.CALLERS]
