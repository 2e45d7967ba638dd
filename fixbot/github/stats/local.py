"""The runs `fixbot run` recorded in a clone, for `fixbot stats` without GitHub.

Each run appends its events to the state folder's event log (`fixbot.run.eventlog`, read
with `read_events`): the `outcome` event ends a run (its `elapsed_ms` is the run's wall time),
the `fix` and `threads` events are its fix attempts (with their model tokens), and the
`classification` events name its failure classes. A run with no `outcome` event (killed, or
still running) is not counted. Model cost is not in the log: unknown for local runs.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from fixbot.core.errors import ConfigError
from fixbot.github.publish.memory import RunRecord
from fixbot.run.eventlog import LOG_FILE, read_events

KIND = "local"  # RunRecord.kind of a run read from a clone


def runs(state_dir: Path) -> list[RunRecord]:
    """The finished runs of the event log in `state_dir`, oldest first ([] without a log).

    Raises `ConfigError` naming the file when the log cannot be read."""
    path = state_dir / LOG_FILE
    if not path.is_file():
        return []
    try:
        events = read_events(path)
    except (OSError, ValueError) as exc:
        raise ConfigError([f"{path}: unreadable event log ({exc}); move it aside"]) from exc
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        by_run[str(event.get("run_id"))].append(event)
    found = [record for run, items in by_run.items() if (record := _record(run, items))]
    return sorted(found, key=lambda r: r.at)


def _record(run: str, events: list[dict[str, Any]]) -> RunRecord | None:
    ends = [e for e in events if e.get("event") == "outcome"]
    if not ends:
        return None
    end = ends[-1]
    fixes = [e for e in events if e.get("event") in ("fix", "threads")]
    classes = [
        f"{e.get('error_class')}/{e.get('category')}"
        for e in events
        if e.get("event") == "classification"
    ]
    return RunRecord(
        run=run,
        at=int(datetime.fromisoformat(events[0]["ts"]).timestamp()),
        kind=KIND,
        out=str(end.get("outcome")),
        secs=round(end.get("elapsed_ms", 0) / 1000),
        tok=sum(int(e.get("tokens") or 0) for e in fixes),
        n=len(fixes),
        classes=list(dict.fromkeys(classes)),
    )
