"""fixbot's observer inside unittest (`fixbot/observe/unittest_observer.py`), loaded by the
observer folder's `sitecustomize.py` (`fixbot/observe/startup.py`) into a real Python process
given a real channel (`fixbot.observe.channel.Channel`): what it streams of a unittest run, that
it stays silent and takes no settings line elsewhere (a plain script, pytest), that the
workspace cannot shadow it and a project's own `sitecustomize` still runs, that one that cannot
load leaves the check as it was, that its fingerprints' part leaves `sys.modules`; and fixbot's
reading of its stream (`stream.parse`, the summary's comparison in `fixbot.observe.reporter`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import alike, bodies, judge, reporter
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_observer as observer
from fixbot.observe import unittest_result as result_part
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
def test_a_program_given_by_minus_c_calling_unittest_main_is_observed(tmp_path: Path) -> None:
    """Round 44: `python -c "import unittest; unittest.main(module=...)"` is a unittest run
    (the gate reads a `-c` program's text as a script's); one naming no unittest is not."""
    (tmp_path / "test_t.py").write_text(TESTS)
    program = "import unittest; unittest.main(module='test_t')"
    done, seen, _ = run(tmp_path, PROJECT_PYTHON, "-c", program)
    assert done.returncode == 1
    assert {t.replace("__main__.", "test_t."): o for t, o in seen.tests.items()} == OUTCOMES
    assert (seen.sessions, seen.ended) == (1, 1) and f"Ran {seen.ran} tests" in done.stderr
    done, seen, left = run(tmp_path, PROJECT_PYTHON, "-c", "print('plain')")
    assert done.returncode == 0 and seen.sessions == 0 and left == lines_given()


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


def test_a_log_cut_in_the_middle_counts_no_tests(tmp_path: Path) -> None:
    """Round 42's [log cut in the middle]: where the check wrote more than its log keeps, the
    summary left in the log may be one the code printed after unittest's own, which fell in
    the dropped middle: `said_ran` is unknown (None), so `originals` sees the run not whole."""
    seen = Observation(sessions=1, ended=1, runners=["unittest"], ran=2)
    log = tmp_path / "check.log"
    log.write_text("Ran 2 tests in 0.001s\n\nOK\n")
    assert reporter.summarized(seen, log, cut=True).said_ran is None
    assert reporter.summarized(seen, log).said_ran == 2


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
