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
// Signing: the nonce is the reporter's. Where the test file runs in band (one test file, or
// `--runInBand`) this file is loaded in jest's main process after fixbot's reporter (this
// run's copy, `fixbot_observer_<hex>_reporter.cjs`, which read the nonce from the channel when
// it loaded); this file finds that module in node's module cache (no path of the run is in
// this file or its path) and takes its event sender once, as it loads, before any test file
// runs (`FixbotReporter.events`: a second taker gets an inert one, so the code under test,
// which can reach that module through `require.cache`, cannot send `fn` records). In jest's
// workers (several test files) no reporter is loaded in the worker: nothing is streamed there
// (open: the workers are not observed this way). What a worker has (measured, jest 30.5,
// `--maxWorkers=2`): `FIXBOT_JEST_ENVIRONMENT` (so it builds the project's environment), the
// channel's writing end, inherited open, but not the nonce (`FIXBOT_OBSERVER` deleted and the
// settings drained by the main process's reporter before any worker starts): to observe the
// workers the nonce (or a key of each worker's) would have to reach them, where the code under
// test shares the worker's process and can read it as it can the main process's in band.

const path = require('path');

const freeze = Object.freeze;
const defineProperty = Object.defineProperty;

const REPORTER = /[\\/]fixbot_observer_[0-9a-f]{16}_reporter\.cjs$/;

// the sender of this process's fixbot reporter, taken once; an inert one where none is loaded
function sender() {
  for (const name of Object.keys(require.cache)) {
    const loaded = REPORTER.test(name) && require.cache[name].exports;
    if (loaded && typeof loaded.events === 'function') return loaded.events();
  }
  return () => undefined;
}

const SEND = sender();
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
