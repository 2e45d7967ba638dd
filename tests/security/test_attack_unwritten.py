"""Attacks on fixbot's unwritten clone (`worlds.clone(files=False)`, `sync.Worlds.write_files`)
by a helper who did not write it: a hostile check, set-up or fix command (or a prompt-injected
model's edit) trying to make fixbot commit, push or verify what the check did not see, lose
work, or read or write outside its clone, through the state where the clone's files are not
written. A held control is a passing test; a hole is fixed here (the test fails without the
fix) or marked xfail(strict=True) and listed in docs/SECURITY.md's "Known gaps". Real git, real
temporary repositories."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.errors import GitError
from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.process import cloning, nofollow, sync, worlds
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo, state_of


def _pair(tmp_path: Path, files: dict[str, str]) -> sync.Worlds:
    """A workspace W holding `files` (committed) and fixbot's clone F of it with no file
    written, as a run makes it (use inside `worlds.entered(pair.fixbot.parent)`)."""
    workspace = make_repo(tmp_path / "w", files)
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO, files=False)
    pair = sync.Worlds(private / worlds.REPO, workspace)
    assert pair.unwritten
    return pair


def _files_of(fixbot: Path) -> list[str]:
    """The files and links in F's work tree, `.git` and the state folder apart."""
    found = []
    for top, dirs, files in os.walk(fixbot):
        dirs[:] = [d for d in dirs if not (top == str(fixbot) and d in (".git", ".fixbot"))]
        found += [os.path.relpath(os.path.join(top, n), fixbot) for n in files]
    return sorted(found)


# 1. The comparison of W with F's index


