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
// - the paths it gave `fs` (every function of `fs` and `fs.promises` but those known to take a
//   descriptor first or only to write, `UNWRAPPED`: `readFileSync`, `openAsBlob`, `open` for
//   reading, `statSync`, `existsSync`, a reader a later node adds, whatever its name; wrapped
//   here, before jest or the configuration runs, so every later taker of `fs`, graceful-fs's
//   copy among them, gets the wrappers), relative paths resolved against the folder of that
//   moment: round 30's jest.config.js reading jest.base.js with `fs.readFileSync` and running
//   its text (`new Function`, a `data:` URL `import()`ed), which no module cache or hook sees;
//   round 34's read with `fs.openAsBlob`, which no list of readers named. What a file's content
//   (or presence: a file stat'ed, looked for) shaped, the configuration, it is the check's; a
//   folder given names no file (`jestloaded.configured`), but the source of a rename, copy or link
//   that is a folder is noted as one (`<path>/`, `MOVES`), which fixbot reads as every file its
//   start's tree holds under it (round 34: config/ renamed, its base read under the new name).
//   jest's own reads there are package.json and the configuration file (loaded anyway); npx
//   reads .npmrc, which sets how the check's node runs. Reads outside node_modules alone, after
//   what was loaded (`MAX_BYTES` keeps the loaded first), 4000 at most.
// - a line `observation-cut` (`CUT`) where a bound cut what it hands over (`MAX_READ` paths of
//   a thread, the loader's 4000, `MAX_BYTES` written, a path holding a newline): the files past
//   it unknown, which fixbot reads as that note (`Observation.cut`, no fix of that start
//   verified), never as a file;
// - the files its worker threads read through `fs` (round 32: jest.config.js reading jest.base.js
//   in a `worker_threads` Worker that posts the text back): the preload runs as each worker
//   starts (NODE_OPTIONS is the process's, `execArgv: []` given or not), wraps the worker's own
//   `fs` and posts each file as it is read on a BroadcastChannel (`THREADS`, `THREAD_READS`);
//   the main thread takes them as they come and, at exit, synchronously what is left
//   (`receiveMessageOnPort`). A Worker given an environment of its own (`env: {}`, which node
//   would start without NODE_OPTIONS, so without the preload) is started with the preload on its
//   `execArgv` (`observeWorkers`: `worker_threads.Worker` replaced by a subclass); one made by
//   the original constructor (`Object.getPrototypeOf(Worker)`) is not itself: every thread
//   started, whatever constructor made it, is seen in each observed thread (its native handle as
//   it is made, an async hook: `making`; node's `worker` event, 16.2+, a tick later: `started`;
//   a worker thread tells the main thread) and its preload says hello as it starts
//   (`{ hello: threadId }` on `THREADS`; node's module-hooks thread from `LOADER`'s
//   `initialize`, on the port); a thread started that never said hello by the main thread's exit
//   ran without the preload (round 33: a Worker of the original constructor given `env: {}`),
//   and so did any where a thread's `worker` listener was taken out (checked at its exit,
//   `listening`): the main thread then writes a line `thread-unobserved` (`UNTHREADED`: the
//   files read unknown, which fixbot reads as that note, never as a file).
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
const ownKeys = Reflect.ownKeys; // a symbol's too: `fs.exists`'s `util.promisify.custom`
const describe = Object.getOwnPropertyDescriptors;
const define = Object.defineProperty;
const isBuffer = Buffer.isBuffer;
const { O_WRONLY } = fs.constants;

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

// whether `open`'s `flags` let the file be read ('w', 'a' and O_WRONLY alone do not; none given,
// or a callback in their place: 'r')
function reading(flags) {
  if (typeof flags === 'number') return (flags & 3) !== O_WRONLY;
  if (typeof flags !== 'string') return true;
  return flags.includes('+') || !/^[wa]/.test(flags);
}

