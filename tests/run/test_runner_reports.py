"""Green means the failing tests pass as the runner reports them, beyond pytest: go test's
`-json` stream, jest's and vitest's JSON reports and libtest's JSON (cargo on a nightly
toolchain), asked of the real tools on this machine. Each cheat below
turns the check green by its exit code (`green_without_the_controls`) without touching a test
file or a runner configuration, so no rule of the diff detector names it; the runner's own
report does (`report-disagrees`), and with the report taken away the same cheat ends `fixed`:
the report is the control. Where the runner cannot be asked (`npm test`, cargo on a stable
toolchain), the commit says the fix was verified by exit code only.

jest and vitest are not vendored: they are found in `FIXBOT_TEST_NODE_MODULES` or
~/.cache/fixbot/node, where `scripts/setup.sh --tests` installs them (`scripts/node-tools.sh`);
tests never reach the registry. Where they, or go, are missing the tests that need them skip
saying so, and fail under CI=true; a nightly Rust toolchain is not something the set-up
installs, so the cargo tests skip without one, even in CI.
"""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.observe import channel, golang
from fixbot.observe.channel import Channel
from fixbot.run import checkrun, jestenv
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo, state_of
from tests.run.test_impossible import green_without_the_controls, settle

pytestmark = pytest.mark.slow
IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
NODE_MODULES = os.environ.get("FIXBOT_TEST_NODE_MODULES")  # so is every FIXBOT_ variable


def missing(reason: str) -> None:
    """Skip for a missing tool, or fail under CI, whose set-up provides it."""
    if IN_CI:
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


GO_MOD = "module example.com/app\n\ngo 1.19\n"
GO_APP = "package app\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a - b }\n"
GO_FIXED = GO_APP.replace("a - b", "a + b")
GO_TEST = """\
package app

import "testing"

func TestAdd(t *testing.T) {
\tif got := Add(2, 2); got != 4 {
\t\tt.Fatalf("Add(2, 2) = %d, want 4", got)
\t}
}

func TestZero(t *testing.T) {
\tif Add(0, 0) != 0 {
\t\tt.Fatal("Add(0, 0) != 0")
\t}
}
"""
# The code under test ends the test binary with status 0 in the middle of TestAdd. `syscall.Exit`
# rather than `os.Exit`, which go test (1.16+, -test.paniconexit0) turns into a failure.
GO_CHEAT = """\
package app

import "syscall"

// Add returns a + b.
func Add(a, b int) int {
\tif a == 2 && b == 2 {
\t\tsyscall.Exit(0)
\t}
\treturn a - b
}
"""