def test_crlf_bytes_of_an_lf_blob_differ_though_the_workspaces_git_calls_them_clean(
    tmp_path: Path,
) -> None:
    """W's `core.autocrlf = true` makes W's git hash a CRLF file as its LF blob (`git status`
    clean), but the check reads the CRLF bytes: the index comparison hashes W's raw bytes (and
    the sizes differ), so the file is a change, not HEAD's."""
    pair = _pair(tmp_path, {"a.txt": "one\ntwo\n"})
    git(pair.workspace, "config", "core.autocrlf", "true")
    (pair.workspace / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    git(pair.workspace, "add", "a.txt")  # stored as the LF blob: W's index entry is HEAD's
    assert git(pair.workspace, "status", "--porcelain") == ""  # W's git: no change
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["a.txt"]
    assert pair.unwritten


def test_a_same_size_same_mtime_change_after_the_comparison_is_put_back(tmp_path: Path) -> None:
    """The comparison records W's lstat; a later change of the same size with its mtime set
    back (utime) still changes the ctime, so `touched` and the sync see it and W gets the
    blob back before the check."""
    pair = _pair(tmp_path, {"a.txt": "value = 1\n", "b.txt": "b\n"})
    path = pair.workspace / "a.txt"
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        before = path.lstat()
        path.write_text("value = 2\n")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.lstat().st_size == before.st_size
        assert path.lstat().st_mtime_ns == before.st_mtime_ns
        assert pair.touched() == ["a.txt"]
        assert pair.to_workspace() == 1
    assert path.read_text() == "value = 1\n"


def test_a_check_writing_the_workspaces_index_hides_no_change(tmp_path: Path) -> None:
    """A check sets skip-worktree and assume-unchanged in W's own index, writes a sparse
    pattern and changes both files: W's git shows nothing, but F compares W's files with F's
    own index, so both are put back."""
    pair = _pair(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        assert pair.to_workspace() == 0
        git(pair.workspace, "update-index", "--skip-worktree", "a.py")
        git(pair.workspace, "update-index", "--assume-unchanged", "b.py")
        (pair.workspace / ".git" / "info").mkdir(exist_ok=True)
        (pair.workspace / ".git" / "info" / "sparse-checkout").write_text("/c\n")
        (pair.workspace / "a.py").write_text("a = 2\n")
        (pair.workspace / "b.py").write_text("b = 2\n")
        assert git(pair.workspace, "status", "--porcelain") == ""
        assert pair.touched() == ["a.py", "b.py"]
        assert pair.to_workspace() == 2
    assert (pair.workspace / "a.py").read_text() == "a = 1\n"
    assert (pair.workspace / "b.py").read_text() == "b = 1\n"


def test_a_hardlink_to_a_file_outside_is_replaced_never_written_through(tmp_path: Path) -> None:
    """W's tracked file is a hard link to a file outside W holding the blob (the comparison
    finds it the same); the check changes the outside file. The sync replaces W's name with
    a new file (rename over it): the outside file keeps what the attacker wrote, nothing of
    fixbot's is written through the link."""
    pair = _pair(tmp_path, {"a.txt": "blob\n"})
    outside = tmp_path / "outside.txt"
    outside.write_text("blob\n")
    (pair.workspace / "a.txt").unlink()
    os.link(outside, pair.workspace / "a.txt")
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        outside.write_text("evil\n")  # same size, through the other name
        assert pair.touched() == ["a.txt"]
        assert pair.to_workspace() == 1
    assert outside.read_text() == "evil\n"
    assert (pair.workspace / "a.txt").read_text() == "blob\n"
    assert (pair.workspace / "a.txt").lstat().st_nlink == 1


def test_a_folder_swapped_for_a_link_while_the_comparison_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W's `sub/a.txt` holds a change; after the comparison has opened `sub`, the attacker
    moves it away and puts a link to an outside folder holding the blob in its place. The
    comparison reads through the folder it opened (the change is found), and the sync writes
    a real folder in W, never into the outside one."""
    pair = _pair(tmp_path, {"sub/a.txt": "blob\n", "top.txt": "t\n"})
    (pair.workspace / "sub" / "a.txt").write_text("evil\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("blob\n")
    real = sync.stat_in

    def swapping(folders: nofollow.Folders, rel: str) -> os.stat_result | None:
        found = real(folders, rel)
        if rel == "sub/a.txt" and not (pair.workspace / "sub").is_symlink():
            os.rename(pair.workspace / "sub", pair.workspace / "sub.old")
            os.symlink(outside, pair.workspace / "sub")
        return found

    monkeypatch.setattr(sync, "stat_in", swapping)
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["sub/a.txt"]
        monkeypatch.setattr(sync, "stat_in", real)
        assert pair.to_workspace() >= 1
    assert not (pair.workspace / "sub").is_symlink()
    assert (pair.workspace / "sub" / "a.txt").read_text() == "blob\n"
    assert (outside / "a.txt").read_text() == "blob\n"
    assert sorted(os.listdir(outside)) == ["a.txt"]


def test_a_link_at_a_tracked_path_is_never_followed_by_the_index_comparison(
    tmp_path: Path,
) -> None:
    """W's tracked file replaced by a link to a file outside holding the blob's bytes (a
    file the check may rewrite at will): a link where HEAD has a file is a change, and the
    sync replaces the link, leaving the outside file alone."""
    pair = _pair(tmp_path, {"a.txt": "blob\n"})
    outside = tmp_path / "outside.txt"
    outside.write_text("blob\n")
    (pair.workspace / "a.txt").unlink()
    os.symlink(outside, pair.workspace / "a.txt")
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["a.txt"]
        assert pair.to_workspace() == 1
    assert not (pair.workspace / "a.txt").is_symlink()
    assert outside.read_text() == "blob\n"


# 2. Attribute and ignore files, in W and in HEAD


def test_ignore_and_attribute_files_a_check_writes_do_not_steer_the_clone(tmp_path: Path) -> None:
    """The check rewrites W's tracked `.gitignore` to `*` and adds a `.gitattributes` saying
    `* eol=crlf` before F's files are written: F's ignore rules and checkout stay HEAD's (F
    reads no file of W's for them), a new file is still new, the blob is written as the blob,
    and W's `.gitignore` is put back."""
    pair = _pair(tmp_path, {".gitignore": "build/\n", "a.txt": "one\ntwo\n"})
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        assert pair.to_workspace() == 0
        (pair.workspace / ".gitignore").write_text("*\n")
        (pair.workspace / ".gitattributes").write_text("* text eol=crlf\n")
        (pair.workspace / "new.py").write_text("x = 1\n")
        (pair.workspace / "build").mkdir()
        (pair.workspace / "build" / "out.o").write_text("o\n")
        assert sorted(pair.untracked()) == [".gitattributes", "new.py"]
        assert pair.touched() == [".gitignore"]
        pair.write_files()
        assert (pair.fixbot / "a.txt").read_bytes() == b"one\ntwo\n"
        assert not (pair.fixbot / ".gitattributes").exists()
        assert pair.to_workspace() == 1
    assert (pair.workspace / ".gitignore").read_text() == "build/\n"


def test_a_gitattributes_link_in_head_is_judged_as_its_checkout_is(tmp_path: Path) -> None:
    """HEAD commits `.gitattributes` as a link whose target text is `a.txt eol=crlf`: git
    reads attributes through no link, so whatever the unwritten comparison answers must be
    what F's checkout holds (W holding the blob's LF bytes is the same exactly when F's
    written file is those bytes)."""
    workspace = make_repo(tmp_path / "w", {"a.txt": "one\ntwo\n"})
    os.symlink("a.txt eol=crlf", workspace / ".gitattributes")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "attr link")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO, files=False)
        pair = sync.Worlds(private / worlds.REPO, workspace)
        found = pair.differing()
        pair.write_files()
    same = (pair.fixbot / "a.txt").read_bytes() == (workspace / "a.txt").read_bytes()
    assert (found == []) == same


