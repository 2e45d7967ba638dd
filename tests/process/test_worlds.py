"""fixbot's clone and the workspace: the sync before each command, the read-back after a fix
command, the private folder and the clone, with real git in real temporary repositories."""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

import pytest

from fixbot.core.errors import ConfigError, GitError
from fixbot.process import commits, git, index, sync, worlds
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo


@pytest.fixture
def pair(tmp_path: Path) -> sync.Worlds:
    """A workspace W (a repository) and fixbot's clone F of it, in a private folder."""
    workspace = make_repo(
        tmp_path / "w",
        {
            "app.py": "x = 1\n",
            "lib/util.py": "y = 2\n",
            ".gitignore": "build/\n",
            "run.sh": "#!/bin/sh\n",
        },
    )
    (workspace / "run.sh").chmod(0o755)
    raw_git(workspace, "add", "-A")
    raw_git(workspace, "commit", "-qm", "exec")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
    return sync.Worlds(private / worlds.REPO, workspace)


def test_sync_writes_only_what_differs_then_nothing(pair: sync.Worlds) -> None:
    assert pair.to_workspace() == 0  # the clone's files equal the workspace's already
    (pair.fixbot / "app.py").write_text("x = 3\n")
    (pair.fixbot / "new.py").write_text("z = 1\n")
    assert pair.to_workspace() == 2
    assert (pair.workspace / "app.py").read_text() == "x = 3\n"
    assert (pair.workspace / "new.py").read_text() == "z = 1\n"
    assert pair.to_workspace() == 0