// the functions of `fs` (and `fs.promises`) that take a descriptor first (or no path at all:
// `_toUnixTimestamp`) and those that only write a file, never reading what is there: every other
// function of theirs (a class aside) takes a path first and is wrapped (`watchReads`), whatever
// its name: a reader a later node adds (round 34: `openAsBlob`, node 19.8) noted as the others
// are. `stat`, `exists`, `readdir` and the like note their path too: a folder names no file
// (`jestloaded.configured` keeps the work tree's files), and a file whose presence or metadata
// steered the configuration is the check's (the cost chosen)
const UNWRAPPED = new Set([
  'close', 'fchmod', 'fchown', 'fdatasync', 'fstat', 'fsync', 'ftruncate', 'futimes',
  'read', 'readv', 'write', 'writev', '_toUnixTimestamp',
  'writeFile', 'appendFile', 'createWriteStream',
].flatMap((name) => [name, `${name}Sync`]));
// the functions whose `flags` argument (its index) tells whether the file is read
const FLAGGED = { open: 1, openSync: 1 };
// a file copied, hard-linked or moved elsewhere is read there (round 33: jest.config.js copying
// jest.base.js out of the work tree with `copyFileSync` and reading the copy): its source noted
// (a file read through a symbolic link is noted by where the link leads too, `note`); a folder
// there (round 34: config/ renamed, its base read under the new name, renamed back) is noted as
// a folder (`<path>/`), which fixbot reads as every file its start's tree holds under it
const MOVES = new Set(['copyFile', 'cp', 'link', 'rename'].flatMap((n) => [n, `${n}Sync`]));
const statSync = fs.statSync;

// whether `file` (a path, Buffer or `file:` URL) names a folder now
function isFolder(file) {
  try {
    const found = statSync(file, { throwIfNoEntry: false });
    return found !== undefined && found.isDirectory();
  } catch (e) {
    return false;
  }
}

// `owner[name]` replaced by a function noting the file its first argument names as read (where
// the flags, argument `flagsAt`, let it be read; a folder moved noted as one where `moves`),
// then calling the original as it was called; the original's own properties
// (`realpathSync.native`, `exists`'s `util.promisify.custom`) kept
function wrap(owner, name, flagsAt, moves) {
  const original = owner[name];
  if (typeof original !== 'function') return;
  const wrapper = function (file, ...rest) {
    if (flagsAt === undefined || reading(rest[flagsAt - 1])) note(file, moves && isFolder(file));
    return apply(original, this, [file, ...rest]);
  };
  const descriptors = describe(original);
  for (const key of ownKeys(descriptors)) {
    try {
      define(wrapper, key, descriptors[key]);
    } catch (e) {
      // a property the wrapper cannot take (`length`, `name` are configurable: none)
    }
  }
  try {
    owner[name] = wrapper;
  } catch (e) {
    // not writable: left as it is
  }
}

// whether `owner[name]` is a function to wrap: one of `fs`'s taking a path first (not a class,
// `ReadStream`, `Stats`: noted as they open through `fs.open`, or construct nothing of a path)
// (its own data property read: no getter run, a deprecated constant's warning never printed)
function pathTaking(descriptor, name) {
  return typeof descriptor.value === 'function' && !UNWRAPPED.has(name) && !/^[A-Z]/.test(name);
}

function watchReads() {
  for (const owner of [fs, fs.promises]) {
    for (const [name, descriptor] of Object.entries(describe(owner))) {
      if (pathTaking(descriptor, name)) wrap(owner, name, FLAGGED[name], MOVES.has(name));
    }
  }
  watchBindings();
}

// `process.binding` (node's native bindings, under `fs`'s functions: round 37's jest.config.js
// reading jest.base.js with `process.binding('fs').readFileUtf8`) replaced by one handing out a
// copy of each binding, made once per name, whose every function (a class aside) notes the
// file its first argument names (a descriptor, a number, names none: `note` leaves it) before
// calling the binding's own; its other properties (constants, classes, shared arrays) as they
// are. A copy, not a binding whose prototype is the original: nothing of it leads back to the
// binding itself (node keeps that for its own `fs`, whose functions are wrapped above)
const BOUND = new Map();
function watchBindings(owner = process) {
  const original = owner.binding;
  if (typeof original !== 'function') return;
  const binding = function binding(name) {
    const key = String(name);
    if (!BOUND.has(key)) BOUND.set(key, watchedBinding(apply(original, owner, [key])));
    return BOUND.get(key);
  };
  try {
    define(owner, 'binding', { value: binding, writable: true, configurable: true });
  } catch (e) {
    // not replaceable: a read through the binding is not seen
  }
}

// a copy of `bound` (a native binding) whose functions note their first argument as read
function watchedBinding(bound) {
  if (bound === null || typeof bound !== 'object') return bound;
  const copy = {};
  for (const [name, descriptor] of Object.entries(describe(bound))) {
    if (!pathTaking(descriptor, name)) {
      define(copy, name, descriptor);
      continue;
    }
    const original = descriptor.value;
    define(copy, name, {
      ...descriptor,
      value: function (file, ...rest) {
        note(file);
        return apply(original, this === copy ? bound : this, [file, ...rest]);
      },
    });
  }
  return copy;
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
  watchReads();
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
