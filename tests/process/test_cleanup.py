"""fixbot's private folders: the clean-up rule each run applies, and `fixbot clean`, on real
folders, a real run lock held by another process, and real runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixbot.cli import main
from fixbot.core.settings import Settings
from fixbot.process import cleanup, worlds
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import make_repo

DAY = 86_400


def private(base: Path, workspace: Path, used_days_ago: float) -> Path:
    """A private folder for `workspace` under `base`, last used `used_days_ago`."""
    folder = worlds.private_folder(workspace, base)
    cleanup.record_workspace(folder, workspace)
    lock = folder / "lock"
    lock.write_text("{}")
    then = time.time() - used_days_ago * DAY
    os.utime(lock, (then, then))
    return folder


def test_the_rule_removes_orphans_and_idle_folders_only(tmp_path: Path) -> None:
    base = tmp_path / "state"
    kept_ws, gone_ws, idle_ws = (tmp_path / n for n in ("kept", "gone", "idle"))
    for ws in (kept_ws, gone_ws, idle_ws):
        ws.mkdir()
    kept = private(base, kept_ws, 2)
    gone = private(base, gone_ws, 0)
    idle = private(base, idle_ws, 45)
    gone_ws.rmdir()
    removed = {p.path: why for p, why in cleanup.sweep(base)}
    assert set(removed) == {gone, idle} and kept.is_dir()
    assert "is gone" in removed[gone] and "45 days" in removed[idle]
    assert not gone.exists() and not idle.exists()
    assert [p.name for p in base.iterdir()] == [kept.name]  # nothing left aside


@pytest.mark.slow
def test_a_folder_a_run_holds_is_never_removed(tmp_path: Path) -> None:
    base = tmp_path / "state"
    (tmp_path / "ws").mkdir()
    folder = private(base, tmp_path / "ws", 90)
    (tmp_path / "ws").rmdir()
    holder = subprocess.Popen(  # another process holds the run lock, as a run does
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
            str(folder / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert cleanup.sweep(base) == [] and folder.is_dir()
    finally:
        holder.kill()
        holder.wait()
    assert [p.path for p, _ in cleanup.sweep(base)] == [folder]


@pytest.mark.slow
def test_a_run_removes_the_private_folder_of_a_deleted_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs on two workspaces; the first workspace is deleted (like the demo's): the
    second run's start removes the first's private folder, and keeps its own."""
    script = "import pathlib, sys; sys.exit(pathlib.Path('v').read_text() != 'ok')"
    check = f'{sys.executable} -c "{script}"'
    first = make_repo(tmp_path / "first", {"v": "ok"})
    engine.run(Settings(check=check), first, env=dict(os.environ), agents=Agents(ScriptedFixer()))
    base = worlds.state_base(os.geteuid(), os.environ)
    old = base / worlds.repo_key(first)
    assert (old / cleanup.WORKSPACE_FILE).read_text() == f"{first.resolve()}\n"
    subprocess.run(["rm", "-rf", str(first)], check=True)
    second = make_repo(tmp_path / "second", {"v": "ok"})
    engine.run(Settings(check=check), second, env=dict(os.environ), agents=Agents(ScriptedFixer()))
    assert not old.exists() and (base / worlds.repo_key(second)).is_dir()


def test_fixbot_clean_lists_then_removes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = worlds.state_base(os.geteuid(), os.environ)
    for name, days in (("a", 1), ("b", 10)):
        (tmp_path / name).mkdir()
        private(base, tmp_path / name, days)
    assert main(["clean", "--list"]) == 0
    listed = capsys.readouterr().out
    assert str(tmp_path / "a") in listed and "last used" in listed
    assert main(["clean"]) == 0  # the rule: both are recent, both workspaces exist
    assert "0 of 2 private folders removed" in capsys.readouterr().out
    assert main(["clean", "--older-than", "7d"]) == 0
    out = capsys.readouterr().out
    assert "1 of 2 private folders removed" in out and "no run used it for 10 days" in out
    assert main(["clean", "--all"]) == 0
    assert "1 of 1 private folders removed" in capsys.readouterr().out
    assert main(["clean", "--older-than", "soon"]) == 2
    assert "--older-than 'soon'" in capsys.readouterr().err
