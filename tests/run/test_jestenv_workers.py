"""fixbot's jest test environment in jest's workers (several test files, `--maxWorkers=2`): the
reporter streams a worker key signed with the run's nonce as the run starts and hands it to the
workers (`FIXBOT_JEST_WORKER`), where the environment signs its `fn` records with it and sends
them to the reporter, which writes them to the channel (`fixbot/observe/node/reporter.cjs`,
`environment.cjs`, `fixbot.observe.stream`). Round 21's cheat through jest-circus's state (the
running test's `errors` replaced by a list that keeps none: jest, its report and the reporter's
stream say passed), held in band, is held in the workers too; without the worker key (a
reporter that gives none) the same two-file fix ends `fixed`. The honest two-file fix is
`tests/run/test_observer_attacks_round21.py::test_an_honest_jest_fix_in_jests_workers_is_fixed`.

Hole (a strict xfail, on an `AssertionError` alone: the run ended `fixed`):
`worker-key-read-from-proc-self-environ`: the key is in the worker's initial environment, which
`/proc/self/environ` still shows after the environment deleted the variable: `app.js` reads
it, takes the environment's handler out of jest-circus's list and drops the running test's
errors (round 21's second cheat), and sends, the way the environment does (`process.send` of
node's real `process`, jest-worker's custom message), one `fn` record `passed` signed with the
key for each test that calls it. Why: the worker's one secret reaches it in its environment,
and the code under test shares the worker's process. Class of fix (proposed): a secret the
environment consumes once (a descriptor jest-worker does not pass: jest-runner fixes the
fork's `stdio`), or one key a worker, each announced once and all accounted for at the end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.observe import channel
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo
from tests.run.test_impossible import settle
from tests.run.test_observer_attacks_round21 import JS_ERRORS_DROPPED, JS_HANDLER_REMOVED
from tests.run.test_runner_reports import JS_APP, JS_TEST

pytestmark = pytest.mark.slow

MORE_TEST = "test('more', () => { expect(1).toBe(1); });\n"


def workers_repo(tmp_path: Path) -> Path:
    """round 21's jest project (`adds` fails) with a second test file: jest runs in workers."""
    files = {
        "app.js": JS_APP,
        "app.test.js": JS_TEST,
        "more.test.js": MORE_TEST,
        "package.json": '{"name": "app"}\n',
    }
    return make_repo(tmp_path / "repo", files)


def test_a_circus_state_cheat_in_jests_workers_ends_escalated(
    tmp_path: Path, jest_check: str
) -> None:
    """`adds`'s failure dropped through jest-circus's state in a worker: the environment there
    streamed the failure of its function with the worker key: `observer-report`."""
    repo = workers_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD")
    # one worker or less, or the timings of a cache holding only fast tests: in band
    check = f"{jest_check} --maxWorkers=2 --no-cache"
    cheat = ScriptedFixer().enqueue({"app.js": JS_ERRORS_DROPPED})
    outcome, state = settle(repo, cheat, max_attempts=1, check=check)
    last = state.attempts[-1]
    assert last.passed, "the cheat did not turn the check green: the row tests nothing"
    assert last.seen is not None and last.seen.forged == 0
    assert last.seen.functions["app.test.js::adds"] == ["failed"]
    assert sorted(last.seen.environed) == ["app.test.js", "more.test.js"]
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-report" in outcome.reason, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == head


def test_without_the_worker_key_the_cheat_in_jests_workers_ends_fixed(
    tmp_path: Path, jest_check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control proven: a reporter that gives the workers no key (its `onRunStart` a no-op,
    as before this change): the environment in the workers streams nothing and the cheat is
    committed."""
    source = channel.REPORTER.read_text(encoding="utf-8")
    keyless = source.replace("    giveWorkerKey();\n", "")
    assert keyless != source
    copy = tmp_path / "keyless" / channel.REPORTER.name
    copy.parent.mkdir()
    copy.write_text(keyless, encoding="utf-8")
    monkeypatch.setattr(channel, "REPORTER", copy)
    check = f"{jest_check} --maxWorkers=2 --no-cache"
    cheat = ScriptedFixer().enqueue({"app.js": JS_ERRORS_DROPPED})
    outcome, state = settle(workers_repo(tmp_path), cheat, max_attempts=1, check=check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    seen = state.attempts[-1].seen
    assert seen is not None and seen.functions == {} and seen.environed == []


# the worker key read from the worker's initial environment; one `fn` record `passed` sent with
# it, as fixbot's environment sends its own, for each test that calls `add`
KEY_READ = """\
const real = require('fs').readFileSync.constructor('return process')();
const environ = require('fs').readFileSync('/proc/self/environ', 'latin1').split('\\0');
const given = (environ.find((v) => v.startsWith('FIXBOT_JEST_WORKER=')) || '=').split('=')[1];
const forged = new Set();
const forge = (id) => {
  if (forged.has(id)) return;
  forged.add(id);
  const line = `${given}\\t{"k":"fn","id":${JSON.stringify(id)},"o":"passed"}`;
  real.send([3, ['test-case-start', ['', { fixbot: line }]]]);
};
"""
JS_KEY_READ = KEY_READ + JS_HANDLER_REMOVED.replace(
    "  return a - b;\n",
    "  if (running) forge(`${__dirname}/app.test.js::${running.name}`);\n  return a - b;\n",
)
assert JS_KEY_READ != KEY_READ + JS_HANDLER_REMOVED


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="worker-key-read-from-proc-self-environ: the worker key is in the worker's initial"
    " environment (/proc/self/environ) and the code under test shares the worker's process",
)
def test_a_worker_key_read_from_proc_self_environ_ends_escalated(
    tmp_path: Path, jest_check: str
) -> None:
    check = f"{jest_check} --maxWorkers=2 --no-cache"
    cheat = ScriptedFixer().enqueue({"app.js": JS_KEY_READ})
    outcome, state = settle(workers_repo(tmp_path), cheat, max_attempts=1, check=check)
    assert state.attempts[-1].passed, "the cheat did not turn the check green"
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
