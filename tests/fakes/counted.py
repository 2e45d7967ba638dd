"""A check that counts its own runs: `python check.py COUNTER` appends a line to COUNTER (a file
outside the repository, so fixbot never sees or commits it) and fails while `calc.total` is off
by one. Tests assert how many times fixbot ran the check (a failure log from elsewhere replaces
the initial run, so only verifying runs count)."""

from __future__ import annotations

from pathlib import Path

CALC_BUGGY = "def total(xs):\n    return sum(xs) - 1\n"
CALC_GOOD = "def total(xs):\n    return sum(xs)\n"
CHECK_PY = """import os, sys
from pathlib import Path

# the localization's traced run of the failing check (agent/spectrum.py) is no check run
with Path(sys.argv[1]).open("a") as counter:
    counter.write("spectrum\\n" if "FIXBOT_TRACE_OUT" in os.environ else "check\\n")
from calc import total

if total([1, 2]) != 3:
    print("test_calc.py:4: AssertionError: assert", total([1, 2]), "== 3")
    raise SystemExit(1)
print("1 passed")
"""


class CheckCounter:
    """The counter file at `path` and the check command that appends to it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def command(self) -> str:
        """The check command (run in the repository, which holds `check.py`)."""
        return f"python check.py {self.path}"

    @property
    def runs(self) -> int:
        """How many times the check ran so far."""
        lines = self.path.read_text().splitlines() if self.path.exists() else []
        return lines.count("check")
