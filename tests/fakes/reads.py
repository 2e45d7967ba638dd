"""A read of a check's report as fixbot makes it, bounded in time: the no-follow read tests'
shared helper (`tests/process/test_reads.py`, `tests/security/test_attack_edges.py`)."""

from __future__ import annotations

import threading
from pathlib import Path

from fixbot.logs.dialects import report_for
from fixbot.run.checkrun import read_report


def read_in_time(path: Path, reader: tuple[int, int]) -> dict[str, str] | None:
    """`read_report` of a pytest JUnit report at `path` as the commands' user `reader` (uid,
    gid) may read it, in a thread that must end in 20 s (a read that follows a link to
    `/proc/kmsg` or a fifo would block for ever): test id -> outcome, or None when refused."""
    report = report_for(["pytest"])
    assert report is not None
    found: list[dict[str, str] | None] = []
    thread = threading.Thread(target=lambda: found.append(read_report(report, path, reader)))
    thread.daemon = True
    thread.start()
    thread.join(20)
    assert not thread.is_alive(), "the report's read hung"
    return found[0]
