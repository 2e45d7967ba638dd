'use strict';
// fixbot's test environment for jest (30.x, jest-circus): the verdict of each test's function
// streamed from jest-circus's events as they are dispatched, outside the test's realm.
//
// fixbot writes this file once, by the digest of its content, into a folder of its own
// (`fixbot-jest-environment-<digest>/environment.cjs` in the temporary folder, read-only:
// fixbot/run/jestenv.py; where that path is unusable, a copy in the run's own observer
// folder) and names it on jest's command line (`--testEnvironment=<path>`,
// fixbot/logs/dialects/jest.py `observe`): the path is the same in every run, so jest's
// transform cache, whose key holds the project's configuration and so this path, stays warm.
// It stands for the project's own environment: `FIXBOT_JEST_ENVIRONMENT` names, by its
// absolute path, the environment jest resolved for the project (`jest --showConfig`, run by
// fixbot with the check's own jest before the check: `testEnvironment` of its one
// configuration); the constructor builds it, hands that instance back to jest, and sets its
// `handleTestEvent` (which calls the project environment's own, if it has one). jest-circus
// adds that method to its event handlers (after its own) and calls it, outside the vm
// sandbox, as each event is dispatched: a `test_fn_failure` or `test_fn_success`
// (jest-circus's verdict on the test's function, `test.failing` included) is streamed then, as
//
//   {"k": "fn", "id": "<abs file>::<describe> > <title>", "o": "failed"|"passed"}
//
// and, as the environment is built for a test file (before the file runs), its file, as
//
//   {"k": "fn", "id": "<abs file>", "o": "file"}
//
// before any later code can empty the test's `errors` (jest-circus's state on the sandbox's
// global, `Symbol(JEST_STATE_SYMBOL)`) or write its `invocations`: fixbot refuses a test whose
// function's last run failed and that was reported passed, and counts the runs as its tries.
// A test of that file reported passed whose function no record names had its verdict kept
// from this environment (its handler taken out of jest-circus's list,
// `globalThis[Symbol.for('EVENT_HANDLERS')]`). `test_done` is not streamed: its verdict is the
// test's `errors`, which the code under test can empty, and the reporter already streams it.
//
// Signing, in band: the nonce is the reporter's. Where the test file runs in band (one test
// file, or `--runInBand`) this file is loaded in jest's main process after fixbot's reporter
// (this run's copy, `fixbot_observer_<hex>_reporter.cjs`, which read the nonce from the
// channel when it loaded); this file finds that module in node's module cache (no path of the
// run is in this file or its path) and takes its event sender once, as it loads, before any
// test file runs (`FixbotReporter.events`: a second taker gets an inert one, so the code under
// test, which can reach that module through `require.cache`, cannot send `fn` records).
//
// Signing, in jest's workers (several test files): no reporter is loaded in the worker, and
// the nonce never reaches it (`FIXBOT_OBSERVER` deleted and the settings drained by the main
// process's reporter before any worker starts), nor the channel: node's `fork` gives the
// worker no descriptor but its standard streams and jest-worker's IPC (measured, jest 30.5,
// node 20, `--maxWorkers=2`: the channel's writing end is not open in the worker). The
// reporter, as the run starts (`onRunStart`, before jest forks its workers), streams a fresh
// worker key signed with the nonce and puts it in `FIXBOT_JEST_WORKER=<key>`, which the
// workers inherit (reporter.cjs); this file reads and deletes that variable as it loads (in
// band too, where the reporter took it out already), before any test file's code runs, and in
// a worker signs each record with the key, `<key><TAB>{"k": "fn", ...}`, one line a record,
// sent to jest's main process through jest-worker's `messageParent` (taken as this file loads)
// as a `test-case-start` message; jest hands it to the reporter's `onTestCaseStart`, which
// writes the line to the channel as it came. fixbot takes no record but `fn` with the key,
// and only after the nonce announced it (`fixbot.observe.stream`): a line the code under test
// sends the same way with a key of its own is forged. The same in jest's worker threads
// (`--workerThreads`: the variable is in the thread's copy of the environment). Limits: the
// key is in the worker's initial environment, which `/proc/self/environ` still shows after
// the delete, code that runs in the worker before this file loads (a transformer of the
// project's) can read the variable by name, and the code under test shares the worker's
// process and so the way to the main process (`process.send`, which it can wrap to read or
// drop what passes): such code can sign `fn` records (the same "by name" bar as in band, where
// code running in the main process before this file loads can take the sender first); a record
// dropped on the way leaves its test with no verdict in a file the environment was built for
// (`observer-report`), and a file record dropped leaves a file jest's reporter saw start
// (`{"k": "ran"}`, from the main process) with no record of this environment (where the
// start's run had one: `observer-missing`, fixbot/observe/judge.py `_unenvironed_files`); a
// worker jest starts again (a crash, `workerIdleMemoryLimit`) forks without the variable and
// streams nothing (its files the same finding).

