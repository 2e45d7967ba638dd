'use strict';
// fixbot's preload for `jest --showConfig` (fixbot/run/jestenv.py `prepare`): the files node
// loaded, and those read as text, as jest read the project's configuration, handed to fixbot as
// the process exits.
//
// fixbot copies this file into the run's observer folder (fixbot's, readable by the commands'
// user) and runs the check's jest words with `--showConfig`, `NODE_OPTIONS=--require <copy>`
// and `FIXBOT_JEST_LOADED=<fd>:<inode>`: the writing end of a Unix socket pair handed to that
// one command alone (never to the check's run), checked by inode before each write. Each node
// process of the command (`npx`, then jest) writes, at its `exit`, one line a file it loaded,
// outside node_modules, as absolute paths; fixbot keeps those under the work tree:
// - its CommonJS module cache (`require.cache`: every file `require` loaded, jest.config.js and
//   what it requires by any path, computed or not);
// - the ES modules node's loader loaded (jest.config.mjs, a `"type": "module"` package's
//   jest.config.js, what they `import` or `await import()` by any specifier): module hooks
//   (`LOADER`, `require('module').register`, node >= 20.6 / 18.19) run on node's loader thread,
//   whose `load` posts each `file:` URL on a MessagePort; the main thread takes them from the
//   port synchronously at exit (`receiveMessageOnPort`), so none still in flight is lost. On a
//   node without `register` ES modules are not seen: a line `esm-unobserved` (relative, which
//   fixbot reads as that note, never as a file) says so;
// - the paths it gave `fs` and node's bindings (`loaded_reads.cjs`, copied beside it: every
//   function of `fs` and `fs.promises` taking a path, whatever its name, and the copies of the
//   bindings `process.binding` hands out, wrapped before jest or the configuration runs),
//   relative paths resolved against the folder of that moment: round 30's jest.config.js
//   reading jest.base.js with `fs.readFileSync` and running its text, which no module cache or
//   hook sees; round 34's `fs.openAsBlob`; round 37's `process.binding('fs').readFileUtf8`.
//   What a file's content (or presence) shaped, the configuration, it is the check's; a folder
//   given names no file (`jestloaded.configured`), but the source of a rename, copy or link that
//   is a folder is noted as one (`<path>/`), which fixbot reads as every file its start's tree
//   holds under it. Reads outside node_modules alone, after what was loaded (`MAX_BYTES` keeps
//   the loaded first), 4000 at most.
// - a line `observation-cut` (`CUT`) where a bound cut what it hands over (`MAX_READ` paths of
//   a thread, the loader's 4000, `MAX_BYTES` written, a path holding a newline): the files past
//   it unknown, which fixbot reads as that note (`Observation.cut`, no fix of that start
//   verified), never as a file;
// - the files its worker threads read (round 32: jest.config.js reading jest.base.js in a
//   `worker_threads` Worker): the preload runs as each worker starts (NODE_OPTIONS is the
//   process's), wraps its readers and posts each file on a BroadcastChannel (`THREADS`), which
//   the main thread drains as messages come and, at exit, synchronously (`receiveMessageOnPort`).
//   A Worker given an environment of its own (`env: {}`: no NODE_OPTIONS) is started with the
//   preload on its `execArgv` (`observeWorkers`); one made by the original constructor is not:
//   every thread started is seen as it is made (an async hook, `making`; node's `worker` event,
//   `started`) and each preload says hello (`{ hello: threadId }`; node's module-hooks thread
//   from `LOADER`'s `initialize`): a thread that never said hello by the main thread's exit
//   (round 33), or a thread's `worker` listener taken out (`listening`), makes the main thread
//   write `thread-unobserved` (`UNTHREADED`, read as that note, never as a file).
// The main thread alone writes (NODE_OPTIONS reaches the loader's thread too: it writes nothing).
//
// Only the start commit's run is read (fixbot/run/phases/fixing.py `check_files`): the
// configuration then is the project's own, not a fix's, which could take itself out of the
// cache or write lines of its own.

const fs = require('fs');
const threads = require('worker_threads');
const { fileURLToPath } = require('url');

