"""fixbot's reading of the node runners' own records (`stream.parse` hands each to its function):
the worker keys that sign a line of jest's workers (`signed`: a `key` record announces one,
only an `fn` record is taken under it), jest-circus's verdicts on a test's function and the
files fixbot's test environment was built for (`function`, an `fn` record), the test files
jest's reporter saw start (`ran`) and a node runner's tries of a test (`tried`, also from the
reporter's `r` records' `n`). Each adds to an `Observation` (`functions`, `environed`,
`jested`, `tries`); `scratch` is what reading keeps between records: its `keys`, the worker
keys the nonce announced."""

from __future__ import annotations

import json
from typing import Protocol

from fixbot.core.observed import Observation

MAX_TRIES = 1000  # a test's tries kept at most (the node reporter's `n`)
MAX_FILES = 10000  # test files fixbot's jest environment was built for, kept at most
MAX_KEYS = 16  # worker keys announced in one stream, kept at most (one a jest run)
KEY_DIGITS = frozenset("0123456789abcdef")


class Keyed(Protocol):
    """What these functions read of reading's scratch (`stream._Scratch`)."""

    keys: set[str]


def signed(given: str, body: str, nonce: str, scratch: Keyed) -> dict[str, object] | None:
    """The record `body` holds where `given` signs it: the nonce, any record (a `key` record's
    worker key kept in `scratch`, `MAX_KEYS` at most); a worker key announced before it (jest's
    workers: `node/environment.cjs`), an `fn` record alone. None otherwise."""
    if given != nonce and (not given or given not in scratch.keys):
        return None
    try:
        record = json.loads(body)
    except ValueError:
        return None
    if not isinstance(record, dict) or (given != nonce and record.get("k") != "fn"):
        return None
    if record.get("k") == "key":
        _announced(record.get("key"), nonce, scratch)
    return record


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
