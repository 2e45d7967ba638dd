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
// reporter, as the run starts in workers (`onRunStart`, before jest forks them), makes a key
// folder and names it in `FIXBOT_JEST_WORKER=<folder>` (a path, no secret: the workers inherit
// it, and `/proc/self/environ` shows it), and as each of the first files starts (one a worker,
// before jest hands the file over) streams a fresh key signed with the nonce and writes it to
// a file of its own there (reporter.cjs `giveKey`). This file, as it loads in a worker (in
// band the variable is not set), before any test file's code runs, deletes the variable and
// takes one key file: opened, unlinked (the unlink that succeeds takes it; a worker racing
// for it moves on) and read through its descriptor, its digits turned to 16 bytes and zeroed,
// never a string (`workerKey`): once this file loaded, the folder holds no key of this worker.
// Each record is then one line headed by its HMAC-SHA256 under the key,
// `<mac><TAB>{"k": "fn", ...}` (`keyed`: the key never leaves this file, so a line the code
// under test reads on the way, through a wrapped `process.send`, gives it no key), computed by
// arithmetic on typed arrays taken at load (`sha256`, `mac`: node's `crypto` objects reach
// their native handles through prototypes the code under test can patch, which would make
// them a signing oracle or hand the key to it), sent to jest's main process through
// jest-worker's `messageParent` (taken as this file loads) as a `test-case-start` message;
// jest hands it to the reporter's `onTestCaseStart`, which writes the line to the channel as
// it came. fixbot takes no record but `fn` under a key, only after the nonce announced it,
// and only where its test file's records all came under that one key
// (`fixbot.observe.jestrecords.signed`): a line the code under test sends the same way under
// a key of its own, or another worker's, is forged. The same in jest's worker threads
// (`--workerThreads`: the variable is in the thread's copy of the environment). Limits: code
// that runs in the worker before this file loads (a transformer of the project's: jest loads
// this file through it) can take or read a key file first; code of the project's left running
// in a worker (a timer of an earlier file) can read the key file of a worker whose
// environment has not loaded yet and sign the records of the files that worker runs (that
// worker's environment, where the file was taken, streams nothing: its files `observer-missing`
// where the start's run had their records); the key is 16 bytes of the worker's memory, which
// `/proc/self/mem` or node's `inspector` reach (the same bar as the nonce in band); the code
// under test shares the worker's process and so the way to the main process (`process.send`,
// which it can wrap to drop or replay what passes): a record dropped on the way leaves its
// test with no verdict in a file the environment was built for (`observer-report`), and a file
// record dropped leaves a file jest's reporter saw start (`{"k": "ran"}`, from the main
// process) with no record of this environment (where the start's run had one:
// `observer-missing`, fixbot/observe/judge.py `_unenvironed_files`); a worker jest starts
// again (a crash, `workerIdleMemoryLimit`) forks without the variable and streams nothing
// (its files the same finding).

const path = require('path');
const fs = require('fs');

const freeze = Object.freeze;
const defineProperty = Object.defineProperty;
const quote = JSON.stringify; // on a string: no `toJSON` is looked up
const bufferFrom = Buffer.from.bind(Buffer);
const Bytes = Uint8Array; // typed arrays: an index reads no prototype the project can change
const Words = Int32Array;
const HEX = '0123456789abcdef';
// a typed array's length through the getter as it was at load (the code under test could put
// one of its own on the prototype, which would be handed the array, the key's among them)
const lengthOf = Function.prototype.call.bind(
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Bytes.prototype), 'length').get,
);

const REPORTER = /[\\/]fixbot_observer_[0-9a-f]{16}_reporter\.cjs$/;
const WORKER = 'FIXBOT_JEST_WORKER';
const MESSENGER = /[\\/]jest-worker[\\/]build[\\/]index\.js$/;

// the value of a hex digit's byte (lower case), -1 for any other byte
function digitOf(byte) {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  return byte >= 0x61 && byte <= 0x66 ? byte - 0x61 + 10 : -1;
}

// the key a worker takes, 32 hex digits (the first `n` bytes of `read`), as bytes (16); null
// where they are no key. Read from the bytes, never made a string (one would stay in the heap)
function keyBytes(read, n) {
  if (n !== 32) return null;
  const key = new Bytes(16);
  for (let i = 0; i < 32; i += 1) {
    const digit = digitOf(read[i]);
    if (digit < 0) return null;
    key[i >> 1] |= i & 1 ? digit : digit << 4;
  }
  return key;
}

// one key file of the folder `FIXBOT_JEST_WORKER` names (the reporter's, `giveKey`), taken: opened,
// unlinked (the unlink that succeeds takes it: a worker racing for it moves on), read through the
// descriptor; the key as bytes, null where none was left. The variable is deleted (in band it
// names nothing: the reporter gives no key there)
function workerKey() {
  const folder = String(process.env[WORKER] || '');
  delete process.env[WORKER];
  if (!path.isAbsolute(folder)) return null;
  let names = [];
  try {
    names = fs.readdirSync(folder);
  } catch (e) {
    return null;
  }
  for (const name of names) {
    const key = taken(path.join(folder, name));
    if (key !== null) return key;
  }
  return null;
}

