"""The real-model test tells a crash of the model server from a fixbot failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_realmodel_e2e import server_crash


@pytest.mark.slow
def test_a_server_killed_by_a_signal_is_named_as_the_servers_crash(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    crash = (
        "import os, signal; print('ggml_init', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"
    )
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-c", crash], stdout=out, stderr=out)
    proc.wait(timeout=60)
    said = server_crash(proc, log)
    assert said is not None
    assert "model server itself" in said and "killed by SIGSEGV" in said
    assert "not a fixbot failure" in said and "ggml_init" in said


@pytest.mark.slow
def test_a_running_server_is_not_a_crash(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("")
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert server_crash(proc, log) is None
    finally:
        proc.kill()
        proc.wait()
