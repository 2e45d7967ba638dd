"""fixbot's reporter inside jest and vitest (`fixbot/observe/node/reporter.cjs`) and fixbot's side
of it (`fixbot.observe.reporter`): the reporter is copied into the run's observer folder, reads
the nonce from the channel, streams each outcome and the run's end in the stream's one wire
format, and fixbot compares the stream with the runner's JSON report. The real runners are in
tests/run/test_runner_reports.py."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import judge
from fixbot.observe.channel import Channel
from fixbot.observe.reporter import disagreements, relocated
from fixbot.observe.stream import parse

NONCE = "n" * 32
JEST_CASE = {"ancestorTitles": ["g"], "title": "t", "status": "failed"}


def streamed(*records: dict[str, object], nonce: str = NONCE) -> Observation:
    return parse("".join(f"{nonce}\t{json.dumps(r)}\n" for r in records), NONCE)


def node_run(records: list[dict[str, object]], tests: dict[str, str]) -> Observation:
    """A node reporter's stream: its start, an `r` record a test, its end (`status`)."""
    status = 1 if "failed" in tests.values() else 0
    return streamed(
        {"k": "start", "watch": [], "runner": "jest"},
        *records,
        *({"k": "r", "id": t, "w": "call", "o": o} for t, o in tests.items()),
        {"k": "end", "status": status, "runner": "jest"},
    )


def test_the_reporters_stream_is_read_as_pytests_with_its_runner_and_no_known_answer() -> None:
    start = node_run([], {"a.test.js::adds": "failed", "a.test.js::zero": "passed"})
    assert start.runners == ["jest"] and start.reported == 1 and start.ended == 1
    assert start.called == ["a.test.js::adds", "a.test.js::zero"]
    fixed = node_run([], {"a.test.js::adds": "passed", "a.test.js::zero": "passed"})
    assert judge.findings(start, fixed) == []  # no known answer is owed by jest's session
    red = node_run([], {"a.test.js::adds": "failed", "a.test.js::zero": "passed"})
    assert any(f.startswith("observer-failed") for f in judge.findings(start, red))
    cut = streamed({"k": "start", "watch": [], "runner": "jest"})
    assert any(f.startswith("observer-cut-short") for f in judge.findings(start, cut))
    assert judge.findings(start, Observation()) == [judge.MISSING]
    # a pytest session's end still owes the known answer
    both = streamed({"k": "start", "watch": []}, {"k": "end", "status": 0})
    assert any(f.startswith("observer-known-answer") for f in judge.findings(None, both))


def test_the_runners_last_word_on_a_test_counts_pytests_worst_phase() -> None:
    """jest streams each try of a retried test, then the file's results: the last counts."""
    retried = [{"k": "r", "id": "a.test.js::t", "w": "call", "o": o} for o in ("failed", "passed")]
    assert node_run(retried, {}).tests == {"a.test.js::t": "passed"}
    assert streamed({"k": "start", "watch": []}, *retried).tests == {"a.test.js::t": "failed"}


def test_a_test_passed_on_a_retry_the_start_did_not_make_is_a_finding() -> None:
    """jest's tries (`n`, its `invocations`): a test that failed at the start and passed now on
    a second try where the start's run tried it once is `observer-retried` (the code under test
    turned `jest.retryTimes` on, `test_observer_attacks_round21.py`); tried as often at the
    start (its own file retries it), or not failed at the start, it is none."""

    def tries(outcome: str, *counts: int) -> list[dict[str, object]]:
        return [
            {"k": "r", "id": "a.test.js::adds", "w": "call", "o": "failed", "n": n}
            for n in counts[:-1]
        ] + [{"k": "r", "id": "a.test.js::adds", "w": "call", "o": outcome, "n": counts[-1]}]

    start = node_run(tries("failed", 1), {"a.test.js::zero": "passed"})
    retried = node_run(tries("passed", 1, 2, 2), {"a.test.js::zero": "passed"})
    assert retried.tries == {"a.test.js::adds": 2} and start.tries == {}
    (found,) = judge.findings(start, retried)
    assert found.startswith("observer-retried: ") and "a.test.js::adds" in found
    own = node_run(tries("failed", 1, 2, 3, 3), {"a.test.js::zero": "passed"})  # its file's
    assert judge.findings(own, retried) == []
    flaky = node_run(tries("passed", 1, 2, 2), {"a.test.js::zero": "failed"})
    assert not [f for f in judge.findings(start_of_zero(), flaky) if "retried" in f]
    # pytest's stream has no tries; a bogus `n` is no count
    assert streamed({"k": "r", "id": "t.py::x", "w": "call", "o": "passed", "n": 5}).tries == {}
    bogus = node_run(
        [{"k": "r", "id": "a.test.js::adds", "w": "call", "o": "passed", "n": "9"}], {}
    )
    assert bogus.tries == {}