const VARIABLE = 'FIXBOT_JEST_LOADED';
const MAX_BYTES = 60 * 1024; // written at most: under the socket's buffer, never blocking exit
const UNOBSERVED = 'esm-unobserved'; // this node cannot hook its ES module loader
const UNTHREADED = 'thread-unobserved'; // a thread started without this preload (`unthreaded`)
const CUT = 'observation-cut'; // a bound of this preload's was reached: what it hands over is cut
// node's module hooks, run on its loader thread: each `file:` URL loaded, outside node_modules,
// posted on the port fixbot's preload hands over (4000 at most); the thread says hello on it
// first (its `threadId`: started by node itself, with the preload on a node that runs it there
// or not, it is seen)
const LOADER = `
import { threadId } from 'node:worker_threads';
let port = null;
let left = 4000;
export function initialize(data) {
  port = data && data.port ? data.port : null;
  if (port !== null) port.postMessage({ hello: threadId });
}
export async function load(url, context, next) {
  if (port !== null && url.startsWith('file:') && !/[\\\\/]node_modules[\\\\/]/.test(url)) {
    left -= 1;
    if (left >= 0) port.postMessage(left > 0 ? url : { cut: true });
  }
  return next(url, context);
}
`;

function channel() {
  const given = String(process.env[VARIABLE] || '').split(':').map(Number);
  if (given.length !== 2 || !given.every(Number.isInteger)) return null;
  return { fd: given[0], ino: given[1] };
}

// the port the loader thread posts on, null where nothing is observed or `register` is missing
function hooked(register, MessageChannel) {
  if (typeof register !== 'function' || typeof MessageChannel !== 'function') return null;
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  try {
    const source = `data:text/javascript,${encodeURIComponent(LOADER)}`;
    register(source, { data: { port: port2 }, transferList: [port2] });
  } catch (e) {
    return null;
  }
  return port1;
}

// the files read through `fs` (absolute paths, outside node_modules), in order
const read = new Set();
const MAX_READ = 4000;
const { resolve } = require('path');
const apply = Reflect.apply;
const define = Object.defineProperty;
const isBuffer = Buffer.isBuffer;
// `fs`'s readers and node's bindings wrapped to note each path they are given (`loaded_reads.cjs`,
// copied beside this file)
const { watchReads } = require('./loaded_reads.cjs');

// the channel the worker threads' preloads post the files they read on (`THREADS`, named by
// `THREAD_READS`), and the file (an absolute path) a worker thread's preload posted, noted as read
const THREAD_READS = 'fixbot-jest-read';
let posted = 0; // the files this worker thread posted (`MAX_READ` at most)
let cut = false; // a bound reached (`MAX_READ`, the loader's, `MAX_BYTES`): `CUT` written
function noteThread(name) {
  if (typeof name === 'string' && !/[\\/]node_modules[\\/]/.test(name)) keep(name);
}

// the worker threads started in any observed thread (`process.on('worker')`: `started` in this
// one, `{ made: threadId }` posted by the others) and those whose preload said hello
// (`{ hello: threadId }`), by threadId, and whether a thread's `worker` listener was taken out
// (`{ lost: true }`): the main thread's, which writes `UNTHREADED` where one was started unseen
const made = new Set();
const greeted = new Set();
let lost = false;

// a message on `THREADS` (or the loader's port) that is no file: noted; whether it was one
function heard(message) {
  if (message === null || typeof message !== 'object') return false;
  if (typeof message.hello === 'number') greeted.add(message.hello);
  if (typeof message.made === 'number') made.add(message.made);
  if (message.lost === true) lost = true;
  if (message.cut === true) cut = true;
  return true;
}

// what a worker thread's preload posted: a file read, or a thread's news (`heard`)
function threadMessage(data) {
  if (!heard(data)) noteThread(data);
}

// `file` (a path, a Buffer or a `file:` URL; a descriptor or FileHandle is not one) noted as read
// (a folder, `<path>/`, where `folder`): in the main thread kept in `read`, in a worker thread
// posted on `THREADS` as it is read (a worker may be ended, or outlive the main thread's exit,
// before its own `exit`); past `MAX_READ` the observation is cut
function note(file, folder = false) {
  try {
    let name = file;
    if (isBuffer(name)) name = name.toString('utf8');
    else if (name instanceof URL) name = fileURLToPath(name);
    if (typeof name !== 'string' || /[\\/]node_modules[\\/]/.test(name)) return;
    const tail = folder ? '/' : '';
    for (const path of [resolve(name), ...led(name)]) keep(path + tail);
  } catch (e) {
    // not a file's path, or the channel closed: not noted
  }
}