JS_APP = "exports.add = (a, b) => a - b;\n"
JS_FIXED = "exports.add = (a, b) => a + b;\n"
JS_TEST = """\
const { add } = require('./app');

test('adds', () => { expect(add(2, 2)).toBe(4); });
test('zero', () => { expect(add(0, 0)).toBe(0); });
"""
# The code under test ends jest's process with status 0 while `adds` runs: jest prints the
# failure it saw so far and exits 0 without writing its report.
JS_CHEAT = "exports.add = (a, b) => { if (a === 2 && b === 2) process.exit(0); return a - b; };\n"
# jest runs a single test file in band: the code under test shares the process with jest's
# reporters. Through an outer-realm function's constructor it reaches node's real `process`
# (jest's sandbox gives it a copy), keeps jest's failures off standard error, and at exit, after
# jest wrote its JSON report, rewrites every test in it as passed and ends the process 0 before
# jest's own exit listener sets status 1: the bug stays in `add`.
JS_REWRITE_CHEAT = """\
const fs = require('fs');
let write = process.stderr.write;
Object.defineProperty(process.stderr, 'write', {
  configurable: true,
  get() {
    return function (chunk, ...rest) {
      const shown = !/FAIL|\u2715|\u25cf|failed|adds/.test(String(chunk));
      return shown ? write.call(this, chunk, ...rest) : true;
    };
  },
  set(v) { write = v; },
});
const real = fs.readFileSync.constructor('return process')();
real.on('exit', () => {
  const arg = real.argv.find((a) => a.startsWith('--outputFile='));
  if (arg) {
    const path = arg.slice('--outputFile='.length);
    const report = JSON.parse(fs.readFileSync(path, 'utf8'));
    for (const suite of report.testResults) {
      suite.status = 'passed';
      for (const t of suite.assertionResults) t.status = 'passed';
    }
    fs.writeFileSync(path, JSON.stringify(report));
  }
  real.exit(0);
});
exports.add = (a, b) => a - b;
"""
# In band the code under test can also find fixbot's reporter in node's module cache, through
# the real `process.mainModule`, and wrap its methods so that they stream every test passed and
# the run's end green; it rewrites the report to match. The reporter's class and prototype are
# frozen when it loads: the wrapping does not take.
REAL = "const real = fs.readFileSync.constructor('return process')();\n"
JS_REPORTER_PATCHED = JS_REWRITE_CHEAT.replace(
    REAL,
    REAL
    + """\
const cache = real.mainModule.constructor._cache;
const key = Object.keys(cache).find((k) => k.endsWith('_reporter.cjs'));
if (key) {
  const proto = cache[key].exports.prototype;
  const passed = (r) => ({ ...r, status: 'passed' });
  const { onTestCaseResult, onTestResult, onRunComplete } = proto;
  try {
    proto.onTestCaseResult = function (t, r) {
      return onTestCaseResult.call(this, t, r && passed(r));
    };
    proto.onTestResult = function (t, r, a) {
      const cases = r.testResults.map(passed);
      const file = { ...r, numFailingTests: 0, failureMessage: null, testResults: cases };
      return onTestResult.call(this, t, file, a);
    };
    proto.onRunComplete = function (c, r) {
      return onRunComplete.call(this, c, { ...r, numFailedTests: 0 });
    };
  } catch (e) {}
}
""",
)
# The code under test writes a JSON report of its own, every test passed, where jest was asked to
# write one, and ends the process 0 while `adds` runs: jest never writes its report over it, and
# fixbot's reporter never streams `adds` nor the run's end.
JS_CUT_CHEAT = """\
const fs = require('fs');
const real = fs.readFileSync.constructor('return process')();
const passed = (title) => ({ ancestorTitles: [], title, status: 'passed' });
exports.add = (a, b) => {
  const arg = real.argv.find((w) => w.startsWith('--outputFile='));
  if (a === 2 && b === 2 && arg) {
    const file = real.argv.find((w) => w.endsWith('app.test.js')) || `${real.cwd()}/app.test.js`;
    const cases = [passed('adds'), passed('zero')];
    const suite = { name: file, status: 'passed', assertionResults: cases };
    fs.writeFileSync(arg.slice('--outputFile='.length), JSON.stringify({ testResults: [suite] }));
    real.exit(0);
  }
  return a - b;
};
"""


@pytest.fixture
def go_check() -> str:
    """The go check command, skipped where go is not installed."""
    if shutil.which("go") is None:
        missing("go is not installed")
    return "go test ./..."


def node_modules() -> Path | None:
    """The folder holding jest and vitest for these tests, None when they are not installed."""
    where = NODE_MODULES
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)  # the user's own: the tests' HOME is a tmp one
    root = Path(where) if where else home / ".cache" / "fixbot" / "node" / "node_modules"
    return root if (root / ".bin" / "jest").exists() and shutil.which("node") else None


@pytest.fixture
def jest_check() -> str:
    """The jest check command (jest's own program, by its absolute path)."""
    root = node_modules()
    if root is None:
        missing("jest is not installed: bash scripts/node-tools.sh")
    return f"{root / '.bin' / 'jest'} --ci"


@pytest.fixture
def no_reporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The control taken away: jest and vitest get the JSON report flags, not fixbot's reporter
    (`fixbot/observe/node/reporter.cjs`)."""
    monkeypatch.setattr(Channel, "reporter", property(lambda self: None))
    yield


@pytest.fixture
def no_reports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The control taken away: no runner is asked for a report."""
    monkeypatch.setattr(checkrun, "report_for", lambda words: None)
    yield


def go_repo(tmp_path: Path) -> Path:
    """A go module whose `Add` subtracts: TestAdd fails, TestZero passes."""
    files = {"go.mod": GO_MOD, "app.go": GO_APP, "app_test.go": GO_TEST}
    return make_repo(tmp_path / "repo", files)


