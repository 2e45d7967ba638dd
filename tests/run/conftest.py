"""The real runners' check commands, shared by the runner-report tests and the attack rounds
that run go, jest and cargo (`tests/run/test_runner_reports.py` defines them)."""

from tests.run.test_runner_reports import go_check, jest_check, rustup

__all__ = ["go_check", "jest_check", "rustup"]
