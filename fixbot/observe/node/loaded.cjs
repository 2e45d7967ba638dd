'use strict';
// fixbot's preload for `jest --showConfig` (fixbot/run/jestenv.py `prepare`): the files node
// loaded as jest read the project's configuration, handed to fixbot as the process exits.
//
// fixbot copies this file into the run's observer folder (fixbot's, readable by the commands'
// user) and runs the check's jest words with `--showConfig`, `NODE_OPTIONS=--require <copy>`
// and `FIXBOT_JEST_LOADED=<fd>:<inode>`: the writing end of a Unix socket pair handed to that
// one command alone (never to the check's run), checked by inode before each write. Each node
// process of the command (`npx`, then jest) writes, at its `exit`, one line a file of its
// module cache (`require.cache`: every CommonJS file `require` loaded, jest.config.js and what
// it requires by any path, computed or not), outside node_modules, as absolute paths; fixbot
// keeps those under the work tree. ES modules (`import`) are not in that cache: not seen.
//
// Only the start commit's run is read (fixbot/run/phases/fixing.py `check_files`): the
// configuration then is the project's own, not a fix's, which could take itself out of the
// cache or write lines of its own.

const fs = require('fs');

const VARIABLE = 'FIXBOT_JEST_LOADED';
const MAX_BYTES = 60 * 1024; // written at most: under the socket's buffer, never blocking exit

function channel() {
  const given = String(process.env[VARIABLE] || '').split(':').map(Number);
  if (given.length !== 2 || !given.every(Number.isInteger)) return null;
  return { fd: given[0], ino: given[1] };
}

const CHANNEL = channel();
const writeSync = fs.writeSync;
const fstatSync = fs.fstatSync;
const keys = Object.keys;
const cache = require.cache;

function loaded() {
  if (CHANNEL === null) return;
  let text = '';
  for (const name of keys(cache)) {
    if (/[\\/]node_modules[\\/]/.test(name) || name.includes('\n')) continue;
    if (text.length + name.length + 1 > MAX_BYTES) break;
    text += `${name}\n`;
  }
  try {
    if (!text || fstatSync(CHANNEL.fd).ino !== CHANNEL.ino) return;
    const data = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < data.length) done += writeSync(CHANNEL.fd, data, done, data.length - done);
  } catch (e) {
    // the channel is gone: nothing is handed over
  }
}

process.on('exit', loaded);