def start_of_zero() -> Observation:
    """A start where `zero` failed and `adds` passed."""
    return node_run([], {"a.test.js::adds": "passed", "a.test.js::zero": "failed"})


def test_a_report_that_disagrees_with_the_stream_is_a_finding() -> None:
    seen = node_run([], {"a.test.js::adds": "failed", "a.test.js::zero": "passed"})
    assert disagreements(dict(seen.tests), seen) == []
    rewritten = {"a.test.js::adds": "passed", "a.test.js::zero": "passed"}
    (found,) = disagreements(rewritten, seen)
    assert found.startswith("observer-report: ")
    assert "a.test.js::adds (passed in the report, failed as streamed)" in found
    (more,) = disagreements({**seen.tests, "a.test.js::new": "passed"}, seen)
    assert "a.test.js::new (passed in the report, absent as streamed)" in more
    # pytest's stream names node ids, JUnit's report dotted modules: never compared
    pytest_run = streamed({"k": "start", "watch": []}, {"k": "r", "id": "t.py::x", "w": "call"})
    assert disagreements({"t::x": "passed"}, pytest_run) == []
    assert disagreements(None, seen) == [] and disagreements(rewritten, None) == []


def test_the_reporters_ids_are_made_relative_as_the_reports_are(tmp_path: Path) -> None:
    seen = node_run([], {f"{tmp_path}/w/a.test.js::adds": "passed"})
    relocated(seen, tmp_path / "w")
    assert seen.tests == {"a.test.js::adds": "passed"} and seen.called == ["a.test.js::adds"]
    pytest_run = streamed({"k": "r", "id": f"{tmp_path}/x", "w": "call", "o": "passed"})
    assert relocated(pytest_run, tmp_path).tests == {f"{tmp_path}/x": "passed"}


def test_the_reporter_is_copied_read_only_into_the_runs_folder() -> None:
    channel = Channel.open()
    try:
        copy = channel.reporter
        assert copy.parent == channel.folder and copy.name.startswith(channel.module)
        assert copy.suffix == ".cjs" and copy.stat().st_mode & 0o777 == 0o644
        assert channel.folder.stat().st_mode & 0o777 == 0o755
        source = Path(__file__).parents[2] / "fixbot" / "observe" / "node" / "reporter.cjs"
        assert copy.read_bytes() == source.read_bytes()
    finally:
        channel.close()
    assert not channel.folder.exists()


# jest's calls, as jest 30 makes them, to the reporter loaded by `require`; and the calls the
# code under test could make in band, having found the class in node's module cache
DRIVE = """
const Reporter = require(process.argv[1]);
const r = new Reporter({ rootDir: '/w' }, {}, {});
r.onTestCaseResult({ path: '/w/a.test.js' }, %s);
const other = new Reporter({ rootDir: '/w' }, {}, {});  // a second instance: inert
const forged = { ancestorTitles: [], title: 'forged', status: 'passed' };
other.onTestCaseResult({ path: '/w/a.test.js' }, forged);
Reporter.prototype.onTestCaseResult.call(null, { path: '/w/a.test.js' }, forged);
other.onRunComplete(new Set(), {});
r.onRunComplete(new Set(), { numFailedTests: 1 });
r.onTestCaseResult({ path: '/w/a.test.js' }, forged);  // after the end: nothing
try { Reporter.prototype.onRunComplete = () => {}; } catch (e) {}
console.log(JSON.stringify({ env: process.env.FIXBOT_OBSERVER || null }));
"""


