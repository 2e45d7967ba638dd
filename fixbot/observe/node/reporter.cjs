'use strict';
// fixbot's reporter inside jest (30.x) and vitest (4.x): the node runners' side of fixbot's
// observer channel (fixbot/observe/channel.py, fixbot/observe/reporter.py).
//
// fixbot copies this file from its installation into the run's observer folder (readable by
// the commands' user, writable by fixbot alone) and names it on the runner's command line
// (jest `--reporters=<path>`, vitest `--reporter=<path>`). At load it finds the channel's two
// inherited descriptors by `FIXBOT_OBSERVER=<in>:<inode>,<out>:<inode>` (numbers, not
// secrets), checks each names the socket fixbot made (by inode), reads the settings channel to
// its end (the run's nonce: never an environment variable, which /proc/<pid>/environ shows;
// read to the end and closed so no later process of the check reads another copy) and writes
// one line a record to the other, `nonce<TAB>json`, in fixbot.observe.stream's wire format:
//
//   {"k": "start", "watch": [], "runner": "jest"|"vitest"}   the reporter loaded
//   {"k": "r", "id": "<abs file>::<describe> > <title>", "w": "call", "o": outcome, "n": tries}
//                                  a test's outcome as the runner decided it (jest
//                                  `onTestCaseResult`, again in `onTestResult`, with a file
//                                  that failed to run; vitest `onTestCaseResult`, again in
//                                  `onTestModuleEnd`), with `n`, the tries the runner made of
//                                  it (jest's test case result's `invocations`, 2 and more under
//                                  `jest.retryTimes`; vitest's `diagnostic().retryCount` + 1)
//   {"k": "fn", "id": ..., "o": "failed"|"passed"}   jest-circus's verdict on a test's
//                                  function as it was dispatched, from fixbot's test
//                                  environment in band (`environment.cjs`, `events` below);
//                                  "o": "file", "id" a test file: the environment was built
//                                  for it
//   {"k": "key", "key": "<32 hex>"}  jest: a worker's key (`giveKey`, below): fixbot takes
//                                  `fn` records headed by their HMAC-SHA256 under it as the
//                                  environment's in that worker
//   {"k": "ran", "id": "<abs file>"}   jest: a test file jest starts to run (`onTestFileStart`,
//                                  in a worker or in band): fixbot expects its environment's
//                                  "file" record where the start's run had one (a worker's
//                                  records, relayed through the code under test's process,
//                                  can be dropped on the way; this one cannot)
//   {"k": "end", "status": 0|1, "runner": ...}   the run finished (jest `onRunComplete`,
//                                  vitest `onTestRunEnd`): 0 when the runner's results say
//                                  it passed
//
// Before each write it checks the descriptor still names the channel's socket; where it does
// not (closed, or another file under its number) it writes nothing more, so the stream lacks
// its end and fixbot judges it cut short. It loads nothing but node's own `fs`, `crypto`, `os`
// and `path`.
//
// jest's workers (several test files) are processes forked by the main process, which
// inherit its environment as it is at the fork, but neither the nonce nor the channel. So in
// jest, as the run starts in workers (`onRunStart` with `showStatus`, jest's `!runInBand`:
// jest 30 forks its workers after every reporter's `onRunStart` resolved, in the runner's
// constructor of its worker farm, and dispatches the first `onTestFileStart` after that), the
// reporter makes a key folder of the user's own (`fixbot-jest-keys-*`, 0700, in the temporary
// folder) and names it in `FIXBOT_JEST_WORKER=<folder>` (a path, no secret); at the first
// `onTestFileStart` (the workers forked) it deletes the variable from this process's
// environment. As each of the first files starts, one for each worker jest forks at most
// (`maxWorkers`: jest awaits `onTestFileStart` before it hands the file over, and hands the
// first files to idle workers, one each), it makes a fresh key (16 random bytes, hex), streams
// it signed with the nonce (`key`) and writes it to a file of its own in the folder (0600, made
// new); fixbot's test environment (`environment.cjs`) takes one such file as it loads in a
// worker (opened and unlinked before any test file's code runs) and heads each of its `fn`
// records with its HMAC-SHA256 under the key, `<mac><TAB>{json}`; the worker has no
// descriptor of the channel (node's `fork` passes none but the standard streams and
// jest-worker's IPC, measured, jest 30.5, node 20), so it sends each line to this process
// through jest-worker's `messageParent` as a `test-case-start` message, which jest hands to
// `onTestCaseStart`, and the reporter writes it to the channel as it came (`relay`: one line of
// a MAC and a JSON object, a MiB at most, written by this process alone; anything else is
// dropped); fixbot takes nothing but `fn` records under a key the nonce announced, one key a
// test file (`fixbot.observe.jestrecords`). The folder is removed at the run's end. A worker
// jest starts again later (a crash, `workerIdleMemoryLimit`) forks without the variable: its
// environment streams nothing.
//
// jest runs a single test file in band: the code under test then shares this process and can
// reach its realm (`fs.readFileSync.constructor('return process')()`), node's shared modules
// and this module through `require.cache`. So what the reporter uses is taken when it loads,
// before any test file runs (`fs.writeSync`, `fs.fstatSync`, `Buffer.from`,
// `JSON.stringify` on strings alone, which calls no `toJSON`), the class and its prototype are
// frozen, one instance a process streams (a second `new` is inert) and its methods answer that
// instance alone, and nothing is sent after the end.

