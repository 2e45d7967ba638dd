"""fixbot's reading of the observer's fingerprint records (`stream.parse` hands each to its function
by kind): the machinery at load (`load`: its names, kept for the process's later checks, and the
hash of its session-wide ones a teardown's check must stream, `WIDE`), the observer itself at
registration (`sealed`, `ITSELF`), each check's (`check`: at a teardown one hash, at a unittest
test's start one hash of all, `BEGUN`, at the session's end and a unittest test's end every
fingerprint, by the names its process's load gave) and the machinery the observer itself found
changed (`machinery`). Each adds to an `Observation` (`loaded`, `checked`, `machinery`), for
`judge.moved` to compare; `scratch` is what reading keeps between records: its `names`, each
process's machinery names in the order its fingerprints come."""

from __future__ import annotations

from typing import Protocol

from fixbot.core.observed import Observation
from fixbot.observe import integrity

ITSELF = "observer: itself"  # the observer's own hash among a process's fingerprints
WIDE = "the session-wide machinery at a teardown"  # the hash a teardown's check streams
# names a process's `load` gives that are kept (pytest's `integrity.MACHINERY`; unittest's
# observer's places with `TestCase`'s own behaviours: 130 on Python 3.11)
MAX_MACHINERY = 250
# distinct values of a name's fingerprint across its process's checks, kept at most (as
# `stream.MAX_EXITS`)
MAX_CHECKED = 8
# the hash a unittest test's start streams (`at` "begin"): of every fingerprint, in the order of
# its process's load (round 28: machinery swapped after load and put back before the test's end)
BEGUN = "the machinery at a unittest test's start"


class Named(Protocol):
    """What a record's function reads of reading's scratch (`stream._Scratch`)."""

    names: dict[str, list[str]]


def load(seen: Observation, record: dict[str, object], test: str, scratch: Named) -> None:
    """The fingerprints at load, by name, and the hash a teardown's check must stream."""
    names, prints, process = record.get("n"), record.get("m"), str(record.get("p", ""))[:20]
    if isinstance(names, list) and isinstance(prints, list) and process not in scratch.names:
        scratch.names[process] = [str(n)[:100] for n in names[:MAX_MACHINERY]]
        loaded = seen.loaded.setdefault(process, {})
        loaded.update(zip(scratch.names[process], (str(p)[:20] for p in prints), strict=False))
        wide = integrity.session_wide(loaded)
        loaded[WIDE] = integrity.digest(p for p, w in zip(loaded.values(), wide, strict=True) if w)


def sealed(seen: Observation, record: dict[str, object], test: str, scratch: Named) -> None:
    process = str(record.get("p", ""))[:20]
    if process in scratch.names:
        seen.loaded[process].setdefault(ITSELF, str(record.get("s", ""))[:20])


def check(seen: Observation, record: dict[str, object], test: str, scratch: Named) -> None:
    """A check's fingerprints, by the names its process streamed at load (at a teardown, `at`
    "t", one hash of the session-wide ones; at a unittest test's start, "begin", one hash of
    all, `BEGUN`, held against the same hash of the load's, computed at the first); at the
    session's end a name left out is `missing`."""
    process = str(record.get("p", ""))[:20]
    prints = record.get("m")
    if process not in scratch.names:
        return
    checked = seen.checked.setdefault(process, {})
    if record.get("at") == "end":
        names = scratch.names[process]
        given = prints[: len(names)] if isinstance(prints, list) else []
        values = [*given, *[None] * (len(names) - len(given))]
        pairs = [*zip(names, values, strict=True)]
    else:
        pairs = [(_hashed(seen.loaded[process], scratch.names[process], record), record.get("h"))]
    for name, value in [*pairs, (ITSELF, record.get("s"))]:
        now = checked.setdefault(name, [])
        text = "missing" if value is None else str(value)[:20]
        if text not in now and len(now) < MAX_CHECKED:
            now.append(text)


def _hashed(loaded: dict[str, str], names: list[str], record: dict[str, object]) -> str:
    """The name a check's one hash is held under: `BEGUN` at a unittest test's start (`at`
    "begin"; its value, the hash of the load's fingerprints `loaded` in the order of `names`,
    kept at the first), else `WIDE` (a teardown's)."""
    if record.get("at") != "begin":
        return WIDE
    if BEGUN not in loaded:
        loaded[BEGUN] = integrity.digest(loaded.get(name, "") for name in names)
    return BEGUN


def machinery(seen: Observation, record: dict[str, object], test: str, scratch: Named) -> None:
    changed = record.get("changed")
    if isinstance(changed, list):
        seen.machinery += [str(n) for n in changed if str(n) not in seen.machinery]
