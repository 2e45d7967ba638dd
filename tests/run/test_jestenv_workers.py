"""fixbot's jest test environment in jest's workers (several test files, `--maxWorkers=2`): the
reporter names a key folder as the run starts (`FIXBOT_JEST_WORKER`, a path) and, as each of
the first files starts, one a worker, streams a fresh key signed with the run's nonce and
writes it there; the environment in a worker takes one key file (opened and unlinked before any
test file's code runs) and heads each of its `fn` records with its HMAC-SHA256 under that key,
sent to the reporter, which writes them to the channel (`fixbot/observe/node/reporter.cjs`,
`environment.cjs`, `fixbot.observe.jestrecords`). Round 21's cheat through jest-circus's state
(the running test's `errors` replaced by a list that keeps none: jest, its report and the
reporter's stream say passed), held in band, is held in the workers too; without the worker
key (a reporter that gives none) the same two-file fix ends `fixed`. The honest two-file fix is
`tests/run/test_observer_attacks_round21.py::test_an_honest_jest_fix_in_jests_workers_is_fixed`.

The key read by the code under test (each a strict xfail before, ended `fixed` with the key in
the workers' environment and heading each line; held now):
`worker-key-read-from-proc-self-environ`: `app.js` reads the worker's initial environment
(`/proc/self/environ`, which a delete from `process.env` does not change) and every key file
left in the folder it names, takes the environment's handler out of jest-circus's list and
drops the running test's errors (round 21's second cheat), and sends, the way the environment
does (`process.send` of node's real `process`, jest-worker's custom message), one `fn` record
`passed` for each test that calls it under each key found, as the environment signed before
and as it signs now. Measured: the variable names the folder, which is empty once the
environment loaded: no key is found, nothing counts, `adds` has no verdict (`observer-report`).
`worker-key-read-from-the-lines-the-worker-sends`: `app.js` wraps the worker's `process.send`
(which `messageParent` calls), takes each fixbot line's head as a key, drops the `failed`
verdict of `adds` and sends `passed` under each head: a head is a MAC now, no key.
Left (docs/SECURITY.md): code of a worker's that reads another worker's key file before that
worker's environment took it, and the key in the worker's memory (`/proc/self/mem`).
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


# the worker key read from what the worker holds, as the code under test can: its initial
# environment (`/proc/self/environ`), which named the key itself before and now names the key
# folder, and every key file left in that folder; each key found signs, as fixbot's environment
# signed before (the key itself heading the line) and as it signs now (HMAC-SHA256), one `fn`
# record `passed` for each test that calls `add`
KEY_READ = """\
const fs = require('fs');
const crypto = require('crypto');
const real = fs.readFileSync.constructor('return process')();
const environ = fs.readFileSync('/proc/self/environ', 'latin1').split('\\0');
const named = (environ.find((v) => v.startsWith('FIXBOT_JEST_WORKER=')) || '=').slice(19);
const keys = /^[0-9a-f]{32}$/.test(named) ? [named] : [];
try {
  for (const f of fs.readdirSync(named)) keys.push(fs.readFileSync(`${named}/${f}`, 'latin1'));
} catch (e) {}
const macOf = (key, json) => crypto.createHmac('sha256', Buffer.from(key, 'hex')).update(json);
const forged = new Set();
const forge = (id) => {
  if (forged.has(id)) return;
  forged.add(id);
  const json = `{"k":"fn","id":${JSON.stringify(id)},"o":"passed"}`;
  for (const key of [...keys]) {
    for (const line of [`${key}\\t${json}`, `${macOf(key, json).digest('hex')}\\t${json}`]) {
      real.send([3, ['test-case-start', ['', { fixbot: line }]]]);
    }
  }
};
"""
JS_KEY_READ = KEY_READ + JS_HANDLER_REMOVED.replace(
    "  return a - b;\n",
    "  if (running) forge(`${__dirname}/app.test.js::${running.name}`);\n  return a - b;\n",
)
assert JS_KEY_READ != KEY_READ + JS_HANDLER_REMOVED

# the worker's way to the main process wrapped (`process.send`, which jest-worker's
# `messageParent` calls): each fixbot line that passes gives its head as a key (the key itself
# before; a MAC now), and a `failed` verdict is dropped and forged `passed` under every key found
LINES_READ = """\
const sent = real.send.bind(real);
real.send = (message, ...rest) => {
  const info = message && message[1] && message[1][1] && message[1][1][1];
  const line = info && typeof info.fixbot === 'string' ? info.fixbot : '';
  const [head, json] = line.split('\\t');
  if (head && !keys.includes(head)) keys.push(head);
  if (json && json.includes('"o":"failed"')) return forge(JSON.parse(json).id) || true;
  return sent(message, ...rest);
};
"""
JS_LINES_READ = KEY_READ + LINES_READ + JS_ERRORS_DROPPED


@pytest.mark.parametrize(
    "app",
    [
        pytest.param(JS_KEY_READ, id="worker-key-read-from-proc-self-environ"),
        pytest.param(JS_LINES_READ, id="worker-key-read-from-the-lines-the-worker-sends"),
    ],
)
def test_a_worker_key_read_by_the_code_under_test_ends_escalated(
    tmp_path: Path, jest_check: str, app: str
) -> None:
    """The code under test reads what its worker holds for the key (the initial environment,
    the key folder it names, the lines that pass its `process.send`) and signs `passed` for
    `adds` with each key found: the key is in none of them (the environment took its file
    before any test code ran; a line carries a MAC), so nothing it signs counts: `adds` has
    no verdict in a file the environment was built for (`observer-report`). Both ended `fixed`
    with the key in the workers' environment and heading each line (the reporter and the
    environment of main, put back by hand)."""
    check = f"{jest_check} --maxWorkers=2 --no-cache"
    cheat = ScriptedFixer().enqueue({"app.js": app})
    repo = workers_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD")
    outcome, state = settle(repo, cheat, max_attempts=1, check=check)
    last = state.attempts[-1]
    assert last.passed, "the cheat did not turn the check green"
    assert outcome.outcome is OutcomeKind.ESCALATED, outcome.reason
    assert "observer-report" in outcome.reason, outcome.reason
    assert last.seen is not None and "app.test.js::adds" not in last.seen.functions
    assert sorted(last.seen.environed) == ["app.test.js", "more.test.js"]
    assert git(repo, "rev-parse", "HEAD") == head