const fs = require('fs');
const crypto = require('crypto');
const os = require('os');
const path = require('path');

const writeSync = fs.writeSync;
const fstatSync = fs.fstatSync;
const bufferFrom = Buffer.from.bind(Buffer);
const quote = JSON.stringify; // on a string: no `toJSON` is looked up
const freeze = Object.freeze;
const randomBytes = crypto.randomBytes;
const env = process.env;
const mkdtempSync = fs.mkdtempSync;
const writeFileSync = fs.writeFileSync;
const rmSync = fs.rmSync;
const join = path.join;

const VARIABLE = 'FIXBOT_OBSERVER';
const WORKER = 'FIXBOT_JEST_WORKER';
const STATUSES = { passed: 'passed', failed: 'failed' };
for (const s of ['pending', 'skipped', 'todo', 'disabled', 'focused']) STATUSES[s] = 'skipped';

function openChannel() {
  const given = String(process.env[VARIABLE] || '');
  delete process.env[VARIABLE];
  const ends = given.split(',').map((pair) => pair.split(':').map(Number));
  if (ends.length !== 2 || ends.some((e) => e.length !== 2 || !e.every(Number.isInteger))) {
    return null;
  }
  const [[inFd, inIno], [outFd, outIno]] = ends;
  try {
    if (fs.fstatSync(inFd).ino !== inIno || fs.fstatSync(outFd).ino !== outIno) return null;
  } catch (e) {
    return null;
  }
  let text = '';
  const chunk = Buffer.alloc(65536);
  try {
    for (;;) {
      const n = fs.readSync(inFd, chunk, 0, chunk.length, null);
      if (n <= 0) break;
      text += chunk.toString('utf8', 0, n);
    }
  } catch (e) {
    // EAGAIN or a closed end: what was read is all there is
  }
  try {
    fs.closeSync(inFd);
  } catch (e) {
    // closed already
  }
  let nonce = null;
  try {
    nonce = JSON.parse(text.split('\n', 1)[0]).nonce;
  } catch (e) {
    return null;
  }
  if (typeof nonce !== 'string' || !nonce) return null;
  return { fd: outFd, ino: outIno, nonce, broken: false };
}

// one channel per process, opened when the module loads (before any test file runs)
const CHANNEL = openChannel();

// one record, `{"k": ..., ...}`, its keys and values strings or integers, written as one line
function send(pairs) {
  const ch = CHANNEL;
  if (ch === null || ch.broken) return;
  let body = '';
  for (let i = 0; i < pairs.length; i += 2) {
    const value = pairs[i + 1];
    const text = typeof value === 'number' ? `${value | 0}` : quote(`${value}`);
    body += `${i ? ',' : ''}"${pairs[i]}":${text}`;
  }
  write(`${ch.nonce}\t{${body}}\n`);
}

// one line written to the channel, whole, while its descriptor names the channel's socket
function write(text) {
  const ch = CHANNEL;
  if (ch === null || ch.broken) return;
  const line = bufferFrom(text, 'utf8');
  try {
    if (fstatSync(ch.fd).ino !== ch.ino) throw new Error('not the channel');
    let done = 0;
    while (done < line.length) done += writeSync(ch.fd, line, done, line.length - done);
  } catch (e) {
    ch.broken = true; // nothing more: the stream lacks its end
  }
}

function outcome(status) {
  return STATUSES[status] || 'failed';
}

function jestCase(path, result) {
  const titles = result.ancestorTitles || [];
  const id = idOf(path, [].concat(titles, [result.title]));
  const tries = typeof result.invocations === 'number' ? result.invocations : 1;
  send(['k', 'r', 'id', id, 'w', 'call', 'o', outcome(result.status), 'n', tries]);
}

