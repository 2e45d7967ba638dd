"""The `imported` record of fixbot's Python observers (`modulecode.record_of`, streamed once by
each pytest or unittest process as its run ends), read into an `Observation`: `f`, the work
tree's files the process imported as written (`Observation.imported`), and `b`, each file's
SHA-256 as its module code ran (`Observation.ran_bytes`, which `fixbot.run.ranbytes` holds to
the bytes fixbot put there). Pure functions over a record, bounded."""

from __future__ import annotations

from fixbot.core.observed import Observation

MAX_IMPORTED = 4000  # imported files an observation keeps (2000 a process streamed)
MAX_PATH = 400  # characters of a file's name kept
UNREAD = "-"  # a digest the observer could not take (`modulecode.UNREAD`), or two that differ
HEX = frozenset("0123456789abcdef")


def imported(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A process's imported work-tree files, added to `seen.imported` (no longer None), and
    their digests to `seen.ran_bytes` (no longer None where the record has `b`)."""
    files = record.get("f")
    kept = seen.imported if seen.imported is not None else []
    known = set(kept)
    for file in files[:MAX_IMPORTED] if isinstance(files, list) else []:
        if isinstance(file, str) and file[:MAX_PATH] not in known and len(kept) < MAX_IMPORTED:
            known.add(file[:MAX_PATH])
            kept.append(file[:MAX_PATH])
    seen.imported = kept
    sums = record.get("b")
    if isinstance(sums, dict):
        seen.ran_bytes = _digests(seen.ran_bytes or {}, sums)


def _digests(kept: dict[str, str], sums: dict[object, object]) -> dict[str, str]:
    """`kept` with `sums`' files added (`MAX_IMPORTED` at most): a digest that is no SHA-256
    hex, or that differs from another process's for the same file, kept as `UNREAD`."""
    for file, digest in list(sums.items())[:MAX_IMPORTED]:
        if not isinstance(file, str) or (file[:MAX_PATH] not in kept and len(kept) >= MAX_IMPORTED):
            continue
        name = file[:MAX_PATH]
        sound = isinstance(digest, str) and len(digest) == 64 and set(digest) <= HEX
        said = digest if sound and isinstance(digest, str) else UNREAD
        kept[name] = said if kept.get(name, said) == said else UNREAD
    return kept