def test_the_first_comparison_spares_the_first_sync_reading_every_file(
    pair: sync.Worlds, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`differing` read both trees already: the first sync reads no file again (on a
    10,000-file repository, one full read of both trees less per run), and still writes
    what changed since."""
    (pair.workspace / "app.py").write_text("x = 2\n")  # the workspace's own change
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["app.py"]
    reads: list[str] = []
    real = sync.read_at
    monkeypatch.setattr(
        sync, "read_at", lambda root, rel, *rest: reads.append(rel) or real(root, rel, *rest)
    )
    with worlds.entered(pair.fixbot.parent):
        assert pair.to_workspace() == 1  # F's app.py goes back: no --allow-dirty here
    assert set(reads) == {"app.py"}  # without the record: every file, read in both trees
    assert (pair.workspace / "app.py").read_text() == "x = 1\n"


def test_the_first_comparison_reads_the_workspace_alone_against_the_index(
    pair: sync.Worlds, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W's files are hashed as git blobs and compared with F's index: F's files are not read
    (half the reads on a large repository), and a change that keeps the size is still found."""
    (pair.workspace / "app.py").write_text("x = 2\n")  # same size as "x = 1\n"
    reads: list[tuple[str, str]] = []
    real_at, real_in = sync.read_at, sync.read_in
    monkeypatch.setattr(
        sync,
        "read_at",
        lambda root, rel, *rest: reads.append((str(root), rel)) or real_at(root, rel, *rest),
    )
    monkeypatch.setattr(
        sync,
        "read_in",
        lambda f, rel, *rest: reads.append((str(f.root), rel)) or real_in(f, rel, *rest),
    )
    with worlds.entered(pair.fixbot.parent):
        assert pair.differing() == ["app.py"]
    assert {root for root, _ in reads} == {str(pair.workspace)}
    assert sorted(rel for _, rel in reads) == [".gitignore", "app.py", "lib/util.py", "run.sh"]


def test_a_file_fixbot_changed_or_git_converts_is_compared_with_its_bytes(
    tmp_path: Path,
) -> None:
    """Where F's file is not its blob (F's work tree changed since the checkout; an attribute
    converts it, `eol=crlf`) W is compared with F's bytes, as before: W holding F's checkout is
    not a change, W holding the blob's bytes is."""
    workspace = make_repo(
        tmp_path / "w",
        {"a.txt": "one\ntwo\n", "b.txt": "same\n", ".gitattributes": "a.txt eol=crlf\n"},
    )
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
        pair = sync.Worlds(private / worlds.REPO, workspace)
        assert (pair.fixbot / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
        (pair.workspace / "a.txt").write_bytes(b"one\r\ntwo\r\n")  # as F's checkout
        (pair.fixbot / "b.txt").write_text("else\n")  # F's work tree, not its index
        assert pair.differing() == ["b.txt"]
        (pair.workspace / "a.txt").write_bytes(b"one\ntwo\n")  # the blob's bytes, not F's
        assert pair.differing() == ["a.txt", "b.txt"]


def test_blob_ids_are_gits_own() -> None:
    assert index.blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert index.blob_id(b"", 64) == (
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
    )


def test_sync_replaces_what_a_command_planted_at_a_tracked_path(
    pair: sync.Worlds, tmp_path: Path
) -> None:
    pair.to_workspace()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "util.py").write_text("untouched\n")
    raw = pair.workspace / "lib"
    for child in raw.iterdir():
        child.unlink()
    raw.rmdir()
    raw.symlink_to(outside)  # a folder on a tracked path becomes a link out
    (pair.workspace / "app.py").unlink()
    os.mkfifo(pair.workspace / "app.py")  # a fifo where a tracked file was
    pair.to_workspace()
    assert (outside / "util.py").read_text() == "untouched\n"  # never written through the link
    assert not (pair.workspace / "lib").is_symlink()
    assert (pair.workspace / "lib" / "util.py").read_text() == "y = 2\n"
    assert stat.S_ISREG((pair.workspace / "app.py").lstat().st_mode)
    assert os.access(pair.workspace / "run.sh", os.X_OK)


def test_sync_deletes_what_fixbot_deleted_and_keeps_untracked_files(pair: sync.Worlds) -> None:
    pair.to_workspace()
    (pair.workspace / "build").mkdir()
    (pair.workspace / "build" / "out.o").write_text("binary")
    (pair.fixbot / "app.py").unlink()
    raw_git(pair.fixbot, "rm", "-q", "--cached", "app.py")
    pair.to_workspace()
    assert not (pair.workspace / "app.py").exists()
    assert (pair.workspace / "build" / "out.o").read_text() == "binary"


def test_read_back_brings_changed_regular_files_only(pair: sync.Worlds, tmp_path: Path) -> None:
    pair.to_workspace()
    (pair.workspace / "app.py").write_text("x = 9\n")
    (pair.workspace / "lib" / "util.py").unlink()
    (pair.workspace / "lib" / "util.py").symlink_to("/etc/shadow")
    os.unlink(pair.workspace / "run.sh")
    os.mkfifo(pair.workspace / "run.sh")
    (pair.workspace / "added.py").write_text("new\n")
    (pair.workspace / "build").mkdir()
    (pair.workspace / "build" / "ignored.o").write_text("ignored\n")
    (pair.workspace / ".ruff_cache" / "0.1").mkdir(parents=True)  # a cache ignoring itself
    (pair.workspace / ".ruff_cache" / ".gitignore").write_text("# made by ruff\n*\n")
    (pair.workspace / ".ruff_cache" / "0.1" / "entry").write_text("cache\n")
    back = pair.read_back()
    assert sorted(back.changed) == ["added.py", "app.py"]
    assert {rel for rel, _ in back.refused} == {"lib/util.py", "run.sh"}
    assert (pair.fixbot / "app.py").read_text() == "x = 9\n"
    assert (pair.fixbot / "lib" / "util.py").read_text() == "y = 2\n"  # not the link's target
    assert not (pair.fixbot / "lib" / "util.py").is_symlink()
    assert not (pair.fixbot / "build").exists()
    pair.to_workspace()  # the next command sees fixbot's tree again
    assert (pair.workspace / "lib" / "util.py").read_text() == "y = 2\n"


def test_read_back_refuses_protected_paths_and_fixbot_folders(pair: sync.Worlds) -> None:
    pair.refuse = lambda rel: ".github/**" if rel.startswith(".github/") else None
    pair.to_workspace()
    (pair.workspace / ".github" / "workflows").mkdir(parents=True)
    (pair.workspace / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (pair.workspace / ".fixbot").mkdir()
    (pair.workspace / ".fixbot" / "ownership.json").write_text("[]")
    (pair.workspace / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    back = pair.read_back()
    assert back.changed == []
    assert not (pair.fixbot / ".github").exists()
    assert not (pair.fixbot / ".fixbot").exists()


def test_read_back_is_bounded(pair: sync.Worlds) -> None:
    pair.max_files = 1
    pair.to_workspace()
    (pair.workspace / "a.py").write_text("a\n")
    (pair.workspace / "b.py").write_text("b\n")
    back = pair.read_back()
    assert len(back.changed) == 1
    assert [why for _, why in back.refused] == ["over the read-back bounds"]


def test_clone_runs_nothing_of_the_workspace_repository(tmp_path: Path) -> None:
    """A filter, a hook and a `commondir` planted in the workspace's `.git`, a `.gitattributes`
    selecting the filter: cloning and every git of fixbot's on the clone run none of them."""
    workspace = make_repo(
        tmp_path / "w", {"app.py": "x = 1\n", ".gitattributes": "* filter=evil\n"}
    )
    marker = tmp_path / "ran"
    raw_git(workspace, "config", "filter.evil.clean", f"sh -c 'echo clean >> {marker}; cat'")
    raw_git(workspace, "config", "filter.evil.smudge", f"sh -c 'echo smudge >> {marker}; cat'")
    raw_git(workspace, "config", "core.fsmonitor", f"sh -c 'echo fsmonitor >> {marker}'")
    hook = workspace / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\necho hook >> {marker}\n")
    hook.chmod(0o755)
    (workspace / ".git" / "commondir").write_text(str(tmp_path / "elsewhere") + "\n")
    home = Path(os.environ["HOME"])
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "attributes").write_text("* filter=evil\n")
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        (workspace / ".git" / "commondir").unlink()  # upload-pack needs a readable repository
        sha, branch = worlds.clone(workspace, private / worlds.REPO)
        fixbot = private / worlds.REPO
        (fixbot / "app.py").write_text("x = 2\n")
        commits.commit_all(fixbot, "fixbot: fix")
        git.status_lines(fixbot)
    assert branch == "main" and sha == raw_git(workspace, "rev-parse", "HEAD")
    assert not marker.exists()


def test_private_folder_is_private_and_refuses_a_planted_link(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    folder = worlds.private_folder(workspace, tmp_path / "state")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert worlds.private_folder(workspace, tmp_path / "state") == folder
    other = tmp_path / "other"
    other.mkdir()
    planted = tmp_path / "state2"
    planted.mkdir(mode=0o700)
    (planted / worlds.repo_key(workspace)).symlink_to(other)
    with pytest.raises(ConfigError, match="not a folder of fixbot's own user"):
        worlds.private_folder(workspace, planted)


def test_the_workspace_identity_is_read_as_data(tmp_path: Path) -> None:
    """user.name/user.email of the workspace's .git/config; an include is not followed, and a
    config that is a link is not read."""
    repo = make_repo(tmp_path / "ws", {"a.txt": "a\n"})
    elsewhere = tmp_path / "included"
    elsewhere.write_text("[user]\n\temail = planted@example.invalid\n")
    raw_git(repo, "config", "user.name", 'Ada "L" Lovelace')
    raw_git(repo, "config", "include.path", str(elsewhere))
    assert worlds.workspace_identity(repo) == {"name": 'Ada "L" Lovelace'}
    config = repo / ".git" / "config"
    real = tmp_path / "real-config"
    config.rename(real)
    config.symlink_to(real)
    assert worlds.workspace_identity(repo) == {}


def test_an_identity_with_quotes_and_semicolons_is_one_value(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    path = worlds.write_gitconfig(folder, {"name": 'a; "b" # \\c', "email": "e@x.invalid"})
    got = git.run(tmp_path, "config", "--file", str(path), "--get", "user.name")
    assert got == 'a; "b" # \\c'


def test_fixbots_git_reaches_no_local_repository_but_the_workspace_it_clones(
    tmp_path: Path,
) -> None:
    """fixbot's git configuration allows only the server's transport (`https` by default):
    a local path, a `file://` URL or `ext::` as a remote fails instead of running that
    repository's hooks with fixbot's rights; the clone of the workspace alone reads a local
    repository (git-upload-pack)."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    other = make_repo(tmp_path / "other", {"b.txt": "b\n"})
    private = worlds.private_folder(repo, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    fixbot = private / worlds.REPO
    with worlds.entered(private):
        worlds.clone(repo, fixbot)
        for url in (str(other), other.as_uri(), "ext::sh -c true"):
            done = git.completed(fixbot, "fetch", "--quiet", url, "HEAD")
            assert done.returncode != 0 and "not allowed" in done.stderr, (url, done.stderr)


@pytest.mark.skipif(os.geteuid() != 0, reason="a root-only repository needs root")
def test_a_gitfile_naming_a_root_only_repository_is_never_cloned(tmp_path: Path) -> None:
    """An earlier step, as the workspace's owner, replaced `.git` with a gitfile naming a
    repository only root may read (or listed it as an alternate): fixbot, as root, cloned it and
    handed its files to the commands and the model. It refuses now."""
    secret = make_repo(tmp_path / "secret", {"key.txt": "root only\n"})
    secret.chmod(0o700)
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n"})
    for path in [workspace, *workspace.rglob("*")]:
        os.lchown(path, 65534, 65534)
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {}, trusted=(workspace,), protocols=())  # as a run does
    for plant in ("gitfile", "alternates"):
        if plant == "gitfile":
            import shutil

            shutil.rmtree(workspace / ".git")
            (workspace / ".git").write_text(f"gitdir: {secret / '.git'}\n")
            os.lchown(workspace / ".git", 65534, 65534)
        else:
            (workspace / ".git").unlink()
            raw_git(tmp_path, "init", "-q", str(workspace))
            alternates = workspace / ".git" / "objects" / "info" / "alternates"
            alternates.write_text(str(secret / ".git" / "objects") + "\n")
            head = raw_git(secret, "rev-parse", "HEAD")
            (workspace / ".git" / "refs" / "heads" / "main").write_text(head + "\n")
            (workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
            for path in [workspace, *workspace.rglob("*")]:
                os.lchown(path, 65534, 65534)
        with worlds.entered(private), pytest.raises(GitError, match="not the workspace owner"):
            worlds.clone(workspace, private / worlds.REPO)
        assert not (private / worlds.REPO / "key.txt").exists()


def test_a_file_a_survivor_writes_between_commands_is_never_read_back(
    pair: sync.Worlds, tmp_path: Path
) -> None:
    """Without the PID namespace, a check leaves a process that escaped the sweep (it dropped
    the marker from its environment and left the group) rewriting `evil.py`: the next fix
    command's read-back carried it into the verified commit. A file that appeared or changed
    since the last command ended, when none ran, never comes back; the fix command's own does."""
    from fixbot.core.budget import Deadline
    from fixbot.process.launcher import Launcher

    pidfile = tmp_path / "survivor.pid"
    survivor = (
        f"setsid env -i sh -c 'echo $$ > {pidfile}; "
        "while :; do date +%s%N > evil.py; sleep 0.02; done' >/dev/null 2>&1 & "
        "while [ ! -e evil.py ]; do sleep 0.01; done"  # it left the sweep's reach: it wrote
    )
    env = {"PATH": os.environ["PATH"]}
    launcher = Launcher(pair.fixbot, env, namespace=False, deadline=Deadline.start(None), pair=pair)
    with worlds.entered(pair.fixbot.parent):
        try:
            launcher.run(survivor, pair.fixbot, tmp_path / "check.log", 30)
            # the survivor writes again after the check ended, then stops: on a loaded machine
            # it might otherwise be scheduled only while the fix command runs, which no
            # snapshot can tell from the fix command's own write
            evil = pair.workspace / "evil.py"
            first = evil.read_bytes()
            for _ in range(3000):
                if evil.read_bytes() not in (first, b""):
                    break
                time.sleep(0.01)
            os.kill(int(pidfile.read_text()), 9)
            _, back = launcher.run_fix("echo 'y = 3' > fixed.py", pair.fixbot, tmp_path / "f", 30)
        finally:
            if pidfile.exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pidfile.read_text()), 9)
    assert back is not None
    assert back.changed == ["fixed.py"]
    assert ("evil.py", "written while no fix command ran (a process left)") in back.refused
    assert not (pair.fixbot / "evil.py").exists()