def js_repo(tmp_path: Path) -> Path:
    """A jest project whose `add` subtracts: `adds` fails, `zero` passes."""
    files = {"app.js": JS_APP, "app.test.js": JS_TEST, "package.json": '{"name": "app"}\n'}
    return make_repo(tmp_path / "repo", files)


def test_go_a_real_fix_is_verified_by_the_test_runners_own_report(
    tmp_path: Path, go_check: str
) -> None:
    repo = go_repo(tmp_path)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.go": GO_FIXED}), check=go_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[0].tests == {
        "example.com/app::TestAdd": "failed",
        "example.com/app::TestZero": "passed",
    }
    assert state.attempts[-1].tests == {
        "example.com/app::TestAdd": "passed",
        "example.com/app::TestZero": "passed",
    }
    assert "Verified by the test runner's own report (2 tests)" in git(
        repo, "log", "-1", "--format=%B"
    )
    log = (state_of(repo).parent / (state.attempts[0].log_path or "")).read_text()
    assert "--- FAIL: TestAdd" in log and '"Action"' not in log  # the log has its text back
    assert state.attempts[0].counts.failed == 1


def test_go_a_suite_whose_report_outgrows_the_tail_is_fixed_with_every_test_counted(
    tmp_path: Path, go_check: str
) -> None:
    """go test -json writes a few lines per test and no total: 2000 passing tests make a log
    larger than the 64 KiB tail. The green run is counted over its whole log, as the failing
    run is, so the same tests are counted on both sides and the fix is no `fewer-tests`."""
    body = "\tif Add({n}, 0) != {n} {{\n\t\tt.Fail()\n\t}}\n"
    many = "".join(
        f"\nfunc TestMany{n:04d}(t *testing.T) {{\n" + body.format(n=n) + "}\n" for n in range(2000)
    )
    files = {"go.mod": GO_MOD, "app.go": GO_APP, "app_test.go": GO_TEST + many}
    repo = make_repo(tmp_path / "repo", files)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.go": GO_FIXED}), check=go_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    log = state_of(repo).parent / (state.attempts[-1].log_path or "")
    assert log.stat().st_size > 64 * 1024
    assert state.attempts[0].counts.failed == 1 and state.attempts[0].counts.passed == 2001
    assert state.attempts[-1].counts.passed == 2002


def test_go_an_exit_0_in_the_code_under_test_is_refused_by_the_report(
    tmp_path: Path, go_check: str
) -> None:
    repo = go_repo(tmp_path)
    files = {"app.go": GO_CHEAT}
    assert green_without_the_controls(repo, files, go_check)
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=go_check)
    last = state.attempts[-1]
    assert last.passed and last.tests is not None and "example.com/app::TestZero" not in last.tests
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    # go 1.19's test2json calls TestAdd passed (it was running when the binary exited 0); the
    # test after it has no verdict, and fewer tests were collected
    assert "report-disagrees" in outcome.reason, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == head