def test_a_gitignore_link_in_head_is_written_early_but_never_read_through(
    tmp_path: Path,
) -> None:
    """HEAD commits `.gitignore` as a link to a file outside saying `*`: F writes its ignore
    files before the rest (`_write_ignore_files`), the link among them, but git reads no
    ignore file through a link, so a new file of a fix is still new (not hidden from the
    commit), and the outside file is neither read as rules nor written."""
    outside = tmp_path / "rules"
    outside.write_text("*\n")
    workspace = make_repo(tmp_path / "w", {"a.txt": "a\n"})
    os.symlink(outside, workspace / ".gitignore")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "ignore link")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    (workspace / "new.py").write_text("x = 1\n")
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO, files=False)
        pair = sync.Worlds(private / worlds.REPO, workspace)
        assert pair.differing() == []
        assert "new.py" in pair.untracked()
    assert pair.unwritten
    assert (pair.fixbot / ".gitignore").is_symlink()
    assert outside.read_text() == "*\n"


# 3. The state folder, submodules


@pytest.mark.slow
def test_a_tracked_file_at_the_state_folders_name_is_neither_written_nor_committed(
    tmp_path: Path,
) -> None:
    """HEAD commits a file `.fixbot` (where fixbot keeps its state folder) and the check is
    red: F's state folder is its own, the fix's commit holds the fix alone (the committed
    `.fixbot` neither deleted nor replaced by fixbot's state), and W's `.fixbot` file stays."""
    files = {"check.py": CHECK_PY, "value.txt": "bad\n", ".fixbot": "theirs\n"}
    repo = make_repo(tmp_path / "repo", files)
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert git(repo, "show", "--name-status", "--format=", "HEAD") == "M\tvalue.txt"
    assert git(repo, "show", "HEAD:.fixbot") == "theirs"
    assert (repo / ".fixbot").read_text() == "theirs\n"
    fixbot = state_of(repo).parent
    assert (fixbot / ".fixbot").is_dir()  # fixbot's own state folder


def test_a_submodule_is_written_without_fetching_or_running_anything(tmp_path: Path) -> None:
    """HEAD has a submodule whose `.gitmodules` names a repository outside: the unwritten
    comparison cannot judge it, so F's files are written (`checkout-index`), which fetches
    nothing (the submodule's folder stays empty); W's other change is still found. With an
    `update = !command` git refuses the `.gitmodules` outright: the comparison fails, and the
    command never runs."""
    marker = tmp_path / "ran"
    other = make_repo(tmp_path / "other", {"inner.txt": "inner\n"})
    sha = git(other, "rev-parse", "HEAD")
    modules = f'[submodule "sub"]\n\tpath = sub\n\turl = {other}\n'
    for n, extra in enumerate(["", f"\tupdate = !touch {marker}\n"]):
        workspace = make_repo(tmp_path / f"w{n}", {".gitmodules": modules + extra, "a.txt": "a\n"})
        git(workspace, "update-index", "--add", "--cacheinfo", f"160000,{sha},sub")
        git(workspace, "commit", "-qm", "submodule")
        private = worlds.private_folder(workspace, tmp_path / "state")
        worlds.write_gitconfig(private, {})
        (workspace / "a.txt").write_text("b\n")
        with worlds.entered(private):
            worlds.clone(workspace, private / worlds.REPO, files=False)
            pair = sync.Worlds(private / worlds.REPO, workspace)
            if extra:
                with pytest.raises(GitError):
                    pair.differing()
            else:
                assert pair.differing() == ["a.txt"]
                assert not pair.unwritten
        assert not marker.exists()
        assert not (pair.fixbot / "sub" / "inner.txt").exists()