function vitestCase(testCase) {
  const titles = [];
  for (let at = testCase; at && at.type !== 'module'; at = at.parent) titles.unshift(at.name);
  const path = testCase.module ? testCase.module.moduleId : '';
  const result = typeof testCase.result === 'function' ? testCase.result() : {};
  const seen = typeof testCase.diagnostic === 'function' ? testCase.diagnostic() : undefined;
  const retries = seen && typeof seen.retryCount === 'number' ? seen.retryCount : 0;
  const id = idOf(path, titles);
  send(['k', 'r', 'id', id, 'w', 'call', 'o', outcome(result.state), 'n', retries + 1]);
}

// the one instance that streams, and whether its end was sent, the workers' key folder made
// (`keys`: its path, '' for none), the keys put there, the workers jest forks (module scope: no
// property of anything the project can reach)
const STATE = { instance: null, runner: '', ended: false, keyed: false, keys: '', given: 0, workers: 1 };

// jest, as the run starts in workers (not in band): a folder of the user's own for the workers'
// keys (0700, in the temporary folder), named where the workers jest forks find it (a path, no
// secret: `/proc/<pid>/environ` shows it); each key is put there later, one a worker (`giveKey`)
function giveWorkerKey() {
  const ch = CHANNEL;
  if (STATE.keyed || ch === null || ch.broken) return;
  STATE.keyed = true;
  try {
    STATE.keys = mkdtempSync(join(os.tmpdir(), 'fixbot-jest-keys-'));
  } catch (e) {
    return; // no folder: the workers get no key and stream nothing
  }
  env[WORKER] = STATE.keys;
}

