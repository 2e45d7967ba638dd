"""fixbot's reading of the node runners' own records (`stream.parse` hands each to its function):
the worker keys that sign a line of jest's workers (`signed`: a `key` record announces one, a
line headed by the HMAC-SHA256 of its JSON under one is taken where it is an `fn` record and
its file's records are all of that key), jest-circus's verdicts on a test's function and the
files fixbot's test environment was built for (`function`, an `fn` record), the test files
jest's reporter saw start (`ran`) and a node runner's tries of a test (`tried`, also from the
reporter's `r` records' `n`). Each adds to an `Observation` (`functions`, `environed`,
`jested`, `tries`); `scratch` is what reading keeps between records: its `keys`, the worker
keys the nonce announced, and `signers`, the key each test file's worker records came under."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Protocol

from fixbot.core.observed import Observation

MAX_TRIES = 1000  # a test's tries kept at most (the node reporter's `n`)
MAX_FILES = 10000  # test files fixbot's jest environment was built for, kept at most
MAX_KEYS = 64  # worker keys announced in one stream, kept at most (one a jest worker)
KEY_DIGITS = frozenset("0123456789abcdef")
MAC_DIGITS = 64  # an HMAC-SHA256, in hex


class Keyed(Protocol):
    """What these functions read of reading's scratch (`stream._Scratch`)."""

    keys: set[str]
    signers: dict[str, str]


def signed(given: str, body: str, nonce: str, scratch: Keyed) -> dict[str, object] | None:
    """The record `body` holds where `given` signs it: the nonce, any record (a `key` record's
    worker key kept in `scratch`, `MAX_KEYS` at most); else the HMAC-SHA256 of `body` (its
    UTF-8 bytes) under a worker key announced before it (jest's workers:
    `node/environment.cjs`), an `fn` record alone, whose test file (its id up to `::`) had no
    record under another key (`scratch.signers`: a worker's key signs the files that worker
    ran). None otherwise."""
    if given == nonce:
        record = _record(body)
        if record is not None and record.get("k") == "key":
            _announced(record.get("key"), nonce, scratch)
        return record
    key = _signer(given, body, scratch.keys)
    record = _record(body) if key is not None else None
    if key is None or record is None or record.get("k") != "fn":
        return None
    file = str(record.get("id", "")).partition("::")[0]
    if scratch.signers.setdefault(file, key) != key:
        return None
    return record


def _record(body: str) -> dict[str, object] | None:
    """The JSON object `body` holds, None where it holds none."""
    try:
        record = json.loads(body)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _signer(given: str, body: str, keys: set[str]) -> str | None:
    """The announced key under which `given` is the HMAC-SHA256 of `body`, None where none."""
    if len(given) != MAC_DIGITS or not set(given) <= KEY_DIGITS:
        return None
    data = body.encode("utf-8", "surrogatepass")
    for key in sorted(keys):
        expected = hmac.new(bytes.fromhex(key), data, hashlib.sha256).hexdigest()
        if hmac.compare_digest(expected, given):
            return key
    return None


def _announced(key: object, nonce: str, scratch: Keyed) -> None:
    """A worker key the nonce announced (32 hex digits, not the nonce) kept in `scratch`
    (`MAX_KEYS` at most)."""
    hexed = isinstance(key, str) and len(key) == 32 and set(key) <= KEY_DIGITS
    if hexed and key != nonce and len(scratch.keys) < MAX_KEYS:
        scratch.keys.add(str(key))


def function(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """jest-circus's verdict on a run of `test`'s function, streamed by fixbot's test
    environment as it was dispatched (`node/environment.cjs`): kept in order (`MAX_TRIES` at
    most), its runs counted as the test's tries."""
    if record.get("o") == "file":  # the environment built for a test file
        if test not in seen.environed and len(seen.environed) < MAX_FILES:
            seen.environed.append(test)
        return
    runs = seen.functions.setdefault(test, [])
    if record.get("o") in ("failed", "passed") and len(runs) < MAX_TRIES:
        runs.append(str(record["o"]))
        tried(seen, test, len(runs))


def ran(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A test file jest started to run, as its reporter in the main process saw it
    (`node/reporter.cjs`'s `onTestFileStart`): kept in `seen.jested` (`MAX_FILES` at most)."""
    if test and test not in seen.jested and len(seen.jested) < MAX_FILES:
        seen.jested.append(test)


def tried(seen: Observation, test: str, tries: object) -> None:
    """A node runner's `test` tried `tries` times (by the reporter's count): the most kept in
    `seen.tries` where more than one (at most `MAX_TRIES`; anything but an `int` is none)."""
    if type(tries) is int and tries > 1:
        seen.tries[test] = max(seen.tries.get(test, 1), min(tries, MAX_TRIES))
