"""`repofiles.regular_text`, the one reader of a repository file fixbot opens by name."""

from __future__ import annotations

import os
from pathlib import Path

from fixbot.core.repofiles import regular_text


def test_a_regular_file_and_a_link_inside_the_repository_are_read(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n")
    (tmp_path / "alias.mod").symlink_to("go.mod")
    assert regular_text(tmp_path, tmp_path / "go.mod") == "module example.com/m\n"
    assert regular_text(tmp_path, tmp_path / "alias.mod") == "module example.com/m\n"


def test_a_device_a_fifo_a_file_outside_and_a_large_file_are_not_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.txt").write_text("TOKEN=1\n")
    os.mkfifo(tmp_path / "pipe")
    (repo / "zero.mod").symlink_to("/dev/zero")  # a size of 0, a read that never ends
    (repo / "pipe.json").symlink_to(tmp_path / "pipe")  # an open that blocks without O_NONBLOCK
    (repo / "environ.py").symlink_to("/proc/self/environ")  # regular, size 0, fixbot's secrets
    (repo / "secret.py").symlink_to("../secret.txt")
    (repo / "loop.py").symlink_to("loop.py")
    (repo / "big.txt").write_bytes(b"x" * 101)
    for name in ("zero.mod", "pipe.json", "environ.py", "secret.py", "loop.py", "nul\0.py"):
        assert regular_text(repo, repo / name) is None, name
    assert regular_text(repo, repo / "big.txt", limit=100) is None
    assert regular_text(repo, repo / "big.txt", limit=101) == "x" * 101
