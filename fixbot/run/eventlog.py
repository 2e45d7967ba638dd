"""The event log: `<state folder>/log.jsonl`, one JSON object a line for every event of a run.

Each line has `ts` (ISO 8601, UTC), `run_id`, `attempt`, `event` (check, classification, fix,
diagnosis, recovery, review, threads, publish, ...), `elapsed_ms` since the run started, and the
event's own fields. Lines are appended and flushed one at a time, so a killed run leaves every
earlier line whole; values are redacted by the caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fixbot.core.budget import Deadline

LOG_FILE = "log.jsonl"


class EventLog:
    """Append events of run `run_id` to `path` (the parent folder is created on first use).

    `clock` is the run's `Deadline` (`fixbot.core.budget`), whose start counts a resumed run's
    earlier time, so `elapsed_ms` is the run's whole wall time; every string value passes
    through `redact` (default: unchanged) before it is written.
    """

    def __init__(
        self,
        path: Path,
        run_id: str,
        *,
        clock: Deadline,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.path = path
        self.run_id = run_id
        self.clock = clock
        self.redact = redact

    def emit(self, event: str, attempt: int | None = None, **fields: Any) -> dict[str, Any]:
        """Write one event line and return it; `fields` must be JSON-serialisable (else str)."""
        record = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "run_id": self.run_id,
            "attempt": attempt,
            "event": event,
            "elapsed_ms": round(self.clock.elapsed() * 1000),
            **{name: self._clean(value) for name, value in fields.items()},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, default=str, ensure_ascii=False) + "\n")
        return record

    def _clean(self, value: Any) -> Any:
        """`value` with every string redacted (lists and dicts walked); other values as they are."""
        if self.redact is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list | tuple):
            return [self._clean(item) for item in value]
        if isinstance(value, dict):
            return {key: self._clean(item) for key, item in value.items()}
        return value


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every event of the log at `path` (ValueError names a line that is not JSON)."""
    events = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number} is not a JSON object ({exc})") from exc
    return events