function taken(file) {
  let fd = -1;
  try {
    fd = fs.openSync(file, 'r');
    fs.unlinkSync(file);
    const read = Buffer.alloc(64);
    const n = fs.readSync(fd, read, 0, 64, 0);
    const key = keyBytes(read, n);
    read.fill(0); // the digits gone from memory: the key is its 16 bytes alone
    return key;
  } catch (e) {
    return null; // another worker's, or gone
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

// SHA-256 (FIPS 180-4) of `data` (a Uint8Array) by arithmetic on typed arrays alone: nothing
// the code under test can replace once this file loaded (node's `crypto` objects reach their
// native handles through prototypes it can patch, a signing oracle or the key handed over)
const ROUND = new Words([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL = new Words([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

function rotate(x, n) {
  return (x >>> n) | (x << (32 - n));
}

function compress(h, w, block, at) {
  for (let i = 0; i < 16; i += 1) {
    const j = at + i * 4;
    w[i] = (block[j] << 24) | (block[j + 1] << 16) | (block[j + 2] << 8) | block[j + 3];
  }
  for (let i = 16; i < 64; i += 1) {
    const s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >>> 3);
    const s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  // the working variables a..h as v[0..7], no destructuring (an array iterator, the project's
  // to replace, would be handed the state)
  const v = new Words(h);
  for (let i = 0; i < 64; i += 1) {
    const e = v[4];
    const a = v[0];
    const ch = (e & v[5]) ^ (~e & v[6]);
    const t1 = (v[7] + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ch + ROUND[i] + w[i]) | 0;
    const maj = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
    const t2 = ((rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + maj) | 0;
    for (let j = 7; j > 0; j -= 1) v[j] = v[j - 1];
    v[4] = (v[4] + t1) | 0;
    v[0] = (t1 + t2) | 0;
  }
  for (let i = 0; i < 8; i += 1) h[i] = (h[i] + v[i]) | 0;
}

function sha256(data) {
  const length = lengthOf(data);
  const size = ((length + 72) >> 6) << 6;
  const padded = new Bytes(size);
  for (let i = 0; i < length; i += 1) padded[i] = data[i];
  padded[length] = 0x80;
  const bits = length * 8;
  for (let i = 0; i < 8; i += 1) padded[size - 1 - i] = (bits / 2 ** (8 * i)) & 0xff;
  const h = new Words(INITIAL);
  const w = new Words(64);
  for (let at = 0; at < size; at += 64) compress(h, w, padded, at);
  const digest = new Bytes(32);
  for (let i = 0; i < 32; i += 1) digest[i] = (h[i >> 2] >>> (24 - 8 * (i & 3))) & 0xff;
  return digest;
}

// HMAC-SHA256 (RFC 2104) of `text` (UTF-8) under `key` (16 bytes), as 64 hex digits
function mac(key, text) {
  const message = bufferFrom(text, 'utf8');
  const length = lengthOf(message);
  const inner = new Bytes(64 + length);
  const outer = new Bytes(64 + 32);
  for (let i = 0; i < 64; i += 1) {
    const byte = i < 16 ? key[i] : 0;
    inner[i] = byte ^ 0x36;
    outer[i] = byte ^ 0x5c;
  }
  for (let i = 0; i < length; i += 1) inner[64 + i] = message[i];
  const first = sha256(inner);
  for (let i = 0; i < 32; i += 1) outer[64 + i] = first[i];
  const digest = sha256(outer);
  let hex = '';
  for (let i = 0; i < 32; i += 1) hex += HEX[digest[i] >> 4] + HEX[digest[i] & 15];
  return hex;
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

// a sender signing with the worker's key: each record one line, `<mac><TAB>{json}` (the key
// never leaves this file), sent to jest's main process as a `test-case-start` message, where
// fixbot's reporter writes it to the channel (`onTestCaseStart`); nothing more once sending threw
function keyed(key, send) {
  const state = { broken: false };
  return function sendKeyed(id, outcome) {
    if (state.broken) return;
    const said = outcome === 'failed' || outcome === 'file' ? outcome : 'passed';
    const json = `{"k":"fn","id":${quote(`${id}`)},"o":"${said}"}`;
    try {
      send(['test-case-start', ['', { fixbot: `${mac(key, json)}\t${json}` }]]);
    } catch (e) {
      state.broken = true;
    }
  };
}

// the sender of this process's fixbot reporter, taken once (in band); else, in jest's worker,
// one signing under the worker's key (`key`, 16 bytes); an inert one where neither is there
function sender(key) {
  for (const name of Object.keys(require.cache)) {
    const loaded = REPORTER.test(name) && require.cache[name].exports;
    if (loaded && typeof loaded.events === 'function') return loaded.events();
  }
  const send = key !== null ? messenger() : null;
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
