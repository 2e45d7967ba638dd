'use strict';
// fixbot's test environment for jest (30.x, jest-circus): the verdict of each test's function
// streamed from jest-circus's events as they are dispatched, outside the test's realm.
//
// fixbot copies this file beside the reporter (`<module>_environment.cjs` beside
// `<module>_reporter.cjs`, fixbot/observe/channel.py) and names it on jest's command line
// (`--testEnvironment=<path>`, fixbot/logs/dialects/jest.py `observe`). It stands for the
// project's own environment: the constructor builds the environment the project configured
// (`testEnvironment` in `package.json`'s `jest`, `jest.config.json`, or spelled as a string in
// `jest.config.{js,cjs,mjs,ts}`; else `node`), required from the project's root (or jest's
// own installation), hands that instance back to jest, and sets its `handleTestEvent` (which
// calls the project environment's own, if it has one). jest-circus adds that method to its
// event handlers (after its own) and calls it, outside the vm sandbox, as each event is
// dispatched: a `test_fn_failure` or `test_fn_success` (jest-circus's verdict on the test's
// function, `test.failing` included) is streamed then, as
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
// `globalThis[Symbol.for('EVENT_HANDLERS')]`). `test_done` is not streamed: its verdict is the test's `errors`, which the code under test
// can empty, and the reporter already streams it.
//
// Signing: the nonce is the reporter's. Where the test file runs in band (one test file, or
// `--runInBand`) this file is loaded in jest's main process after the reporter, which read the
// nonce when it loaded; this file requires the reporter's module (the same instance, node's
// module cache) and takes its event sender once, as it loads, before any test file runs
// (`FixbotReporter.events`: a second taker gets an inert one, so the code under test, which
// can reach that module through `require.cache`, cannot send `fn` records). In jest's workers
// (several test files) the reporter's module loads afresh in the worker, where the channel's
// variable is gone (the reporter deleted it before any worker started) and the settings
// channel is drained: nothing is streamed there (open: the workers are not observed this way).

const fs = require('fs');
const path = require('path');

const freeze = Object.freeze;
const defineProperty = Object.defineProperty;

const REPORTER = __filename.replace(/_environment\.cjs$/, '_reporter.cjs');
const SEND = REPORTER !== __filename ? require(REPORTER).events() : () => undefined;

const CONFIGS = ['jest.config.js', 'jest.config.cjs', 'jest.config.mjs', 'jest.config.ts'];
const SPELLED = /\btestEnvironment\s*:\s*['"]([^'"]+)['"]/;

// the `testEnvironment` the project configured, as written ('' where none)
function configured(root) {
  try {
    const text = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
    const named = (JSON.parse(text).jest || {}).testEnvironment;
    if (typeof named === 'string') return named;
  } catch (e) {
    // none, or not JSON
  }
  try {
    const named = JSON.parse(fs.readFileSync(path.join(root, 'jest.config.json'), 'utf8'));
    if (typeof named.testEnvironment === 'string') return named.testEnvironment;
  } catch (e) {
    // none
  }
  for (const name of CONFIGS) {
    try {
      const found = SPELLED.exec(fs.readFileSync(path.join(root, name), 'utf8'));
      if (found) return found[1];
    } catch (e) {
      // none
    }
  }
  return '';
}

// the project's environment class: `node`, `jsdom` or another name as jest resolves it
// (`jest-environment-<name>` first), from the project's root, then jest's installation
function parentClass(root) {
  const named = configured(root) || 'node';
  const where = [root];
  for (const file of [require.main && require.main.filename, process.argv[1]]) {
    if (file) where.push(path.dirname(file));
  }
  const names = named.startsWith('.') || path.isAbsolute(named)
    ? [path.resolve(root, named)]
    : [`jest-environment-${named}`, named];
  let failure = null;
  for (const name of names) {
    try {
      const loaded = require(require.resolve(name, { paths: where }));
      const found = loaded && (loaded.TestEnvironment || loaded.default || loaded);
      if (typeof found === 'function') return found;
    } catch (e) {
      failure = failure || e;
    }
  }
  throw failure || new Error(`fixbot: no test environment ${named}`);
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
    const root = config && config.projectConfig ? config.projectConfig.rootDir : process.cwd();
    const Parent = parentClass(String(root));
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
