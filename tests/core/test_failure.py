"""`fixbot.core.failure.CheckResult`: what a run of the check says about its own log."""

from __future__ import annotations

import os
from pathlib import Path

from fixbot.process.spawn import run_command


def test_a_log_is_cut_exactly_when_the_command_wrote_more_than_it_keeps(tmp_path: Path) -> None:
    """A real command writing 2,048 lines of `x` (4,096 bytes): a log of 4,096 keeps it whole
    (not cut), one of 4,094 drops a line of its middle (cut)."""
    command = "yes x | head -n 2048"
    env = {"PATH": os.environ["PATH"]}
    whole = run_command(command, tmp_path, tmp_path / "whole.log", 30, env=env, max_log_bytes=4096)
    cut = run_command(command, tmp_path, tmp_path / "cut.log", 30, env=env, max_log_bytes=4094)
    assert (whole.output_bytes, cut.output_bytes) == (4096, 4096)
    assert not whole.cut(4096)
    assert cut.cut(4094)
    assert (tmp_path / "whole.log").read_text().splitlines().count("x") == 2048
    assert (tmp_path / "cut.log").read_text().splitlines().count("x") < 2048