// `path` noted: kept in the main thread, posted on `THREADS` in a worker thread, or the
// observation cut (`MAX_READ` reached)
function keep(path) {
  if (THREADS === null || threads.isMainThread) {
    if (read.has(path)) return;
    if (read.size < MAX_READ) read.add(path);
    else cut = true;
  } else if (posted < MAX_READ) {
    posted += 1;
    THREADS.postMessage(path);
  } else if (posted === MAX_READ) {
    posted += 1;
    THREADS.postMessage({ cut: true });
  }
}

// where `name` leads through symbolic links, where that is another path ([] where it is the same,
// or none: a file not there yet)
const realpath = fs.realpathSync;
function led(name) {
  try {
    const real = realpath(name);
    return real === resolve(name) ? [] : [real];
  } catch (e) {
    return [];
  }
}

// the channel of the worker threads' reads: the main thread's (observed) takes what they post,
// as it comes and, at exit, what is left (`threadReads`); each worker thread's posts on it
function threadChannel(BroadcastChannel, observed, isMain = threads.isMainThread) {
  if (typeof BroadcastChannel !== 'function' || (isMain && !observed)) return null;
  try {
    const opened = new BroadcastChannel(THREAD_READS);
    opened.unref();
    if (isMain) opened.onmessage = (event) => threadMessage(event.data);
    return opened;
  } catch (e) {
    return null;
  }
}

// whether `options` (a Worker's) give the worker an environment of its own (an object, not
// `SHARE_ENV`): node takes the worker's NODE_OPTIONS, and so this preload, from it alone
function ownEnv(options) {
  return options !== null && typeof options === 'object' && options.env !== null &&
    typeof options.env === 'object';
}

// `threads.Worker` replaced by a subclass that starts a worker given an environment of its own
// (`env: {}` would start it without this preload) with this preload on its `execArgv`, as node
// would run it from NODE_OPTIONS; every other Worker as it was made
function observeWorkers(Worker = threads.Worker, preload = __filename) {
  if (typeof Worker !== 'function') return;
  class Observed extends Worker {
    constructor(file, options) {
      if (!ownEnv(options)) super(file, options);
      else {
        const given = Array.isArray(options.execArgv) ? options.execArgv : process.execArgv;
        super(file, { ...options, execArgv: [...given, '--require', preload] });
      }
    }
  }
  try {
    define(Observed, 'name', { value: Worker.name });
    threads.Worker = Observed;
    require('module').syncBuiltinESMExports();
  } catch (e) {
    // not replaceable: a worker given its own environment is not observed
  }
}

// the native handles of the Workers this thread started (`MAX_READ` at most), seen as each is
// made: node's `worker` event comes a tick later, which a process that exits at once (jest
// after `--showConfig` printed) never reaches; each handle's `threadId` is read when it is told
const handles = new Set();
function making(asyncId, type, trigger, resource) {
  if (type !== 'WORKER') return;
  if (handles.size < MAX_READ) handles.add(resource);
  else cut = true;
}

// `ids` (threadIds of Workers this thread started) noted as made, in the main thread, or
// posted to it
function madeHere(ids) {
  for (const id of ids) {
    if (typeof id !== 'number') continue;
    if (threads.isMainThread) made.add(id);
    else if (THREADS !== null) THREADS.postMessage({ made: id });
  }
}

// the threadIds of the Workers this thread started (its handles', `making`)
function handled() {
  const ids = [];
  for (const handle of handles) {
    try {
      ids.push(handle.threadId);
    } catch (e) {
      // a handle without one: none
    }
  }
  return ids;
}

// `worker` (a Worker this thread started, by any constructor: node emits `worker` for each)
// noted as made
function started(worker) {
  try {
    madeHere([worker.threadId]);
  } catch (e) {
    // the channel closed: this thread's own hello is then missing too, or was taken already
  }
}

