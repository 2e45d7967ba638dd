"""fixbot's clone with its work tree unwritten: a green run writes none of its files (`git
clone --no-checkout`, the index read from HEAD, every entry skip-worktree); the workspace is
compared with and kept equal to the clone's index, and the clone's files are written once,
where a run first needs them (`Worlds.write_files`). Real git, real temporary repositories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.process import cloning, index, sync, worlds
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo, state_of


def _pair(
    tmp_path: Path, files: dict[str, str], links: dict[str, str] | None = None
) -> sync.Worlds:
    """A workspace W holding `files` and `links` (name: target), committed, and fixbot's clone
    F of it with no file written, as a run makes it (use inside
    `worlds.entered(pair.fixbot.parent)`)."""
    workspace = make_repo(tmp_path / "w", files)
    for name, target in (links or {}).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, workspace / name)
    if links:
        git(workspace, "add", "-A")
        git(workspace, "commit", "-qm", "links")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO, files=False)
    return sync.Worlds(private / worlds.REPO, workspace)


def _written(fixbot: Path) -> list[str]:
    """The files and links in F's work tree, `.git` and the state folder apart."""
    found = []
    for top, dirs, files in os.walk(fixbot):
        dirs[:] = [d for d in dirs if not (top == str(fixbot) and d in (".git", ".fixbot"))]
        found += [os.path.relpath(os.path.join(top, n), fixbot) for n in files]
        found += [
            os.path.relpath(os.path.join(top, d), fixbot)
            for d in dirs
            if os.path.islink(os.path.join(top, d))
        ]
    return sorted(found)


CHECK_PY = """\
import pathlib, sys
sys.exit(0 if pathlib.Path("value.txt").read_text().strip() == "ok" else 1)
"""


@pytest.mark.slow
def test_a_green_run_writes_no_file_of_its_clone(tmp_path: Path) -> None:
    """The run passes, and fixbot's clone holds no file of the repository (a `.gitignore`,
    which fixbot's git reads from disk only, apart): its checkout wrote all of them before."""
    files = {"check.py": CHECK_PY, "value.txt": "ok\n", ".gitignore": "build/\n"}
    files |= {f"pkg/mod{n}.py": f"N = {n}\n" for n in range(20)}
    repo = make_repo(tmp_path / "repo", files)
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(ScriptedFixer()))
    assert outcome.outcome is OutcomeKind.PASSED
    fixbot = state_of(repo).parent
    assert _written(fixbot) == [".gitignore"]
    assert git(fixbot, "status", "--porcelain") == ""  # git takes the missing files for HEAD's
    assert git(repo, "status", "--porcelain") == ""  # the workspace untouched


@pytest.mark.slow
def test_a_red_run_writes_its_clone_and_commits_only_the_fix(tmp_path: Path) -> None:
    """A failing check: the clone's files are written before anything reads them, and the
    fix's commit holds the fix alone (no file of the unwritten tree taken as deleted)."""
    files = {"check.py": CHECK_PY, "value.txt": "bad\n", "keep.txt": "keep\n"}
    repo = make_repo(tmp_path / "repo", files)
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    fixbot = state_of(repo).parent
    assert _written(fixbot) == ["check.py", "keep.txt", "value.txt"]
    assert git(repo, "show", "--name-status", "--format=", "HEAD") == "M\tvalue.txt"
    assert (repo / "keep.txt").read_text() == "keep\n"
    assert not (fixbot / ".git" / index.UNWRITTEN).exists()


def test_the_index_comparison_finds_every_kind_of_change(tmp_path: Path) -> None:
    """W compared with F's index alone: content, exec bit, a link's target, a file become a
    link, a folder planted as a link, a name that is not UTF-8; a file W lacks is no change
    (the first sync writes it). Nothing of F is written."""
    name = os.fsdecode(b"caf\xe9.txt")
    files = {"a.txt": "a\n", "tool.sh": "echo\n", "b.txt": "b\n", "sub/c.txt": "c\n"}
    pair = _pair(tmp_path, files | {"gone": "g\n", name: "x\n"}, {"ln": "a.txt"})
    assert pair.unwritten
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        (pair.workspace / "a.txt").write_text("A\n")  # same size, other bytes
        (pair.workspace / "tool.sh").chmod(0o755)
        (pair.workspace / "ln").unlink()
        os.symlink("b.txt", pair.workspace / "ln")
        (pair.workspace / "b.txt").unlink()
        os.symlink("a.txt", pair.workspace / "b.txt")
        (pair.workspace / "sub" / "c.txt").unlink()
        (pair.workspace / "sub").rmdir()
        os.symlink(tmp_path, pair.workspace / "sub")
        (pair.workspace / name).write_bytes(b"y\n")
        (pair.workspace / "gone").unlink()
        assert sync.Worlds(pair.fixbot, pair.workspace).differing() == sorted(
            ["a.txt", "tool.sh", "ln", "b.txt", "sub/c.txt", name]
        )
    assert _written(pair.fixbot) == []