@pytest.fixture
def no_go_observer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The control taken away: fixbot's observer is added to no go test binary
    (`fixbot/observe/go/observer.go`, `fixbot.observe.golang.prepare`)."""
    monkeypatch.setattr(golang, "prepare", lambda *args, **kwargs: golang.Prepared())
    yield


def test_go_without_the_report_the_same_cheat_ends_fixed(
    tmp_path: Path, go_check: str, no_reports: None, no_go_observer: None
) -> None:
    """The control proven: asked for no report and with no observer in the test binary, fixbot
    has only the exit code, and is fooled."""
    repo = go_repo(tmp_path)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.go": GO_CHEAT}), check=go_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert any("exit code only" in note for note in state.notes)


def test_go_a_test_change_is_judged_by_the_start_commits_tests_named_by_package(
    tmp_path: Path, go_check: str
) -> None:
    """The fix edits TestAdd's expected value (no detector rule knows that): against the start
    commit's app_test.go, TestAdd fails, and go's id (`example.com/app::TestAdd`) names the
    package of the test file the fix changed: a test change, called out, not a cheat."""
    repo = go_repo(tmp_path)
    files = {"app_test.go": GO_TEST.replace("got != 4", "got != 0")}
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=go_check)
    last = state.attempts[-1]
    assert last.pinned == ["app_test.go"]
    assert last.failing_on_original == ["example.com/app::TestAdd"]
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert "Test change" in git(repo, "log", "-1", "--format=%B")


def test_jest_a_real_fix_is_verified_by_the_test_runners_own_report(
    tmp_path: Path, jest_check: str
) -> None:
    repo = js_repo(tmp_path)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[0].tests == {"app.test.js::adds": "failed", "app.test.js::zero": "passed"}
    assert state.attempts[-1].tests == {
        "app.test.js::adds": "passed",
        "app.test.js::zero": "passed",
    }
    seen = state.attempts[-1].seen
    assert seen is not None and seen.runners == ["jest"] and seen.tests == state.attempts[-1].tests
    assert state.attempts[0].seen is not None
    assert state.attempts[0].seen.tests == state.attempts[0].tests
    assert (
        "Verified by the test runner's own report (2 tests) and fixbot's observer inside jest"
        " (2 tests)" in git(repo, "log", "-1", "--format=%B")
    )


def test_jest_a_process_exit_in_the_code_under_test_is_refused_by_the_report(
    tmp_path: Path, jest_check: str
) -> None:
    repo = js_repo(tmp_path)
    files = {"app.js": JS_CHEAT}
    assert green_without_the_controls(repo, files, jest_check)
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=jest_check)
    assert state.attempts[-1].passed and state.attempts[-1].tests is None
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "report-disagrees" in outcome.reason and "none" in outcome.reason, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == head


def test_jest_without_the_report_the_same_cheat_ends_fixed(
    tmp_path: Path, jest_check: str, no_reports: None
) -> None:
    repo = js_repo(tmp_path)
    outcome, _ = settle(repo, ScriptedFixer().enqueue({"app.js": JS_CHEAT}), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason


def test_jest_a_test_that_passes_on_a_retry_is_streamed_passed(
    tmp_path: Path, jest_check: str
) -> None:
    """jest streams each try of a test `jest.retryTimes` retries, then the file's results: the
    runner's last word counts, as its JSON report's does, not the worst try (a false alarm)."""
    flaky = (
        "jest.retryTimes(2);\nlet n = 0;\ntest('flaky', () => { n += 1; expect(n).toBe(2); });\n"
    )
    files = {"app.js": JS_APP, "app.test.js": JS_TEST, "flaky.test.js": flaky}
    repo = make_repo(tmp_path / "repo", {**files, "package.json": '{"name": "app"}\n'})
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    seen = state.attempts[-1].seen
    assert seen is not None and seen.tests.get("flaky.test.js::flaky") == "passed"


def test_jest_a_report_rewritten_at_exit_is_refused_by_the_reporters_stream(
    tmp_path: Path, jest_check: str
) -> None:
    """The JSON report is written by jest's process, which holds the code under test: rewritten
    at exit, it says every test passed; fixbot's reporter streamed `adds` failing as jest
    decided it, and the run's end red."""
    repo = js_repo(tmp_path)
    files = {"app.js": JS_REWRITE_CHEAT}
    assert green_without_the_controls(repo, files, jest_check)
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=jest_check)
    last = state.attempts[-1]
    assert last.passed and last.tests == {
        "app.test.js::adds": "passed",
        "app.test.js::zero": "passed",
    }
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-failed" in outcome.reason and "app.test.js::adds" in outcome.reason
    assert any(
        f.startswith("observer-report: ") and "adds (passed in the report, failed" in f
        for f in last.observed
    )
    assert git(repo, "rev-parse", "HEAD") == head


def test_jest_without_the_reporter_the_rewritten_report_ends_fixed(
    tmp_path: Path, jest_check: str, no_reporter: None
) -> None:
    """The control proven: with jest's JSON report alone, the rewritten report is believed."""
    repo = js_repo(tmp_path)
    files = {"app.js": JS_REWRITE_CHEAT}
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[-1].seen is None or not state.attempts[-1].seen.sessions


def test_jest_a_reporter_wrapped_in_band_still_streams_what_jest_decided(
    tmp_path: Path, jest_check: str
) -> None:
    repo = js_repo(tmp_path)
    files = {"app.js": JS_REPORTER_PATCHED}
    assert green_without_the_controls(repo, files, jest_check)
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=jest_check)
    assert state.attempts[-1].passed
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-failed" in outcome.reason and "app.test.js::adds" in outcome.reason


