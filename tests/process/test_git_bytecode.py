"""Python's bytecode left by a check is neither a dirty tree nor part of any tree fixbot
records (a repository without a .gitignore for it, a shell without PYTHONDONTWRITEBYTECODE)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.process import git
from tests.fakes.repo import make_repo


@pytest.mark.slow
def test_bytecode_a_check_leaves_is_not_a_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"calc.py": "def f():\n    return 1\n", "pkg/m.py": "X = 1\n"})
    head_tree = git.run(repo, "rev-parse", "HEAD^{tree}")
    # The real thing: a Python that writes bytecode (the tests' environment has no
    # PYTHONDONTWRITEBYTECODE) imports the repository's modules.
    subprocess.run(
        [sys.executable, "-c", "import calc, pkg.m"], cwd=repo, check=True, env={"PATH": ""}
    )
    assert list(repo.rglob("*.pyc")), "the check wrote no bytecode: the test proves nothing"
    (repo / "old.pyc").write_bytes(b"\0")  # Python 2's place for it
    assert git.status_lines(repo) == []
    assert git.worktree_tree(repo) == head_tree

    (repo / "calc.py").write_text("def f():\n    return 2\n")
    (repo / "new.py").write_text("Y = 2\n")
    assert git.status_lines(repo) == [" M calc.py", "?? new.py"]
    changed = git.run(repo, "diff", "--name-only", head_tree, git.worktree_tree(repo)).split()
    assert changed == ["calc.py", "new.py"]