// jest, as one of the first files it hands a worker starts (before jest hands it over: jest
// awaits `onTestFileStart`): a fresh key (16 random bytes, hex) streamed signed with the nonce
// and put in the key folder as a file of its own (0600, made new), one for each worker jest
// forks at most: the environment in that worker takes one (opened and unlinked, before any
// test file's code runs) and signs each of its records with it (HMAC-SHA256)
function giveKey() {
  const ch = CHANNEL;
  if (!STATE.keys || STATE.given >= STATE.workers || ch === null || ch.broken) return;
  STATE.given += 1;
  const key = randomBytes(16).toString('hex');
  send(['k', 'key', 'key', key]);
  try {
    writeFileSync(join(STATE.keys, `${STATE.given}`), key, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    // not written: that worker's environment finds no key and streams nothing
  }
}

// the run ended: the key folder removed, with any key no worker took
function dropKeys() {
  if (!STATE.keys) return;
  try {
    rmSync(STATE.keys, { recursive: true, force: true });
  } catch (e) {
    // left in the temporary folder: a key there signs nothing fixbot still reads
  }
}

// a record of fixbot's environment in a worker, `<mac><TAB>{json}` (the HMAC-SHA256 of the
// JSON under the worker's key, 64 hex digits; one line, `MAX_RELAYED` characters at most: a
// test's id is as long as its titles), written to the channel as it came: fixbot takes it
// where a key this run announced signs it, and counts it forged otherwise
const RELAYED = /^[0-9a-f]{64}\t\{[^\n\r]*\}$/;
const MAX_RELAYED = 1 << 20;
function relay(info) {
  const line = info !== null && typeof info === 'object' ? info.fixbot : undefined;
  if (typeof line !== 'string' || line.length > MAX_RELAYED || !RELAYED.test(line)) return;
  write(`${line}\n`);
}

// the workers forked (in band: no test file run yet): the key leaves this process's environment
function takeWorkerKey() {
  delete env[WORKER];
}

// no `watch` list: no test body is followed
function sendStart(runner) {
  send(['k', 'start', 'runner', runner]);
}

// `<file>::<title> > <title> ...`, as jest's and vitest's JSON report name a test (by hand:
// ``Array.prototype.join` is the project's to replace in band)
function idOf(path, titles) {
  let id = `${path}::`;
  for (let i = 0; i < titles.length; i += 1) id += `${i ? ' > ' : ''}${titles[i]}`;
  return id;
}

class FixbotReporter {
  constructor(globalConfig) {
    // jest passes its global configuration (with `rootDir`), vitest its options or nothing
    const runner = globalConfig && 'rootDir' in globalConfig ? 'jest' : 'vitest';
    if (STATE.instance !== null) return freeze(this); // a second instance streams nothing
    STATE.instance = this;
    STATE.runner = runner;
    const workers = globalConfig ? globalConfig.maxWorkers : 1;
    STATE.workers = typeof workers === 'number' && workers >= 1 ? Math.min(workers | 0, 64) : 1;
    freeze(this);
    sendStart(runner);
  }

  // jest, before it forks its workers (`showStatus`: jest runs the files in workers, not in band)
  onRunStart(results, options) {
    if (this !== STATE.instance || STATE.ended || STATE.runner !== 'jest') return;
    if (options !== null && typeof options === 'object' && options.showStatus === true) {
      giveWorkerKey();
    }
  }

  // jest, as each test file is handed to a worker (after the workers were forked) or run in
  // band: the file streamed (`ran`), from this process, before the file's environment is built
  onTestFileStart(test) {
    if (this !== STATE.instance) return;
    takeWorkerKey();
    if (STATE.ended || STATE.runner !== 'jest') return;
    const file = test !== null && typeof test === 'object' ? test.path : undefined;
    if (typeof file === 'string' && file) send(['k', 'ran', 'id', file]);
    giveKey();
  }

  // jest: a test case starts; from fixbot's environment in a worker, one of its records
  onTestCaseStart(test, info) {
    if (this !== STATE.instance || STATE.ended) return;
    relay(info);
  }

  // jest: (test, testCaseResult); vitest: (testCase)
  onTestCaseResult(test, result) {
    if (this !== STATE.instance || STATE.ended) return;
    if (result !== undefined) jestCase(test.path, result);
    else vitestCase(test);
  }

  // jest: a file's results; one that failed to run (a syntax error, a hook that threw) fails
  // each of its tests, or stands as one failed id, its file, as in jest's JSON report
  onTestResult(test, testResult) {
    if (this !== STATE.instance || STATE.ended) return;
    const cases = testResult.testResults || [];
    for (const result of cases) jestCase(testResult.testFilePath, result);
    const broken = testResult.testExecError || (testResult.failureMessage && !testResult.numFailingTests);
    if (!broken) return;
    if (!cases.length) send(['k', 'r', 'id', testResult.testFilePath, 'w', 'call', 'o', 'failed']);
    for (const result of cases) jestCase(testResult.testFilePath, { ...result, status: 'failed' });
  }

  // jest sets `results.success` after the reporters ran: the same reading, made here
  onRunComplete(contexts, results) {
    if (this !== STATE.instance || STATE.ended) return;
    const r = results || {};
    const red =
      r.numFailedTests || r.numRuntimeErrorTestSuites || (r.snapshot && r.snapshot.failure) ||
      r.runExecError || r.wasInterrupted;
    STATE.ended = true;
    dropKeys();
    send(['k', 'end', 'status', red ? 1 : 0, 'runner', 'jest']);
  }

  // vitest: a module's tests again as it ends (one whose case result came unsent: a todo), and
  // a module that failed to run (a syntax error, an import that threw) fails each of its
  // tests, or stands as one failed id, its file, as in vitest's JSON report
  onTestModuleEnd(testModule) {
    if (this !== STATE.instance || STATE.ended) return;
    const cases = testModule.children ? [...testModule.children.allTests()] : [];
    for (const testCase of cases) vitestCase(testCase);
    const state = typeof testModule.state === 'function' ? testModule.state() : '';
    if (state === 'failed' && !cases.length) {
      send(['k', 'r', 'id', testModule.moduleId, 'w', 'call', 'o', 'failed']);
    }
  }

  // vitest
  onTestRunEnd(modules, errors, reason) {
    if (this !== STATE.instance || STATE.ended) return;
    const red = reason !== 'passed' || (errors && errors.length);
    STATE.ended = true;
    send(['k', 'end', 'status', red ? 1 : 0, 'runner', 'vitest']);
  }

  getLastError() {
    return undefined;
  }
}

// fixbot's test environment (`environment.cjs`, in band: this process) takes, once, as it loads
// before any test file runs, the sender of its `fn` records: the verdict of a test's function
// as jest-circus dispatched it; a later taker (the code under test, through `require.cache`)
// gets one that sends nothing
const TAKEN = { events: false };
function sendFunction(id, outcome) {
  if (STATE.ended) return;
  const said = outcome === 'failed' || outcome === 'file' ? outcome : 'passed';
  send(['k', 'fn', 'id', `${id}`, 'o', said]);
}
function ignored() {
  return undefined;
}
FixbotReporter.events = function events() {
  if (TAKEN.events) return ignored;
  TAKEN.events = true;
  return sendFunction;
};

freeze(FixbotReporter.prototype);
freeze(FixbotReporter);
module.exports = FixbotReporter;