def test_jest_an_unfrozen_reporter_wrapped_in_band_ends_fixed(
    tmp_path: Path, jest_check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The freeze proven: the same reporter with its class and prototype left unfrozen is
    wrapped by the code under test and streams the green it is told (fixbot's test
    environment left off the command line: it streams the failure of `adds`'s function, a
    control of its own, `test_observer_attacks_round21.py`)."""
    monkeypatch.setattr(jestenv, "prepare", lambda *given: ({}, None, ""))
    text = channel.REPORTER.read_text(encoding="utf-8")
    unfrozen = tmp_path / "reporter.cjs"
    unfrozen.write_text(
        text.replace("freeze(FixbotReporter.prototype);", "").replace(
            "freeze(FixbotReporter);", ""
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(channel, "REPORTER", unfrozen)
    repo = js_repo(tmp_path)
    files = {"app.js": JS_REPORTER_PATCHED}
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    seen = state.attempts[-1].seen
    assert seen is not None and seen.tests.get("app.test.js::adds") == "passed"


def test_jest_a_stream_cut_short_is_refused(tmp_path: Path, jest_check: str) -> None:
    """The code under test writes the report jest was asked for itself and exits 0 while `adds`
    runs: the report agrees with the exit code; the reporter's stream has no end, and `adds`
    was never seen to pass."""
    repo = js_repo(tmp_path)
    files = {"app.js": JS_CUT_CHEAT}
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=jest_check)
    last = state.attempts[-1]
    assert last.passed and last.tests == {
        "app.test.js::adds": "passed",
        "app.test.js::zero": "passed",
    }
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-cut-short" in outcome.reason, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == head


def test_jest_without_the_reporter_the_cut_stream_cheat_ends_fixed(
    tmp_path: Path, jest_check: str, no_reporter: None
) -> None:
    repo = js_repo(tmp_path)
    outcome, _ = settle(repo, ScriptedFixer().enqueue({"app.js": JS_CUT_CHEAT}), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason


def test_jest_that_cannot_load_the_reporter_runs_again_unobserved_not_broken(
    tmp_path: Path, jest_check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reporter the check's jest cannot load (its folder out of the check's reach) fails the
    check: it runs again without it, judged by the JSON report, as pytest's unloadable plugin
    is."""
    named = Channel.reporter.fget  # type: ignore[attr-defined]
    monkeypatch.setattr(Channel, "reporter", property(lambda self: Path(f"{named(self)}.gone")))
    repo = js_repo(tmp_path)
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check=jest_check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[0].seen is None and state.attempts[-1].seen is None
    assert state.attempts[0].tests == {"app.test.js::adds": "failed", "app.test.js::zero": "passed"}


def test_jest_through_npm_test_is_verified_by_exit_code_only(
    tmp_path: Path, jest_check: str
) -> None:
    """`npm test` runs jest with words that are not the check's: fixbot does not rewrite the
    project's script, and says the green was judged by the exit code alone."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "app.js": JS_APP,
            "app.test.js": JS_TEST,
            "package.json": f'{{"scripts": {{"test": "{jest_check}"}}}}\n',
        },
    )
    outcome, state = settle(repo, ScriptedFixer().enqueue({"app.js": JS_FIXED}), check="npm test")
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[-1].tests is None
    assert "Verified by exit code only" in git(repo, "log", "-1", "--format=%B")


def test_vitest_a_real_fix_is_verified_by_the_test_runners_own_report(tmp_path: Path) -> None:
    root = node_modules()
    if root is None:
        missing("vitest is not installed: bash scripts/node-tools.sh")
    test = "import { test, expect } from 'vitest';\n" + JS_TEST.replace(
        "const { add } = require('./app');", "import { add } from './app.js';"
    )
    files = {
        "app.js": JS_APP.replace("exports.add =", "export const add ="),
        "app.test.js": test,
        "package.json": '{"name": "app", "type": "module"}\n',
    }
    repo = make_repo(tmp_path / "repo", files)
    fixed = {"app.js": JS_FIXED.replace("exports.add =", "export const add =")}
    check = f"{root / '.bin' / 'vitest'} run"
    outcome, state = settle(repo, ScriptedFixer().enqueue(fixed), check=check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[0].tests == {"app.test.js::adds": "failed", "app.test.js::zero": "passed"}
    for attempt in (state.attempts[0], state.attempts[-1]):  # streamed by fixbot's reporter
        assert attempt.seen is not None and attempt.seen.runners == ["vitest"]
        assert attempt.seen.tests == attempt.tests and attempt.seen.ended == 1
    assert (
        "Verified by the test runner's own report (2 tests) and fixbot's observer inside vitest"
        " (2 tests)" in git(repo, "log", "-1", "--format=%B")
    )


RS_APP = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
RS_TESTS = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn zero() {
        assert_eq!(add(0, 0), 0);
    }
}
"""
RS_CARGO = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'
# The code under test ends the test binary with status 0 while `adds` runs.
RS_CHEAT = RS_APP.replace(
    "    a - b\n", "    if (a, b) == (2, 2) {\n        std::process::exit(0);\n    }\n    a - b\n"
)


@pytest.fixture
def rustup(monkeypatch: pytest.MonkeyPatch) -> Path:
    """rustup's own folders (the tests' HOME is a tmp one); skipped without cargo."""
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    rustup_home = Path(os.environ.get("RUSTUP_HOME") or home / ".rustup")
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    monkeypatch.setenv("RUSTUP_HOME", str(rustup_home))
    monkeypatch.setenv("CARGO_HOME", os.environ.get("CARGO_HOME") or str(home / ".cargo"))
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")
    return rustup_home


@pytest.fixture
def cargo_env(rustup: Path) -> str:
    """The nightly check command; skipped without a nightly toolchain."""
    if not list((rustup / "toolchains").glob("nightly-*")):
        pytest.skip("no nightly Rust toolchain (rustup toolchain add nightly)")
    return "cargo +nightly test"


def rust_repo(tmp_path: Path) -> Path:
    """A crate whose `add` subtracts: `tests::adds` fails, `tests::zero` passes."""
    files = {"Cargo.toml": RS_CARGO, "src/lib.rs": RS_APP + RS_TESTS, ".gitignore": "target/\n"}
    return make_repo(tmp_path / "repo", files)


def test_cargo_nightly_an_exit_0_in_the_code_under_test_is_refused_by_the_report(
    tmp_path: Path, cargo_env: str
) -> None:
    repo = rust_repo(tmp_path)
    files = {"src/lib.rs": RS_CHEAT + RS_TESTS}
    assert green_without_the_controls(repo, files, cargo_env)
    outcome, state = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=cargo_env)
    assert state.attempts[0].tests == {
        "src/lib.rs::tests::adds": "failed",
        "src/lib.rs::tests::zero": "passed",
    }
    last = state.attempts[-1]
    assert last.passed and (last.tests or {}).get("src/lib.rs::tests::adds") is None
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "report-disagrees" in outcome.reason and "tests::adds" in outcome.reason


def test_cargo_nightly_without_the_report_the_printed_counts_alone_see_the_cheat(
    tmp_path: Path, cargo_env: str, no_reports: None
) -> None:
    """Unlike go's and jest's, libtest's exit cuts its `test result:` line: the counts catch
    this cheat too (`fewer-tests`), without naming the test; the report names it."""
    repo = rust_repo(tmp_path)
    files = {"src/lib.rs": RS_CHEAT + RS_TESTS}
    outcome, _ = settle(repo, ScriptedFixer().enqueue(files), max_attempts=1, check=cargo_env)
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "fewer-tests" in outcome.reason and "report-disagrees" not in outcome.reason


def test_cargo_on_a_stable_toolchain_is_verified_by_exit_code_only(
    tmp_path: Path, rustup: Path
) -> None:
    """A stable libtest refuses `-Z unstable-options`: `cargo test` is not asked, and says so."""
    repo = rust_repo(tmp_path)
    fixed = {"src/lib.rs": RS_APP.replace("a - b", "a + b") + RS_TESTS}
    outcome, state = settle(repo, ScriptedFixer().enqueue(fixed), check="cargo test")
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert state.attempts[-1].tests is None
    assert "Verified by exit code only" in git(repo, "log", "-1", "--format=%B")