const path = require('path');

const freeze = Object.freeze;
const defineProperty = Object.defineProperty;
const quote = JSON.stringify; // on a string: no `toJSON` is looked up

const REPORTER = /[\\/]fixbot_observer_[0-9a-f]{16}_reporter\.cjs$/;
const WORKER = 'FIXBOT_JEST_WORKER';
const KEY = /^[0-9a-f]{32}$/;
const MESSENGER = /[\\/]jest-worker[\\/]build[\\/]index\.js$/;

// the worker key the reporter gave jest's workers, read and deleted as this file loads (''
// where none was given)
function workerKey() {
  const given = String(process.env[WORKER] || '');
  delete process.env[WORKER];
  return KEY.test(given) ? given : '';
}

// jest-worker's `messageParent` as this worker loaded it (jest-runner's worker module did), else
// resolved beside the worker's main module; null where neither is there
function messenger() {
  for (const name of Object.keys(require.cache)) {
    const loaded = MESSENGER.test(name) && require.cache[name].exports;
    if (loaded && typeof loaded.messageParent === 'function') return loaded.messageParent;
  }
  try {
    const main = require.main && require.main.filename;
    const found = main && require(require.resolve('jest-worker', { paths: [path.dirname(main)] }));
    return found && typeof found.messageParent === 'function' ? found.messageParent : null;
  } catch (e) {
    return null;
  }
}

// a sender signing with the worker key: each record one line, `<key><TAB>{json}`, sent to jest's
// main process as a `test-case-start` message, where fixbot's reporter writes it to the channel
// (`onTestCaseStart`); nothing more once sending threw
function keyed(key, send) {
  const state = { broken: false };
  return function sendKeyed(id, outcome) {
    if (state.broken) return;
    const said = outcome === 'failed' || outcome === 'file' ? outcome : 'passed';
    const line = `${key}\t{"k":"fn","id":${quote(`${id}`)},"o":"${said}"}`;
    try {
      send(['test-case-start', ['', { fixbot: line }]]);
    } catch (e) {
      state.broken = true;
    }
  };
}

// the sender of this process's fixbot reporter, taken once (in band); else, in jest's worker,
// one signing with the worker key; an inert one where neither is there
function sender(key) {
  for (const name of Object.keys(require.cache)) {
    const loaded = REPORTER.test(name) && require.cache[name].exports;
    if (loaded && typeof loaded.events === 'function') return loaded.events();
  }
  const send = key ? messenger() : null;
  return send ? keyed(key, send) : () => undefined;
}

const SEND = sender(workerKey());
const PARENT = String(process.env.FIXBOT_JEST_ENVIRONMENT || '');

// the project's environment class, from the absolute path jest resolved for it
function parentClass() {
  if (!path.isAbsolute(PARENT)) throw new Error('fixbot: no project test environment named');
  const loaded = require(PARENT);
  const found = loaded && (loaded.TestEnvironment || loaded.default || loaded);
  if (typeof found !== 'function') throw new Error(`fixbot: no test environment in ${PARENT}`);
  return found;
}

// `<file>::<describe> > <title>`, as the reporter names a test (by hand, no `join`)
function idOf(file, test) {
  const titles = [];
  for (let at = test; at && at.parent; at = at.parent) titles.unshift(at.name);
  let id = `${file}::`;
  for (let i = 0; i < titles.length; i += 1) id += `${i ? ' > ' : ''}${titles[i]}`;
  return id;
}

function observed(file, event) {
  const name = event && event.name;
  if (name !== 'test_fn_failure' && name !== 'test_fn_success') return;
  SEND(idOf(file, event.test), name === 'test_fn_failure' ? 'failed' : 'passed');
}

class FixbotEnvironment {
  constructor(config, context) {
    const Parent = parentClass();
    const env = new Parent(config, context);
    const file = String((context && context.testPath) || '');
    SEND(file, 'file');
    const own = env.handleTestEvent;
    function handleTestEvent(event, state) {
      observed(file, event);
      return typeof own === 'function' ? own.call(env, event, state) : undefined;
    }
    defineProperty(env, 'handleTestEvent', { value: freeze(handleTestEvent), writable: false });
    return env;
  }
}

freeze(FixbotEnvironment.prototype);
freeze(FixbotEnvironment);
module.exports = FixbotEnvironment;