# 4. Killed and resumed runs


def test_a_resumed_clone_with_the_marker_writes_over_stale_files(tmp_path: Path) -> None:
    """A run killed while writing F left a file of other bytes with its skip-worktree bit
    cleared (the marker still there): the next run reads the index from HEAD again, git sees
    no change, and writing the files puts the blob back; nothing stale is committed."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "check.py": CHECK_PY, "value.txt": "ok\n"})
    with worlds.entered(pair.fixbot.parent):
        git(pair.fixbot, "update-index", "--no-skip-worktree", "a.txt")
        (pair.fixbot / "a.txt").write_text("stale\n")
        settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
        found, resumed = engine.own_clone(settings, pair.workspace, pair.fixbot.parent)
        assert found == pair.fixbot and not resumed
        assert git(pair.fixbot, "status", "--porcelain") == ""
        again = sync.Worlds(pair.fixbot, pair.workspace)
        assert again.unwritten
        again.write_files()
        assert (pair.fixbot / "a.txt").read_text() == "a\n"
        assert git(pair.fixbot, "status", "--porcelain") == ""


def test_a_clone_killed_before_its_marker_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed after `git clone --no-checkout` but before the clone was marked unwritten
    and its index read leaves F at the workspace's HEAD with no index, no file and no marker.
    The next run must not take it for a written clone: that one has no tracked file to compare
    or sync, so W's uncommitted change would be checked as HEAD (or, with a fix, the check
    would verify W's bytes while the commit holds HEAD's). Failed before: `own_clone` reused
    it (its HEAD is the workspace's), and `differing` found nothing."""
    workspace = make_repo(tmp_path / "w", {"check.py": CHECK_PY, "value.txt": "bad\n"})
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]

    def killed(_fixbot: Path) -> None:
        raise KeyboardInterrupt

    with worlds.entered(private):
        monkeypatch.setattr(cloning, "clone_unwritten", killed)
        with pytest.raises(KeyboardInterrupt):
            engine.own_clone(settings, workspace, private)
        monkeypatch.undo()
        (workspace / "value.txt").write_text("ok\n")  # uncommitted: the check would pass
        fixbot, resumed = engine.own_clone(settings, workspace, private)
        assert not resumed
        pair = sync.Worlds(fixbot, workspace)
        assert pair.differing() == ["value.txt"]
        assert git(fixbot, "status", "--porcelain") == ""


# 5. Whole runs: the check writes W before F's files are written


CHECK_PY = """\
import pathlib, sys
sys.exit(0 if pathlib.Path("value.txt").read_text().strip() == "ok" else 1)
"""

# red; on its first run it also changes a tracked file (same size), rewrites the tracked
# `.gitattributes` to convert on checkout and adds an ignore file for everything
HOSTILE_CHECK = """\
import pathlib, sys
count = pathlib.Path(sys.argv[1])
n = int(count.read_text()) if count.exists() else 0
count.write_text(str(n + 1))
if n == 0:
    pathlib.Path("keep.txt").write_text("KEEP\\n")
    pathlib.Path(".gitattributes").write_text("* text eol=crlf\\n")
    pathlib.Path("sub").mkdir(exist_ok=True)
    pathlib.Path("sub/.gitignore").write_text("*\\n")
    pathlib.Path("sub/planted.py").write_text("evil = 1\\n")
ok = pathlib.Path("value.txt").read_text().strip() == "ok"
keep = pathlib.Path("keep.txt").read_bytes() == b"keep\\n"
sys.exit(0 if ok and keep else 1)
"""