def test_a_converting_attribute_writes_the_clone_first(tmp_path: Path) -> None:
    """An attribute that converts on checkout (`eol=crlf`): F's file is not its blob, so the
    comparison cannot use the index alone; F's files are written and compared byte for byte,
    and W holding the blob's LF bytes differs."""
    pair = _pair(tmp_path, {".gitattributes": "*.txt eol=crlf\n", "a.txt": "one\ntwo\n"})
    (pair.workspace / "a.txt").write_bytes(b"one\ntwo\n")
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["a.txt"]
    assert not pair.unwritten
    assert (pair.fixbot / "a.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_a_sync_with_nothing_to_do_writes_nothing_and_a_change_is_put_back(
    tmp_path: Path,
) -> None:
    """`to_workspace` while F is unwritten: W holding every blob writes nothing in either
    tree; a command's change to a tracked file makes F's files written and W's file put
    back from them."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "b/c.txt": "c\n"})
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        assert pair.to_workspace() == 0
        assert _written(pair.fixbot) == [] and pair.unwritten
        (pair.workspace / "b" / "c.txt").write_text("changed\n")
        assert pair.touched() == ["b/c.txt"]
        assert pair.unwritten  # told from the index
        assert pair.to_workspace() == 1
    assert not pair.unwritten
    assert (pair.workspace / "b" / "c.txt").read_text() == "c\n"
    assert _written(pair.fixbot) == ["a.txt", "b/c.txt"]


def test_new_files_are_told_by_the_clones_ignore_files(tmp_path: Path) -> None:
    """`untracked` and `created` while F is unwritten: the repository's nested `.gitignore`
    rules still apply (written to F alone), and a tracked folder is not new."""
    pair = _pair(
        tmp_path, {".gitignore": "*.log\n", "deep/.gitignore": "cache/\n", "deep/a.py": "a\n"}
    )
    for rel in ("x.log", "deep/cache/big.bin", "deep/new.py", "fresh/one.py"):
        (pair.workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (pair.workspace / rel).write_text("x\n")
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        assert sorted(pair.untracked()) == ["deep/new.py", "fresh/one.py"]
        assert sorted(pair.created()) == ["deep/new.py", "fresh/"]
    assert pair.unwritten
    assert _written(pair.fixbot) == [".gitignore", "deep/.gitignore"]


def test_the_state_folders_name_is_never_checked_out(tmp_path: Path) -> None:
    """The repository commits `.fixbot/state.json` and a link at `.fixbot/x`: writing F's
    files leaves the state folder fixbot's own (its state is not overwritten, no link made)."""
    pair = _pair(tmp_path, {"a.txt": "a\n", ".fixbot/state.json": "{}\n"})
    os.symlink("/etc", pair.workspace / ".fixbot" / "x")
    git(pair.workspace, "add", "-A")
    git(pair.workspace, "commit", "-qm", "planted")
    with worlds.entered(pair.fixbot.parent):
        worlds.clone(pair.workspace, pair.fixbot, files=False)
        cloning.own_folder(pair.fixbot, ".fixbot")
        (pair.fixbot / ".fixbot" / "state.json").write_text("fixbot's\n")
        pair = sync.Worlds(pair.fixbot, pair.workspace)
        pair.write_files()
        assert git(pair.fixbot, "status", "--porcelain") == ""
    assert (pair.fixbot / ".fixbot" / "state.json").read_text() == "fixbot's\n"
    assert not os.path.lexists(pair.fixbot / ".fixbot" / "x")
    assert (pair.fixbot / "a.txt").read_text() == "a\n"


def test_a_clone_killed_while_writing_is_made_unwritten_again(tmp_path: Path) -> None:
    """A run killed between clearing the skip-worktree bits and writing the files leaves
    entries git takes for deleted; the next run's `own_clone` reads the index from HEAD again
    (the marker is still there), so git takes no file for deleted again."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "check.py": CHECK_PY, "value.txt": "ok\n"})
    fixbot, repo = pair.fixbot, pair.workspace
    with worlds.entered(fixbot.parent):
        git_in = ["git", "update-index", "--no-skip-worktree", "a.txt"]
        subprocess.run(git_in, cwd=fixbot, check=True)
        assert "D a.txt" in git(fixbot, "status", "--porcelain")
        settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
        found, resumed = engine.own_clone(settings, repo, fixbot.parent)
        assert found == fixbot and not resumed
        assert git(fixbot, "status", "--porcelain") == ""