// whether this thread's `worker` listener (`started`) is still on `process` (code that takes
// it out may start a worker its `making` alone sees)
const listeners = process.listeners;
function listening(owner = process) {
  try {
    return apply(listeners, owner, ['worker']).includes(started);
  } catch (e) {
    return false;
  }
}

// this thread's own news at its start: the preload runs here (its hello) and sees the threads
// it starts (`making`, and `started` a tick later)
function watchThreads(hooks = require('async_hooks')) {
  try {
    hooks.createHook({ init: making }).enable();
  } catch (e) {
    // no async hooks: the `worker` event alone
  }
  process.on('worker', started);
  if (threads.isMainThread) return;
  try {
    THREADS.postMessage({ hello: threads.threadId });
  } catch (e) {
    // no channel: no hello, the thread counts as unobserved
  }
}

// whether a thread was started without the preload, as the main thread exits: one started
// (seen made, or told made) that never said hello, or a thread's `worker` listener taken out
function unthreaded() {
  madeHere(handled());
  if (lost || !listening()) return true;
  for (const id of made) if (!greeted.has(id)) return true;
  return false;
}

const CHANNEL = threads.isMainThread ? channel() : null;
const THREADS = threadChannel(threads.BroadcastChannel, CHANNEL !== null);
// this preload run once in a thread (a worker given it by NODE_OPTIONS and `execArgv` both)
const RUNS = Symbol.for('fixbot.jest.loaded');
const FIRST = !globalThis[RUNS];
globalThis[RUNS] = true;
if (FIRST && (CHANNEL !== null || !threads.isMainThread)) {
  watchReads(note);
  observeWorkers();
  watchThreads();
}
const PORT = CHANNEL === null ? null : hooked(require('module').register, threads.MessageChannel);
const writeSync = fs.writeSync;
const fstatSync = fs.fstatSync;
const keys = Object.keys;
const receive = threads.receiveMessageOnPort;
const cache = require.cache;

// the files the ES module loader loaded, as paths, taken off the port now
function imported(port = PORT) {
  const found = [];
  if (port === null) return found;
  for (let got = receive(port); got !== undefined; got = receive(port)) {
    if (heard(got.message)) continue; // the loader thread's hello
    try {
      found.push(fileURLToPath(String(got.message)));
    } catch (e) {
      // not a file URL: left out
    }
  }
  return found;
}

// the files the worker threads posted and the main thread has not taken yet, noted now
function threadReads(channel = THREADS) {
  if (channel === null || !threads.isMainThread) return;
  try {
    for (let got = receive(channel); got !== undefined; got = receive(channel)) {
      threadMessage(got.message);
    }
  } catch (e) {
    // the channel closed: what it took is kept
  }
}

function loaded() {
  if (CHANNEL === null) return;
  threadReads();
  const files = [...keys(cache), ...imported(), ...read];
  let text = PORT === null ? `${UNOBSERVED}\n` : '';
  if (unthreaded()) text += `${UNTHREADED}\n`;
  const seen = new Set();
  const room = MAX_BYTES - CUT.length - 1; // `CUT`'s line always fits
  for (const name of files) {
    if (/[\\/]node_modules[\\/]/.test(name) || seen.has(name)) continue;
    if (name.includes('\n') || text.length + name.length + 1 > room) {
      cut = true; // a path no line holds, or past the bound: not handed over
      continue;
    }
    seen.add(name);
    text += `${name}\n`;
  }
  if (cut) text = `${CUT}\n${text}`;
  try {
    if (!text || fstatSync(CHANNEL.fd).ino !== CHANNEL.ino) return;
    const data = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < data.length) done += writeSync(CHANNEL.fd, data, done, data.length - done);
  } catch (e) {
    // the channel is gone: nothing is handed over
  }
}

// as a worker thread exits, the main thread told the Workers it started (`made`) and that its
// `worker` listener was taken out (`lost`)
function leaving() {
  try {
    madeHere(handled());
    if (!listening() && THREADS !== null) THREADS.postMessage({ lost: true });
  } catch (e) {
    // the channel closed
  }
}

if (threads.isMainThread) process.on('exit', loaded);
else if (FIRST) process.on('exit', leaving);