@pytest.mark.slow
def test_a_red_checks_writes_before_the_clone_is_written_are_put_back_not_committed(
    tmp_path: Path,
) -> None:
    """The first check (red) changes a tracked file, the tracked `.gitattributes` (to convert
    on checkout) and plants files, all before F's files are written for the fix: F's checkout
    is HEAD's blobs, W's changes are put back before the fix and the verifying check (which
    passes only on HEAD's `keep.txt`), and the commit holds the fix alone."""
    files = {
        "check.py": HOSTILE_CHECK,
        "value.txt": "bad\n",
        "keep.txt": "keep\n",
        ".gitattributes": "*.bin binary\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    count = tmp_path / "count"
    settings = Settings(check=f"{sys.executable} check.py {count}")  # type: ignore[call-arg]
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert git(repo, "show", "--name-status", "--format=", "HEAD") == "M\tvalue.txt"
    assert (repo / "keep.txt").read_bytes() == b"keep\n"
    assert (repo / ".gitattributes").read_text() == "*.bin binary\n"
    fixbot = state_of(repo).parent
    assert (fixbot / "keep.txt").read_bytes() == b"keep\n"
    assert not (fixbot / "sub" / "planted.py").exists()
    assert git(fixbot, "status", "--porcelain") == ""
    assert int(count.read_text()) >= 2  # the verifying check ran on the put-back tree


def test_write_files_is_idempotent_and_leaves_the_state_folders_entries_hidden(
    tmp_path: Path,
) -> None:
    """`write_files` twice (two Worlds over one clone, as a resumed run makes): the second
    writes nothing over a file fixbot changed since, and entries at the state folder's name
    keep their skip-worktree bit (git never takes fixbot's state for them)."""
    pair = _pair(tmp_path, {"a.txt": "a\n", ".fixbot/state.json": "{}\n"})
    with worlds.entered(pair.fixbot.parent):
        cloning.own_folder(pair.fixbot, ".fixbot")
        pair.write_files()
        (pair.fixbot / "a.txt").write_text("fixed\n")
        (pair.fixbot / ".fixbot" / "state.json").write_text("fixbot's\n")
        again = sync.Worlds(pair.fixbot, pair.workspace)
        assert not again.unwritten
        again.write_files()
        flags = git(pair.fixbot, "ls-files", "-v", "--", ".fixbot/state.json")
        assert flags.startswith("S ")
        assert git(pair.fixbot, "status", "--porcelain") == "M a.txt"
    assert (pair.fixbot / "a.txt").read_text() == "fixed\n"
    mode = (pair.fixbot / ".fixbot").lstat().st_mode
    assert stat.S_ISDIR(mode)


def test_a_check_leaving_the_workspace_without_a_tracked_file_gets_it_back(
    tmp_path: Path,
) -> None:
    """The check deletes a tracked file and puts a folder at another's path: while F is
    unwritten the sync cannot tell W holds the index, so F's files are written and W gets
    both back as HEAD's files (nothing read from the planted folder)."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == []
        (pair.workspace / "a.txt").unlink()
        (pair.workspace / "b.txt").unlink()
        (pair.workspace / "b.txt").mkdir()
        (pair.workspace / "b.txt" / "inner").write_text("x\n")
        assert sorted(pair.touched()) == ["a.txt", "b.txt"]
        pair.to_workspace()
    assert not pair.unwritten
    assert (pair.workspace / "a.txt").read_text() == "a\n"
    assert (pair.workspace / "b.txt").read_text() == "b\n"


def test_the_clone_is_never_built_from_the_workspaces_work_tree(tmp_path: Path) -> None:
    """W's files differ from HEAD (uncommitted), and W's index was rewritten to name them:
    F's index and files come from HEAD through git-upload-pack alone, never W's index or
    files, so writing F gives HEAD's bytes."""
    pair = _pair(tmp_path, {"a.txt": "head\n"})
    (pair.workspace / "a.txt").write_text("work\n")
    git(pair.workspace, "add", "a.txt")  # W's index now holds the change
    with worlds.entered(pair.fixbot.parent):
        worlds.clone(pair.workspace, pair.fixbot, files=False)
        fresh = sync.Worlds(pair.fixbot, pair.workspace)
        assert fresh.differing() == ["a.txt"]
        fresh.write_files()
    assert (pair.fixbot / "a.txt").read_text() == "head\n"
    done = subprocess.run(
        ["git", "ls-files", "-s", "a.txt"], cwd=pair.fixbot, capture_output=True, text=True
    )
    assert done.stdout.split()[1] == git(pair.workspace, "rev-parse", "HEAD:a.txt")


CRLF_CHECK = """\
import pathlib, sys
sys.exit(0 if pathlib.Path("value.txt").read_bytes() == b"ok\\r\\n" else 1)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("head", "edit"),
    [
        ({}, {".gitattributes": "value.txt text\n"}),  # the fix adds the attribute
        ({".gitattributes": "* text=auto\n"}, {}),  # the repository already normalizes
    ],
    ids=["added", "in-head"],
)
def test_a_fix_an_attribute_would_convert_when_committed_is_never_committed(
    tmp_path: Path, head: dict[str, str], edit: dict[str, str]
) -> None:
    """The fix writes `value.txt` as CRLF, which the check (passing on CRLF bytes alone) ran
    on; a `text` attribute (added by the fix, or HEAD's `* text=auto`) makes `git add` store
    LF, so the commit, checked out, would fail the check it claims to pass. The path is drift:
    nothing is committed. Failed before: the run said FIXED and committed `ok\\n`."""
    repo = make_repo(tmp_path / "repo", {"check.py": CRLF_CHECK, "value.txt": "bad\n"} | head)
    start = git(repo, "rev-parse", "HEAD")
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\r\n"} | edit)
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is not OutcomeKind.FIXED, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == start
    fixbot = state_of(repo).parent
    assert git(fixbot, "rev-parse", "HEAD") == start


# green, but on its way it changes a tracked file (same size, mtime set back) and plants one
GREEN_WRITER = """\
import os, pathlib
keep = pathlib.Path("keep.txt")
before = keep.stat()
keep.write_text("KEEP\\n")
os.utime(keep, ns=(before.st_atime_ns, before.st_mtime_ns))
pathlib.Path("planted.txt").write_text("x\\n")
"""


@pytest.mark.slow
def test_a_green_check_that_changes_a_tracked_file_leaves_head_in_the_workspace(
    tmp_path: Path,
) -> None:
    """The check passes but rewrites a tracked file (same size, its mtime set back): the run
    ends green without writing F's other files for nothing it did not need, yet the ending
    sync sees the change (not the blob the index names) and puts HEAD's file back; nothing is
    committed and fixbot's clone says nothing changed."""
    files = {"check.py": GREEN_WRITER, "keep.txt": "keep\n", "other.txt": "o\n"}
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(ScriptedFixer()))
    assert outcome.outcome is OutcomeKind.PASSED, outcome.reason
    assert (repo / "keep.txt").read_text() == "keep\n"
    assert git(repo, "rev-parse", "HEAD") == start
    fixbot = state_of(repo).parent
    assert git(fixbot, "status", "--porcelain") == ""
    assert git(fixbot, "rev-parse", "HEAD") == start


@pytest.mark.slow
def test_a_fix_in_a_crlf_repository_is_checked_as_it_will_check_out(tmp_path: Path) -> None:
    """The repository says `* text eol=crlf` and the fix writes LF: the fix's file is written
    again as its commit checks out (CRLF) before the check, which passes on CRLF bytes alone;
    so the fix is committed, and the workspace and the commit's checkout hold those bytes.
    Without the rewrite the round-trip control would hold back every such fix."""
    files = {".gitattributes": "* text eol=crlf\n", "check.py": CRLF_CHECK, "value.txt": "bad\n"}
    repo = make_repo(tmp_path / "repo", files)
    for name in files:  # the workspace as git checks it out: CRLF
        (repo / name).unlink()
    git(repo, "checkout", "--", ".")
    assert (repo / "value.txt").read_bytes() == b"bad\r\n"
    settings = Settings(check=f"{sys.executable} check.py")  # type: ignore[call-arg]
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert git(repo, "show", "--name-status", "--format=", "HEAD") == "M\tvalue.txt"
    assert (repo / "value.txt").read_bytes() == b"ok\r\n"
    assert git(repo, "cat-file", "blob", "HEAD:value.txt") == "ok"  # stored LF
