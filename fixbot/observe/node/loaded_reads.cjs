'use strict';
// The readers of fixbot's preload for `jest --showConfig` (`loaded.cjs`, copied beside it into
// the run's observer folder, fixbot/run/jestloaded.py `loading`): `watchReads(note)` wraps, as
// the preload loads in a thread (before jest or the configuration runs, so every later taker
// of `fs`, graceful-fs's copy among them, gets the wrappers), every function of `fs` and
// `fs.promises` taking a path (`pathTaking`: all but `UNWRAPPED`, whatever its name) and
// `process.binding` (`watchBindings`: node's native bindings, under `fs`'s functions), each
// calling `note(path, folder)` with the path it is given before the original runs; which files
// are kept, and how they are handed over, is `loaded.cjs`'s.

const fs = require('fs');

const apply = Reflect.apply;
const ownKeys = Reflect.ownKeys; // a symbol's too: `fs.exists`'s `util.promisify.custom`
const describe = Object.getOwnPropertyDescriptors;
const define = Object.defineProperty;
const { O_WRONLY } = fs.constants;

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
function wrap(owner, name, flagsAt, moves, note) {
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

function watchReads(note) {
  for (const owner of [fs, fs.promises]) {
    for (const [name, descriptor] of Object.entries(describe(owner))) {
      if (pathTaking(descriptor, name)) wrap(owner, name, FLAGGED[name], MOVES.has(name), note);
    }
  }
  watchBindings(process, note);
}

// `process.binding` (node's native bindings, under `fs`'s functions: round 37's jest.config.js
// reading jest.base.js with `process.binding('fs').readFileUtf8`) replaced by one handing out a
// copy of each binding, made once per name, whose every function (a class aside) notes the
// file its first argument names (a descriptor, a number, names none: `note` leaves it) before
// calling the binding's own; its other properties (constants, classes, shared arrays) as they
// are. A copy, not a binding whose prototype is the original: nothing of it leads back to the
// binding itself (node keeps that for its own `fs`, whose functions are wrapped above)
const BOUND = new Map();
function watchBindings(owner, note) {
  const original = owner.binding;
  if (typeof original !== 'function') return;
  const binding = function binding(name) {
    const key = String(name);
    if (!BOUND.has(key)) BOUND.set(key, watchedBinding(apply(original, owner, [key]), note));
    return BOUND.get(key);
  };
  try {
    define(owner, 'binding', { value: binding, writable: true, configurable: true });
  } catch (e) {
    // not replaceable: a read through the binding is not seen
  }
}

// a copy of `bound` (a native binding) whose functions note their first argument as read
function watchedBinding(bound, note) {
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

module.exports = { watchReads };