def drive(channel: Channel, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = DRIVE % json.dumps(JEST_CASE)
    return subprocess.run(
        [node, "-e", script, str(channel.reporter)],
        env={**os.environ, **env},
        pass_fds=channel.fds,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )


def test_the_reporter_reads_the_nonce_from_the_channel_and_streams_each_outcome() -> None:
    channel = Channel.open()
    done = drive(channel, channel.env({}))
    seen = channel.close()
    assert json.loads(done.stdout) == {"env": None}  # the variable leaves the environment
    assert seen.runners == ["jest"] and seen.forged == 0 and seen.sessions == seen.ended == 1
    # one instance streams, its methods answer it alone, nothing after its end
    assert seen.tests == {"/w/a.test.js::g > t": "failed"} and seen.statuses == [1]
    assert channel.nonce not in done.stdout + done.stderr


def test_the_reporter_streams_nothing_where_the_descriptors_are_not_the_channels() -> None:
    channel = Channel.open()
    variable = channel.env({})["FIXBOT_OBSERVER"]
    wrong = ",".join(f"{pair.split(':')[0]}:1" for pair in variable.split(","))
    drive(channel, {**channel.env({}), "FIXBOT_OBSERVER": wrong})
    seen = channel.close()
    assert seen.sessions == 0 and seen.forged == 0


def test_a_test_whose_function_failed_and_was_reported_passed_is_a_finding() -> None:
    """fixbot's jest test environment streams jest-circus's verdict on each run of a test's
    function (`fn`) and each file it was built for: a test whose function's last run failed
    and that was reported passed (its `errors` emptied after, round 21), or that was reported
    passed in such a file with no verdict streamed (the environment's handler taken out), is
    `observer-report`; a retry that passed, a skipped test, a file the environment was not
    built for (another `@jest-environment`, jest's workers) are none."""
    file = {"k": "fn", "id": "a.test.js", "o": "file"}

    def fn(test: str, outcome: str) -> dict[str, object]:
        return {"k": "fn", "id": f"a.test.js::{test}", "o": outcome}

    tests = {"a.test.js::adds": "passed", "a.test.js::zero": "passed"}
    honest = node_run(
        [file, fn("adds", "failed"), fn("adds", "passed"), fn("zero", "passed")], tests
    )
    assert honest.functions == {
        "a.test.js::adds": ["failed", "passed"],
        "a.test.js::zero": ["passed"],
    }
    assert honest.tries == {"a.test.js::adds": 2} and honest.environed == ["a.test.js"]
    assert disagreements(dict(honest.tests), honest) == []
    dropped = node_run([file, fn("adds", "failed"), fn("zero", "passed")], tests)
    (found,) = disagreements(dict(dropped.tests), dropped)
    assert found.startswith("observer-report: jest-circus dispatched a failure")
    assert "a.test.js::adds" in found and "zero" not in found
    unseen = node_run([file, fn("adds", "passed")], tests)
    (found,) = disagreements(dict(unseen.tests), unseen)
    assert "was dispatched no verdict" in found and found.endswith("a.test.js::zero")
    elsewhere = node_run([fn("adds", "passed")], tests)  # no file record: not its environment
    assert disagreements(dict(elsewhere.tests), elsewhere) == []
    skipped = node_run([file, fn("adds", "failed")], {"a.test.js::adds": "skipped"})
    assert disagreements(dict(skipped.tests), skipped) == []
    assert streamed({"k": "fn", "id": "x", "o": "maybe"}).functions == {"x": []}


# the environment's sender taken as jest's environment would take it, then by the code under
# test through node's module cache: the second is inert
EVENTS = """
const Reporter = require(process.argv[1]);
new Reporter({ rootDir: '/w' }, {}, {});
const first = Reporter.events();
const second = Reporter.events();
first('/w/a.test.js::t', 'failed');
second('/w/a.test.js::t', 'passed');
first('/w/a.test.js', 'file');
"""


def test_a_test_file_jest_ran_without_its_environments_file_record_is_a_finding() -> None:
    """jest's reporter streams each test file jest starts (`ran`, from the main process): a
    verifying run where a file it saw run has no file record from fixbot's test environment,
    which the start's run had (its records dropped on the way from a worker, round 36), is
    `observer-missing`; a file the environment was not built for at the start (another
    `@jest-environment`), or a run where fixbot named no environment (unsure: `_unenvironed`'s
    finding alone), is none, and the honest two-file run is none."""

    def run(environed: list[str], tests: dict[str, str]) -> Observation:
        ran = [{"k": "ran", "id": f} for f in ("a.test.js", "b.test.js")]
        files = [{"k": "fn", "id": f, "o": "file"} for f in environed]
        return node_run([*ran, *files], tests)

    red = {"a.test.js::adds": "failed", "b.test.js::more": "passed"}
    green = {**red, "a.test.js::adds": "passed"}
    start = run(["a.test.js", "b.test.js"], red)
    assert start.jested == ["a.test.js", "b.test.js"]
    assert start.environed == ["a.test.js", "b.test.js"]
    missing = "observer-missing: jest ran the test file"
    honest = run(["b.test.js", "a.test.js"], green)
    assert not [f for f in judge.findings(start, honest) if f.startswith("observer-")]
    dropped = run(["b.test.js"], green)
    (found,) = [f for f in judge.findings(start, dropped) if f.startswith(missing)]
    assert found.endswith(": a.test.js")
    elsewhere = run(["b.test.js"], red)  # a.test.js: another environment at the start
    assert not [f for f in judge.findings(elsewhere, dropped) if f.startswith(missing)]
    dropped.environment = "several projects"
    assert not [f for f in judge.findings(start, dropped) if f.startswith(missing)]
    assert [f for f in judge.findings(start, dropped) if f.startswith("observer-missing")]
    absolute = node_run([{"k": "ran", "id": "/w/a.test.js"}], {})
    assert relocated(absolute, Path("/w")).jested == ["a.test.js"]


def test_the_reporter_hands_its_function_sender_once() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    channel = Channel.open()
    subprocess.run(
        [node, "-e", EVENTS, str(channel.reporter)],
        env={**os.environ, **channel.env({})},
        pass_fds=channel.fds,
        check=True,
        timeout=60,
    )
    seen = channel.close()
    assert seen.functions == {"/w/a.test.js::t": ["failed"]}
    assert seen.environed == ["/w/a.test.js"] and seen.forged == 0


KEY = "0123456789abcdef" * 2


def macked(key: str, record: dict[str, object]) -> str:
    """One line of fixbot's environment in a jest worker: `record`'s JSON headed by its
    HMAC-SHA256 under `key` (`node/environment.cjs`'s `keyed`)."""
    body = json.dumps(record)
    mac = hmac.new(bytes.fromhex(key), body.encode(), hashlib.sha256).hexdigest()
    return f"{mac}\t{body}\n"


def test_an_fn_record_signed_by_a_worker_key_counts_only_where_the_nonce_announced_it() -> None:
    """jest's workers head fixbot's environment's records with their HMAC-SHA256 under the
    worker's key, which the reporter announced signed with the nonce (`key`): an `fn` record
    so signed counts; one under a key no `key` record announced, or announced only after it,
    the key itself in the MAC's place (the lines the code under test can read on the way carry
    no key), or any other record under a key (a start, a result, an end, another key), is
    forged and counts for nothing."""
    fn = {"k": "fn", "id": "/w/a.test.js::t", "o": "failed"}
    announce = f"{NONCE}\t{json.dumps({'k': 'key', 'key': KEY})}\n"
    signed = macked(KEY, fn)
    file = {**fn, "id": "/w/a.test.js", "o": "file"}
    taken = parse(announce + signed + macked(KEY, file), NONCE)
    assert taken.functions == {"/w/a.test.js::t": ["failed"]} and taken.forged == 0
    assert taken.environed == ["/w/a.test.js"]
    for stream in (
        signed,  # no key announced
        signed + announce,  # announced after the record
        announce.replace(KEY, "a" * 32) + signed,  # another key announced
        f"{KEY}\t{json.dumps({'k': 'key', 'key': KEY})}\n" + signed,  # a key announcing itself
        announce + f"{KEY}\t{json.dumps(fn)}\n",  # the key itself, as before
        announce + signed.replace("failed", "passed"),  # the record changed under its MAC
    ):
        seen = parse(stream, NONCE)
        assert seen.functions == {} and seen.forged >= 1, stream
    others = [
        {"k": "start", "watch": [], "runner": "jest"},
        {"k": "r", "id": "/w/a.test.js::t", "w": "call", "o": "passed"},
        {"k": "end", "status": 0, "runner": "jest"},
        {"k": "key", "key": "b" * 32},
        {"k": "ran", "id": "/w/a.test.js"},
    ]
    seen = parse(announce + "".join(macked(KEY, r) for r in others), NONCE)
    assert seen.forged == len(others) and seen.sessions == seen.ended == 0 and seen.tests == {}
    assert seen.jested == []
    for bad in ("abc", "G" * 32):  # not 32 hex digits: no key
        announced = f"{NONCE}\t{json.dumps({'k': 'key', 'key': bad})}\n"
        seen = parse(f"{announced}{bad}\t{json.dumps(fn)}\n", NONCE)
        assert seen.functions == {} and seen.forged == 1, bad


def test_a_test_files_worker_records_count_under_one_key() -> None:
    """Each worker has a key of its own, and a test file runs in one worker: a file's records
    under a second key (another worker's key, read by code under test before that worker's
    environment took it) are forged; another file's under that key count."""
    other = "f" * 32
    announce = "".join(f"{NONCE}\t{json.dumps({'k': 'key', 'key': k})}\n" for k in (KEY, other))
    file = {"k": "fn", "id": "/w/a.test.js", "o": "file"}
    failed = {"k": "fn", "id": "/w/a.test.js::t", "o": "failed"}
    passed = {**failed, "o": "passed"}
    seen = parse(announce + macked(KEY, file) + macked(KEY, failed) + macked(other, passed), NONCE)
    assert seen.functions == {"/w/a.test.js::t": ["failed"]} and seen.forged == 1
    more = {"k": "fn", "id": "/w/b.test.js", "o": "file"}
    seen = parse(announce + macked(KEY, file) + macked(other, more), NONCE)
    assert seen.environed == ["/w/a.test.js", "/w/b.test.js"] and seen.forged == 0


# jest's worker as jest 30 forks it: the reporter (the main process) names the key folder as
# the run starts in workers (`showStatus`), the worker is forked with that environment, the
# reporter puts a key there as the first test file starts (and takes the folder's name out of
# its own environment), and hands each `test-case-start` message to `onTestCaseStart`; in the
# worker, fixbot's environment loads beside jest-worker's `messageParent` (a stand-in sending
# to the parent), takes the key, builds a stand-in project environment and is dispatched a
# failure; the code under test then finds the key folder empty and no key in the worker's
# initial environment, and sends a record of its own under a MAC it made up, and one that is
# no record
WORKER_MAIN = """
const { fork } = require('child_process');
const fs = require('fs');
const Reporter = require(process.argv[2]);
const r = new Reporter({ rootDir: '/w', maxWorkers: 2 }, {}, {});
(async () => {
  await r.onRunStart({}, { showStatus: true });
  const given = process.env.FIXBOT_JEST_WORKER || null;
  const env = { ...process.env };
  r.onTestFileStart({ path: '/w/a.test.js' });
  const left = process.env.FIXBOT_JEST_WORKER || null;
  const keys = fs.readdirSync(given).length;
  const child = fork(process.argv[3], [process.argv[4]], { stdio: 'inherit', env });
  child.on('message', (m) => r.onTestCaseStart({ path: '' }, m[1][1]));
  child.on('exit', () => {
    r.onRunComplete(new Set(), {});
    const gone = !fs.existsSync(given);
    console.log(JSON.stringify({ given: given !== null, keys, left, gone }));
  });
})();
"""
WORKER_CHILD = """
const path = require('path');
const made = path.join(process.argv[2], 'node_modules', 'jest-worker', 'build', 'index.js');
require(made);
const fs = require('fs');
const folder = process.env.FIXBOT_JEST_WORKER;
const Env = require(process.env.FIXBOT_TEST_ENVIRONMENT);
const left = process.env.FIXBOT_JEST_WORKER || null;
const env = new Env({}, { testPath: '/w/a.test.js' });
env.handleTestEvent({ name: 'test_fn_failure', test: { name: 't', parent: { parent: null } } });
const forged = '{"k":"fn","id":"/w/a.test.js::t","o":"passed"}';
for (const line of ['f'.repeat(64) + '\\t' + forged, 'no record']) {
  require(made).messageParent(['test-case-start', ['', { fixbot: line }]]);
}
if (left !== null) throw new Error('the key folder stayed in the environment');
if (fs.readdirSync(folder).length) throw new Error('a key was left in the folder');
const environ = fs.readFileSync('/proc/self/environ', 'latin1');
const named = environ.split('\\0').filter((v) => v.startsWith('FIXBOT_JEST_WORKER='));
if (named.length !== 1 || named[0] !== `FIXBOT_JEST_WORKER=${folder}`) throw new Error(named);
"""


def test_the_environment_in_a_worker_streams_through_the_reporter_with_the_worker_key(
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    messenger = tmp_path / "node_modules" / "jest-worker" / "build" / "index.js"
    messenger.parent.mkdir(parents=True)
    messenger.write_text("exports.messageParent = (m) => process.send(m);\n")
    (tmp_path / "project-environment.js").write_text("module.exports = class {};\n")
    main, child = tmp_path / "main.js", tmp_path / "child.js"
    main.write_text(WORKER_MAIN)
    child.write_text(WORKER_CHILD)
    source = Path(__file__).parents[2] / "fixbot" / "observe" / "node" / "environment.cjs"
    channel = Channel.open()
    env = {
        **os.environ,
        **channel.env({}),
        "FIXBOT_JEST_ENVIRONMENT": str(tmp_path / "project-environment.js"),
        "FIXBOT_TEST_ENVIRONMENT": str(source),
    }
    done = subprocess.run(
        [node, str(main), str(channel.reporter), str(child), str(tmp_path)],
        env=env,
        pass_fds=channel.fds,
        capture_output=True,
        text=True,
        timeout=60,
    )
    seen = channel.close()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"given": True, "keys": 1, "left": None, "gone": True}
    assert seen.functions == {"/w/a.test.js::t": ["failed"]}
    assert seen.environed == seen.jested == ["/w/a.test.js"]
    assert seen.forged == 1  # the code under test's line, its MAC made up; no record: dropped
