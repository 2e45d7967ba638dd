"""Attacks on today's changes by a helper who did not write them: the first comparison of the
workspace with fixbot's clone (blobs hashed against the clone's index, folders kept open), the
complexity refactors of fixbot/process/, and the Action's clone path. A held control is a
passing test that fails without it; a hole found is fixed here or marked xfail(strict=True)
and listed in docs/SECURITY.md's "Known gaps". Real git, real temporary repositories."""

from __future__ import annotations

import io
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.errors import GitError
from fixbot.github.api.context import make_context
from fixbot.github.api.rest import GitHub
from fixbot.process import cloning, nofollow, sync, worlds
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo


@pytest.fixture(autouse=True, params=[True, False], ids=["written", "unwritten"])
def _clone_files(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every attack twice: on a clone with its files written (the Action's), and on one
    without (a run's, `clone(files=False)`: W compared with F's index alone)."""
    real = worlds.clone
    monkeypatch.setattr(worlds, "clone", lambda *a, **k: real(*a, **{"files": request.param, **k}))


def _write(pair: sync.Worlds) -> None:
    """F's files written, as a run writes them before anything of its own is written in F."""
    with worlds.entered(pair.fixbot.parent):
        pair.write_files()


def _pair(tmp_path: Path, files: dict[str, str]) -> sync.Worlds:
    """A workspace W holding `files` (committed) and fixbot's clone F of it, in a private
    folder (use inside `worlds.entered(pair.fixbot.parent)`)."""
    workspace = make_repo(tmp_path / "w", files)
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
    return sync.Worlds(private / worlds.REPO, workspace)


def _differing(pair: sync.Worlds) -> list[str]:
    with worlds.entered(pair.fixbot.parent):
        return pair.differing()


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


# 1. The first comparison: W's files hashed as blobs against F's index


def test_an_exec_bit_alone_is_a_workspace_change(tmp_path: Path) -> None:
    """W's file holds the blob's bytes but gained the exec bit: not the same file (the check
    could run it). Fails without the mode comparison of `_same_as_blob`."""
    pair = _pair(tmp_path, {"tool.py": "print(1)\n"})
    (pair.workspace / "tool.py").chmod(0o755)
    assert _differing(pair) == ["tool.py"]


def test_a_link_whose_target_text_is_the_blob_is_a_workspace_change(tmp_path: Path) -> None:
    """W's tracked file replaced by a link whose target string is the file's content, and a
    regular file where F has a link: a kind change is a change (blob ids alone would agree on
    the bytes)."""
    pair = _pair(tmp_path, {"a.txt": "b.txt", "b.txt": "x\n"})
    os.symlink(pair.fixbot / "a.txt", pair.fixbot / "link")  # F only: not compared
    (pair.workspace / "a.txt").unlink()
    os.symlink("b.txt", pair.workspace / "a.txt")
    assert _differing(pair) == ["a.txt"]


def test_the_workspaces_index_flags_do_not_hide_a_change(tmp_path: Path) -> None:
    """assume-unchanged and skip-worktree in W's own index: the comparison reads F's index, not
    W's, so a change W's git would not show is still found."""
    pair = _pair(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    raw_git(pair.workspace, "update-index", "--assume-unchanged", "a.py")
    raw_git(pair.workspace, "update-index", "--skip-worktree", "b.py")
    (pair.workspace / "a.py").write_text("a = 2\n")
    (pair.workspace / "b.py").write_text("b = 2\n")
    assert raw_git(pair.workspace, "status", "--porcelain") == ""  # W's git sees nothing
    assert _differing(pair) == ["a.py", "b.py"]


def test_a_macro_attribute_that_converts_is_compared_by_bytes(tmp_path: Path) -> None:
    """`[attr]` macros: `*.txt lie` where `lie` expands to `text eol=crlf` makes F's checkout
    CRLF; W holding the blob's LF bytes differs from F's tree. Fails without `_converted`
    (W's bytes hash to the blob)."""
    pair = _pair(
        tmp_path,
        {
            ".gitattributes": "[attr]lie text eol=crlf\n*.txt lie\n*.bin binary\n",
            "sub/a.txt": "one\ntwo\n",
            "data.bin": "raw\n",
        },
    )
    (pair.workspace / "sub" / "a.txt").write_bytes(b"one\ntwo\n")  # the blob, not F's tree
    assert _differing(pair) == ["sub/a.txt"]
    assert (pair.fixbot / "sub" / "a.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_attributes_in_a_subfolder_and_in_the_clones_info_are_honoured(tmp_path: Path) -> None:
    """A `.gitattributes` deeper down, and one in F's `.git/info/attributes` (no tracked file
    at all), each make F's file differ from its blob."""
    pair = _pair(tmp_path, {"deep/er/.gitattributes": "x.txt ident\n", "deep/er/x.txt": "$Id$\n"})
    (pair.workspace / "deep/er/x.txt").write_text("$Id$\n")
    assert _differing(pair) == ["deep/er/x.txt"]
    assert (pair.fixbot / "deep/er/x.txt").read_text() != "$Id$\n"  # expanded in F

    other = _pair(tmp_path / "2", {"y.txt": "one\n"})
    _write(other)
    (other.fixbot / ".git" / "info" / "attributes").write_text("y.txt eol=crlf\n")
    (other.fixbot / "y.txt").unlink()
    with worlds.entered(other.fixbot.parent):
        raw_git(other.fixbot, "checkout", "--", "y.txt")
    assert (other.fixbot / "y.txt").read_bytes() == b"one\r\n"
    assert _differing(other) == ["y.txt"]


def test_attributes_from_a_gitattributes_fixbot_touched_are_still_honoured(
    tmp_path: Path,
) -> None:
    """F's `.gitattributes` listed by `git diff-files` (its stat changed: a fix touched it, or
    a resumed run's clone) is left out of the blob paths; the attributes it sets must still be
    asked for. `working-tree-encoding=IBM037` (EBCDIC) keeps the size, so the size check does
    not catch it. Failed before: `_converted` looked for `.gitattributes` among the blob paths
    only, ran no `git check-attr`, and W holding the blob's ASCII bytes was taken for F's
    EBCDIC checkout."""
    workspace = make_repo(
        tmp_path / "w", {".gitattributes": "a.txt working-tree-encoding=IBM037\n"}
    )
    (workspace / "a.txt").write_bytes("hello\n".encode("cp037"))  # git stores UTF-8
    raw_git(workspace, "add", "a.txt")
    raw_git(workspace, "commit", "-qm", "ebcdic")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
    pair = sync.Worlds(private / worlds.REPO, workspace)
    _write(pair)
    assert (pair.fixbot / "a.txt").read_bytes() == "hello\n".encode("cp037")
    assert _differing(pair) == []  # W as F's checkout
    os.utime(pair.fixbot / ".gitattributes", ns=(1, 1))  # stat-dirty, same bytes
    (pair.workspace / "a.txt").write_bytes(b"hello\n")  # the blob's bytes, same size
    assert _differing(pair) == ["a.txt"]


SYSTEM_ATTRIBUTES = """
import os, sys
from pathlib import Path
from fixbot.process import sync, worlds
tmp = Path(sys.argv[1])
workspace = tmp / "w"
private = worlds.private_folder(workspace, tmp / "state")
worlds.write_gitconfig(private, {})
with worlds.entered(private):
    worlds.clone(workspace, private / worlds.REPO)
    pair = sync.Worlds(private / worlds.REPO, workspace)
    same = (pair.fixbot / "a.txt").read_bytes() == (workspace / "a.txt").read_bytes()
    print(same, pair.differing() == [])
"""


@pytest.mark.slow
@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare"), reason="a mount namespace needs root"
)
def test_a_system_attributes_file_never_converts_fixbots_checkout(tmp_path: Path) -> None:
    """`/etc/gitattributes` (git reads it unless GIT_ATTR_NOSYSTEM) saying
    `* working-tree-encoding=IBM037`, shown to git in a mount namespace of the test's own:
    fixbot's checkout must stay the blob, or the comparison's answer (no attributes file in the
    clone, so no `git check-attr`) would not match the bytes. Failed before: F's checkout was
    EBCDIC, W's file the blob, and the comparison called them the same. Needs root."""
    make_repo(tmp_path / "w", {"a.txt": "hello\n"})  # made outside: the blob is ASCII
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "gitattributes").write_text("* working-tree-encoding=IBM037\n")
    done = subprocess.run(
        [
            *("unshare", "--mount", "--propagation", "private", "sh", "-c"),
            'mount --bind "$0" /etc && exec "$1" -c "$2" "$3"',
            *(str(etc), sys.executable, SYSTEM_ATTRIBUTES, str(tmp_path)),
        ],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # the bytes agree, and so does the answer


def test_a_path_with_a_newline_is_compared(tmp_path: Path) -> None:
    pair = _pair(tmp_path, {"a\nb.txt": "one\n"})
    (pair.workspace / "a\nb.txt").write_text("two\n")
    assert _differing(pair) == ["a\nb.txt"]


def test_a_path_that_is_not_utf8_is_compared_and_synced(tmp_path: Path) -> None:
    """A tracked name with a byte that is not UTF-8 (`data\\xff.mk`: a Makefile's
    `include *.mk` picks it up). Failed before: git's output was decoded with `errors=replace`,
    the name came back with U+FFFD, F's lstat found nothing and the path was neither compared
    nor ever synced, so the check ran on W's own version of it while fixbot's clone (and the
    commit) held another."""
    name = os.fsdecode(b"data\xff.mk")
    pair = _pair(tmp_path, {"keep.txt": "k\n"})
    (pair.workspace / name).write_text("A = 1\n")
    raw_git(pair.workspace, "add", "-A")
    raw_git(pair.workspace, "commit", "-qm", "non-utf8 name")
    with worlds.entered(pair.fixbot.parent):
        worlds.clone(pair.workspace, pair.fixbot)
    (pair.workspace / name).write_text("A = 2\n")  # W's own change
    assert _differing(pair) == [name]
    _write(pair)
    (pair.fixbot / name).write_text("A = 3\n")  # the fix, in F
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert (pair.workspace / name).read_text() == "A = 3\n"


def test_a_folder_planted_as_a_link_on_a_converted_path_is_a_change(tmp_path: Path) -> None:
    """The helper's claim, on the path that is not compared by blob (an attribute converts
    it): `lib/` replaced by a link to a folder holding a same-sized `util.txt`. Failed before:
    `_same` let `Planted` out, and the comparison (and every later sync) ended with it instead
    of reporting a change; the sync now replaces the link. Nothing outside is read."""
    pair = _pair(tmp_path, {".gitattributes": "*.txt ident\n", "lib/util.txt": "y = 2\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "util.txt").write_bytes((pair.workspace / "lib" / "util.txt").read_bytes())
    for child in (pair.workspace / "lib").iterdir():
        child.unlink()
    (pair.workspace / "lib").rmdir()
    (pair.workspace / "lib").symlink_to(outside)
    before = _open_fds()
    assert _differing(pair) == ["lib/util.txt"]
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert _open_fds() == before
    assert not (pair.workspace / "lib").is_symlink()
    assert (outside / "util.txt").read_bytes() == (pair.fixbot / "lib" / "util.txt").read_bytes()


def test_links_fifos_and_proc_files_are_changes_read_nowhere(tmp_path: Path) -> None:
    """A tracked file as a fifo, as a link to `/proc/self/environ`, a tracked folder as a link
    out: each is a change, nothing blocks, nothing outside is read, no descriptor is left."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "d/c.txt": "c\n", "e/f.txt": "f\n"})
    (pair.workspace / "a.txt").unlink()
    os.mkfifo(pair.workspace / "a.txt")
    (pair.workspace / "b.txt").unlink()
    os.symlink("/proc/self/environ", pair.workspace / "b.txt")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.txt").write_text("c\n")  # the blob's bytes, outside the workspace
    (pair.workspace / "d" / "c.txt").unlink()
    (pair.workspace / "d").rmdir()
    (pair.workspace / "d").symlink_to(outside)
    before = _open_fds()
    assert _differing(pair) == ["a.txt", "b.txt", "d/c.txt"]
    assert _open_fds() == before


def test_a_same_sized_file_is_read_within_the_clones_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W's file is read with F's size as the bound (a file that grows after its lstat is cut
    off there, `TooLarge`), and a larger one is not read at all."""
    pair = _pair(tmp_path, {"big.txt": "x" * 1000, "grow.txt": "g" * 10})
    (pair.workspace / "big.txt").write_text("x" * 5000)
    limits: list[tuple[str, int | None]] = []
    real = sync.read_in
    monkeypatch.setattr(
        sync,
        "read_in",
        lambda folders, rel, limit=None, *rest: (
            limits.append((rel, limit)) or real(folders, rel, limit, *rest)
        ),
    )
    assert _differing(pair) == ["big.txt"]
    assert limits == [("grow.txt", 10)]  # big.txt's size differed: not read
    with (
        pytest.raises(nofollow.TooLarge),
        nofollow.Folders(pair.workspace) as folders,
    ):
        (pair.workspace / "grow.txt").write_text("g" * 11)
        nofollow.read_in(folders, "grow.txt", 10)


def test_a_folder_swapped_for_a_link_during_the_comparison_is_not_recorded_as_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process the earlier step left behind swaps `d/` for a link to a copy outside while
    the comparison holds `d/` open: the kept descriptor still reads the old folder's file (the
    blob's bytes), while the lstat the record is made of went through the link. Failed before:
    `d/y.txt` was recorded as synced with the outside file's lstat, so the first sync left the
    link in place and the check read the outside file at a tracked path. Now the file read
    recorded is the lstat of the file read, taken through the same folders."""
    pair = _pair(tmp_path, {"d/x.txt": "x\n", "d/y.txt": "y\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    os.link(pair.workspace / "d" / "x.txt", outside / "x.txt")  # the same lstat as W's
    (outside / "y.txt").write_text("Y\n")  # same size, other bytes
    real = sync.read_in
    swapped: list[bool] = []

    def swap_after_first(folders: nofollow.Folders, rel: str, *rest: object) -> bytes:
        data = real(folders, rel, *rest)  # type: ignore[arg-type]
        if not swapped:
            swapped.append(True)
            (pair.workspace / "d").rename(tmp_path / "old-d")
            (pair.workspace / "d").symlink_to(outside)
        return data

    monkeypatch.setattr(sync, "read_in", swap_after_first)
    assert _differing(pair) == []  # what was read is the blob: old d/, as W held it
    monkeypatch.undo()
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert not (pair.workspace / "d").is_symlink()  # before: the link stayed, unsynced
    assert (pair.workspace / "d" / "y.txt").read_text() == "y\n"
    assert (outside / "y.txt").read_text() == "Y\n"


def test_after_the_race_the_first_sync_leaves_every_tracked_file_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race above, one sync later: every tracked file must be in W for the first command.
    Failed before: the sync's lstat went through the linked folder, `d/x.txt` (its hard link
    outside, made before the comparison: the same lstat) was kept as synced, then the folder
    that replaced the link for `d/y.txt` lacked it, and the first command ran without it. Now
    the sync's lstat goes through `nofollow.Folders`: a linked folder's file is never as
    synced. (The race needs a process of the earlier step still running, which could delete
    the file itself: no capability beyond its own, but the sync's promise is kept.)"""
    pair = _pair(tmp_path, {"d/x.txt": "x\n", "d/y.txt": "y\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    os.link(pair.workspace / "d" / "x.txt", outside / "x.txt")
    (outside / "y.txt").write_text("Y\n")
    real = sync.read_in

    def swap_after_first(folders: nofollow.Folders, rel: str, *rest: object) -> bytes:
        data = real(folders, rel, *rest)  # type: ignore[arg-type]
        if not (pair.workspace / "d").is_symlink():
            (pair.workspace / "d").rename(tmp_path / "old-d")
            (pair.workspace / "d").symlink_to(outside)
        return data

    monkeypatch.setattr(sync, "read_in", swap_after_first)
    _differing(pair)
    monkeypatch.undo()
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert (pair.workspace / "d" / "x.txt").read_text() == "x\n"


def test_a_submodule_path_is_not_compared_and_never_followed(tmp_path: Path) -> None:
    """A gitlink (mode 160000) in F's index: not a blob, F's folder for it is skipped, and a
    link W puts there is not followed."""
    pair = _pair(tmp_path, {"a.txt": "a\n"})
    sha = raw_git(pair.workspace, "rev-parse", "HEAD")
    raw_git(pair.workspace, "update-index", "--add", "--cacheinfo", f"160000,{sha},sub")
    raw_git(pair.workspace, "commit", "-qm", "gitlink")
    with worlds.entered(pair.fixbot.parent):
        worlds.clone(pair.workspace, pair.fixbot)
    os.symlink("/etc", pair.workspace / "sub")
    assert _differing(pair) == []
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert (pair.workspace / "sub").is_symlink()  # not fixbot's to sync, and not written


def test_a_sparse_workspace_gets_every_tracked_file(tmp_path: Path) -> None:
    """W's own sparse checkout leaves tracked files out of its work tree: not a change (not
    recorded either), and the first sync writes them, so the check runs on the whole tree."""
    pair = _pair(tmp_path, {"in/a.txt": "a\n", "out/b.txt": "b\n"})
    raw_git(pair.workspace, "sparse-checkout", "set", "in")
    assert not (pair.workspace / "out" / "b.txt").exists()
    assert _differing(pair) == []
    assert "out/b.txt" not in pair.manifest
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    assert (pair.workspace / "out" / "b.txt").read_text() == "b\n"


# 2. The refactors of fixbot/process/ (commit 67336f9): same refusals, same order


def test_own_repository_still_refuses_a_linked_git_before_reading_anything(
    tmp_path: Path,
) -> None:
    """`own_repository` split into `_repository_folders`, `_with_alternates`, `_alternates`:
    a `.git` that is a link is refused first, and an alternate two deep of another owner or
    holding a link is still reached."""
    workspace = make_repo(tmp_path / "w", {"a.txt": "a\n"})
    real = tmp_path / "real-git"
    (workspace / ".git").rename(real)
    (workspace / ".git").symlink_to(real)
    with pytest.raises(GitError, match="is a link"):
        cloning.own_repository(workspace)
    (workspace / ".git").unlink()
    real.rename(workspace / ".git")
    first = tmp_path / "alt1"
    second = tmp_path / "alt2"
    (first / "info").mkdir(parents=True)
    (second / "info").mkdir(parents=True)
    (workspace / ".git" / "objects" / "info" / "alternates").write_text(f"{first}\n")
    (first / "info" / "alternates").write_text(f"{second}\n")
    os.symlink("/etc/passwd", second / "planted")
    with pytest.raises(GitError, match="holds a link"):
        cloning.own_repository(workspace)


def test_read_back_still_refuses_in_the_old_order(tmp_path: Path) -> None:
    """`_take` split into `_read_within` and `_fixbot_holds`: a protected path, `.git`, a link,
    a fifo and the bounds are still refused, and an unchanged file is not written."""
    pair = _pair(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"})
    pair.refuse = lambda rel: "protected" if rel == "d.txt" else None
    pair.max_bytes = 4
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
    (pair.workspace / "a.txt").unlink()
    os.symlink("/etc/passwd", pair.workspace / "a.txt")
    (pair.workspace / "b.txt").unlink()
    os.mkfifo(pair.workspace / "b.txt")
    (pair.workspace / "c.txt").write_text("ccccccccc\n")  # over the 4 bytes
    (pair.workspace / "d.txt").write_text("D\n")
    with worlds.entered(pair.fixbot.parent):
        result = pair.read_back()
    reasons = dict(result.refused)
    assert result.changed == []
    assert set(reasons) == {"a.txt", "b.txt", "c.txt", "d.txt"}
    assert "over the read-back bounds" in reasons["c.txt"]
    assert reasons["d.txt"].startswith("protected")
    assert (pair.fixbot / "a.txt").read_text() == "a\n"


# 3. The Action's clone path


def _workspace(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "workspace", {"a.txt": "a\n"})


def _env(tmp_path: Path, workspace: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "octo/repo",
        "INPUT_GITHUB-TOKEN": "ghs_" + "t0ken" * 8,
    }


def test_a_clone_path_that_is_a_link_to_the_workspace_is_refused(tmp_path: Path) -> None:
    """The clone's folder (`repo`) replaced by a link to the workspace: its `.git` is a real
    folder, so the old check passed and the publish step's git ran in the workspace. Now the
    clone's folder must not be a link either."""
    workspace = _workspace(tmp_path)
    ctx = make_context(_env(tmp_path, workspace), io.StringIO(), GitHub.connect)
    ctx.clone.parent.mkdir(parents=True)
    ctx.clone.symlink_to(workspace)
    with pytest.raises(GitError, match="clone of the workspace is missing"):
        _ = ctx.repo


def test_a_state_folder_named_by_an_earlier_step_is_not_used_as_root(tmp_path: Path) -> None:
    """`XDG_STATE_HOME`, `HOME` and `RUNNER_TEMP` set by an earlier step (GITHUB_ENV) pointing
    into the workspace: as root the clone is under root's own folder whatever they say (as the
    runner's user they are that user's to set, as are the workspace and the clone)."""
    workspace = _workspace(tmp_path)
    env = _env(tmp_path, workspace) | {
        "XDG_STATE_HOME": str(workspace / ".state"),
        "HOME": str(workspace),
        "RUNNER_TEMP": str(workspace),
    }
    assert worlds.state_base(0, env) == worlds.ROOT_BASE
    assert worlds.clone_path(workspace, worlds.state_base(0, env)).is_relative_to(worlds.ROOT_BASE)
    if os.geteuid() == 0:
        ctx = make_context(env, io.StringIO(), GitHub.connect)
        assert ctx.clone.is_relative_to(worlds.ROOT_BASE)


def test_a_workspace_path_through_a_link_keys_the_same_private_folder(tmp_path: Path) -> None:
    """GITHUB_WORKSPACE naming the workspace through a link: the key is the real path's, so
    the clone is the same one and never the workspace itself."""
    workspace = _workspace(tmp_path)
    alias = tmp_path / "alias"
    alias.symlink_to(workspace)
    base = tmp_path / "state"
    assert worlds.clone_path(alias, base) == worlds.clone_path(workspace, base)
    assert not worlds.clone_path(alias, base).is_relative_to(workspace)
    assert stat.S_ISDIR(workspace.lstat().st_mode)


@pytest.mark.slow
def test_the_recheck_runs_on_the_clones_tree_whatever_the_check_planted(tmp_path: Path) -> None:
    """The publish step's re-check of a replayed fix (`fixbot.run.recheck`). The check, during
    the run, plants `sub/.git` in the working directory `sub/` and leaves a `value.txt` that
    passes: the re-check must still run on fixbot's clone's replayed tree (which fails). Failed
    before: the re-check found its workspace by lstat from the working directory (`sub/`, the
    planted `.git`), found no clone of it and took the folder itself for the clone (no sync,
    its state and git configuration inside the planted folder): it passed, and the replayed
    tree that fails would have been pushed. Now the publish step hands it the workspace and
    the clone (`Context.repo`). Needs root only as the run needs it (runs either way)."""
    from fixbot.core.settings import Settings
    from fixbot.run.recheck import recheck

    workspace = make_repo(tmp_path / "w", {"sub/value.txt": "old\n"})
    os.chmod(tmp_path, 0o755)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    base = worlds.state_base(os.geteuid(), env)
    private = worlds.private_folder(workspace, base)
    try:
        worlds.write_gitconfig(private, {})
        fixbot = worlds.clone_path(workspace, base)
        with worlds.entered(private):
            worlds.clone(workspace, fixbot)
            sync.Worlds(fixbot, workspace).write_files()  # a run's, written before its fix
        (fixbot / "sub" / "value.txt").write_text("broken\n")  # the replayed tree: fails
        raw_git(fixbot, "commit", "-qam", "replayed")
        (workspace / "sub" / "value.txt").write_text("fixed\n")  # left by the check
        raw_git(workspace / "sub", "init", "-q")  # planted by the check
        settings = Settings(check="grep -q fixed value.txt", fix_commands=["true"])
        result = recheck(settings, workspace / "sub", env, "1", workspace=workspace, fixbot=fixbot)
        assert not result.passed
        assert (workspace / "sub" / "value.txt").read_text() == "broken\n"  # synced from F
    finally:
        import shutil as _shutil

        _shutil.rmtree(private, ignore_errors=True)


@pytest.mark.slow
def test_the_actions_run_never_clones_a_repository_planted_in_the_working_directory(
    tmp_path: Path,
) -> None:
    """The Action makes its clone of the workspace, then runs the engine in the working
    directory `sub/` with `clone_ready`. An earlier step made `sub/` a repository of its own:
    the engine finds its workspace by lstat from the working directory (`sub/`), so it must
    not quietly clone that one and check and fix it instead of the branch. Failed before: a
    second clone of `sub/`'s planted repository was made and the run checked it (the
    Action's clone, the one published, untouched)."""
    from fixbot.core.errors import ConfigError
    from fixbot.core.settings import Settings
    from fixbot.run import engine
    from fixbot.run.request import RunRequest

    workspace = make_repo(tmp_path / "w", {"sub/value.txt": "broken\n"})
    os.chmod(tmp_path, 0o755)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    base = worlds.state_base(os.geteuid(), env)
    private = worlds.private_folder(workspace, base)
    planted = worlds.private_folder(workspace / "sub", base)
    try:
        worlds.write_gitconfig(private, {})
        with worlds.entered(private):
            worlds.clone(workspace, worlds.clone_path(workspace, base))
        raw_git(workspace / "sub", "init", "-q")  # the earlier step's own repository
        (workspace / "sub" / "value.txt").write_text("ok\n")
        raw_git(workspace / "sub", "add", "-A")
        raw_git(
            workspace / "sub", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"
        )
        settings = Settings(check="grep -q ok value.txt", fix_commands=["true"])
        with pytest.raises((ConfigError, GitError)):
            engine.run(
                settings,
                workspace / "sub",
                env=env,
                request=RunRequest(clone_ready=True, in_action=True),
            )
        assert not (worlds.clone_path(workspace / "sub", base) / ".git").exists()
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(planted, ignore_errors=True)
