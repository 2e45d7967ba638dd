"""The boundary around the project's commands, attacked from inside the commands.

Each test plays a hostile check, set-up or fix command with real processes, real git and real
temporary repositories, as root (this machine and CI) with the unprivileged user fixbot's
container uses (`nobody` here) where the hole is the container's, and shows the control holds;
the tests named `..._is_real` disable the control once and show the attack then succeeds.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError, GitError
from fixbot.core.settings import Settings
from fixbot.github.api import checkout
from fixbot.process import commits, git, programs, sandbox, sync, worlds
from fixbot.process.launcher import Launcher, launcher_for
from fixbot.security.redact import Redactor
from fixbot.ui import workflow
from tests.fakes.installation import as_in_the_image, in_the_image
from tests.fakes.paths import ROOT
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo, pid_alive

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="the container's boundary (another uid, root's .git) needs root"
)
NOBODY = sandbox.Identity(65534, 65534, "nobody")
TOKEN = "ghs_" + "B0undary" * 4
MODEL_KEY = "sk-" + "b0undary" * 4


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder other users may enter (pytest's own temporary folders are mode 0700)."""
    path = Path(tempfile.mkdtemp(prefix="fixbot-boundary-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def fresh_programs() -> Iterator[None]:
    """fixbot's programs are resolved once per process: resolve them again for this test."""
    programs.which.cache_clear()
    yield
    programs.which.cache_clear()


def env_recorder(path: Path, marker: Path) -> None:
    """An executable at `path` that appends its uid and environment to `marker`."""
    path.write_text(
        f"#!/bin/sh\n/usr/bin/id -u >> {marker}\n/usr/bin/env >> {marker}\necho '{{}}'\n"
    )
    path.chmod(0o755)


# -- a `git` the commands plant never runs as root: fixbot's programs come from root's folders -----


@needs_root
def test_a_git_planted_where_the_commands_can_write_never_runs(
    open_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh_programs: None
) -> None:
    """`/opt/venv/bin` is the commands' and first on PATH: a `git` dropped there by the check
    must not run as root (with the token) when fixbot runs git."""
    planted = open_dir / "venv-bin"
    planted.mkdir()
    os.chown(planted, NOBODY.uid, NOBODY.gid)
    marker = open_dir / "planted-git-ran"
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    launcher = Launcher(repo, {"PATH": os.environ["PATH"]}, NOBODY, deadline=Deadline.start(None))
    plant = f"printf '#!/bin/sh\\necho ran >> {marker}\\n' > {planted}/git; chmod 755 {planted}/git"
    assert launcher.run(plant, repo, open_dir / "c.log", 30).exit_code == 0
    assert (planted / "git").stat().st_uid == NOBODY.uid  # the attack is in place

    git.status_lines(repo)
    commits.snapshot(repo, "refs/fixbot/attempt-1", "attempt 1")
    assert programs.which("git") != str(planted / "git")
    assert str(planted) not in programs.trusted_path(os.environ["PATH"], 0).split(os.pathsep)
    assert str(planted) not in git.git_environment()["PATH"]  # nor for git's own children
    assert not marker.exists()


def test_a_folder_is_trusted_only_when_root_alone_can_write_it_and_its_parents(
    tmp_path: Path,
) -> None:
    assert programs.root_only(Path("/usr/bin")) == (os.stat("/usr/bin").st_uid == 0)
    assert not programs.root_only(Path("/tmp"))  # world-writable, sticky or not
    inner = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        assert not programs.root_only(inner)  # its parent /tmp is writable by all
    finally:
        inner.rmdir()
    assert not programs.root_only(tmp_path / "missing")
    assert programs.trusted_path("relative:/tmp", 0).split(os.pathsep)[0] != "relative"
    assert programs.trusted_path("/tmp:/x", 1000) == "/tmp:/x"  # not root: as given


# -- repository config written during the run never reaches fixbot's git ---------------------------


def pushurl_attack(evil: Path) -> str:
    return (
        f"git config remote.origin.pushurl {evil} && "
        "git config protocol.ext.allow always && git config core.fsmonitor 'env > fsm.txt'"
    )


def _clone_for(repo: Path, tmp_path: Path) -> sync.Worlds:
    """fixbot's clone of `repo` in a private folder, as a run makes it, and the pair."""
    private = worlds.private_folder(repo, tmp_path / "state")
    worlds.write_gitconfig(private, {}, protocols=("file",))  # the test's server: a folder
    origin = git.run(repo, "config", "--get", "remote.origin.url", check=False)  # the server's
    with worlds.entered(private):
        worlds.clone(repo, private / worlds.REPO)
        if origin:
            git.run(private / worlds.REPO, "remote", "set-url", "origin", origin)
    return sync.Worlds(private / worlds.REPO, repo)


@pytest.mark.parametrize("two_worlds", [True, False], ids=["two_worlds", "attack_is_real"])
def test_config_the_check_writes_into_git_never_reaches_fixbots_push(
    tmp_path: Path, two_worlds: bool
) -> None:
    """As fixbot's own user (the CLI) the check can write the workspace's `.git/config`: a
    `pushurl` of its choosing would receive fixbot's push with the token. fixbot pushes from its
    own clone, whose configuration the check never reaches."""
    origin, evil = tmp_path / "origin.git", tmp_path / "evil.git"
    for bare in (origin, evil):
        raw_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    raw_git(repo, "remote", "add", "origin", str(origin))
    raw_git(repo, "push", "-q", "origin", "main")
    pair = _clone_for(repo, tmp_path) if two_worlds else None
    launcher = Launcher(
        pair.fixbot if pair else repo,
        {"PATH": os.environ["PATH"]},
        pair=pair,
        deadline=Deadline.start(None),
    )
    ran = launcher.run(pushurl_attack(evil), pair.fixbot if pair else repo, tmp_path / "c.log", 30)
    assert ran.exit_code == 0
    ours = pair.fixbot if pair else repo
    (ours / "app.py").write_text("x = 2\n")
    with worlds.entered(ours.parent) if pair else contextlib.nullcontext():
        sha = commits.commit_paths(ours, ["app.py"], "fix")
        assert sha is not None
        checkout.push(ours, sha, "main", checkout.auth_env(TOKEN), secrets={})
    landed = raw_git(origin if two_worlds else evil, "rev-parse", "main")
    assert landed == sha
    if two_worlds:
        assert "evil" in (repo / ".git" / "config").read_text()  # the attack happened, in W
        assert _git_code(evil, "rev-parse", "--verify", "-q", "main") != 0


def _git_code(repo: Path, *args: str) -> int:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False).returncode


def test_an_ext_pushurl_never_runs_a_command(tmp_path: Path) -> None:
    """`protocol.ext.allow=never` on fixbot's command line outranks the repository's
    `always`: a `pushurl = ext::sh ...` fails instead of running the script with the token."""
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    marker = tmp_path / "ext-ran"
    raw_git(repo, "remote", "add", "origin", str(tmp_path / "origin.git"))
    raw_git(repo, "config", "remote.origin.pushurl", f"ext::sh -c touch% {marker}")
    raw_git(repo, "config", "protocol.ext.allow", "always")
    with pytest.raises(GitError):
        checkout.push(repo, git.head_sha(repo), "main", checkout.auth_env(TOKEN), secrets={})
    assert not marker.exists()
    _git_code(repo, "push", "-q", "origin", "HEAD:main")  # plain git runs it: the attack is real
    assert marker.exists()


# -- the model's file tools use the one hardened git: a check's `core.fsmonitor` never runs --------


def test_the_file_tools_git_runs_no_fsmonitor_and_holds_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixbot.agent.tools import Toolbox

    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n", ".gitignore": "build/\n"})
    marker = tmp_path / "fsmonitor-env"
    hook = tmp_path / "fsmonitor.sh"
    env_recorder(hook, marker)
    raw_git(repo, "config", "core.fsmonitor", str(hook))
    raw_git(repo, "config", "core.untrackedCache", "true")
    (repo / "new.py").write_text("y = 1\n")
    box = Toolbox(repo)
    assert "new.py" in box.tracked()
    assert box.ignored(repo / "build" / "out.o")
    assert not marker.exists()
    raw_git(repo, "status", "--porcelain")  # the repository's git runs it: the attack is real
    assert marker.exists()


# -- the research tool runs the check's Python behind the boundary, never as root ------------------


@needs_root
def test_the_research_tool_runs_the_checks_python_as_the_commands_user(
    open_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixbot.agent import research

    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    venv = open_dir / "venv-bin"
    venv.mkdir()
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    marker = repo / "python-ran"  # the repository is the commands' to write
    env_recorder(venv / "python3", marker)
    env = {"PATH": str(venv), "OPENAI_API_KEY": MODEL_KEY}  # fixbot's, with the model's key
    with sandbox.handed_over(repo, NOBODY) as who:
        settings = Settings(check="python -m pytest")
        launcher = launcher_for(settings, repo, env, who, Redactor.from_env(env))  # the run's
        assert research.find_python("requests", str(venv), launcher) is None
    seen = marker.read_text()
    assert seen.splitlines()[0] == str(NOBODY.uid)
    assert MODEL_KEY not in seen


# -- a fork loop is bounded: the commands may start only so many processes -------------------------


FORK_LOOP = "n=0; while [ $n -lt 5000 ]; do sleep 20 & n=$((n+1)); echo $n > n.txt; done"


@needs_root
def test_a_fork_loop_is_bounded(open_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "MAX_PROCESSES", 64)
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    with sandbox.handed_over(repo, NOBODY) as who:
        result = Launcher(
            repo, {"PATH": os.environ["PATH"]}, who, deadline=Deadline.start(None)
        ).run(FORK_LOOP, repo, open_dir / "c.log", 600)
        started = int((repo / "n.txt").read_text())
    assert result.exit_code != 0 and "fork" in (open_dir / "c.log").read_text().lower()
    assert started < 64 and not result.timed_out  # bounded by the limit, not the timeout
    assert not any(_uid_processes(NOBODY.uid, "sleep 20"))  # and none outlived the step


def _uid_processes(uid: int, cmdline: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or entry.stat().st_uid != uid:
                continue
            if (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == cmdline.encode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


# -- a run never signals what it did not start; two runs at once ----------------------------------


@pytest.mark.slow
@needs_root
def test_the_sweep_spares_processes_it_did_not_start(open_dir: Path) -> None:
    """A process of `nobody` fixbot did not start, and another command's process, survive a
    command's end (the marked sweep, the fallback without a PID namespace)."""
    foreign = subprocess.Popen(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "30"]
    )
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    env = {"PATH": os.environ["PATH"]}
    try:
        with sandbox.handed_over(repo, NOBODY) as who:
            other = Launcher(repo, env, who, namespace=False, deadline=Deadline.start(None))
            slow = subprocess.Popen(  # another run's command, still running
                [sys.executable, "-c", SLOW, str(repo)],
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            time.sleep(1)
            assert other.run("sleep 0.2 & exit 0", repo, open_dir / "c.log", 30).exit_code == 0
            assert pid_alive(foreign.pid)
            assert slow.wait(30) == 0  # its sleep was not killed by the other command's end
    finally:
        foreign.kill()
        foreign.wait()


SLOW = """
import os, sys
from pathlib import Path
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
repo = Path(sys.argv[1])
env = {"PATH": os.environ["PATH"]}
launcher = Launcher(repo, env, namespace=False, deadline=Deadline.start(None))
r = launcher.run("sleep 3", repo, repo.parent / "slow.log", 30)
sys.exit(0 if r.exit_code == 0 else 1)
"""


@pytest.mark.slow
@needs_root
@pytest.mark.parametrize("runtime", ["container", ""], ids=["container", "cli"])
def test_two_runs_as_root_at_once_both_end_correctly(open_dir: Path, runtime: str) -> None:
    """Two `fixbot run` on one machine, as root, at the same time: each check sleeps while the
    other ends; both pass (no run kills the other's processes)."""
    runs = []
    for name in ("one", "two"):
        repo = make_repo(open_dir / name, {"a.txt": "a\n"})
        check = ["--check", "sleep 2 & sleep 3; wait", "--fix-commands", "true"]
        argv = [sys.executable, "-m", "fixbot", "run", *check, "-C", str(repo), "--json"]
        runs.append(
            subprocess.Popen(
                in_the_image(argv) if runtime == "container" else argv,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=dict(os.environ),
            )
        )
        time.sleep(1)
    outs = [proc.communicate(timeout=120)[0] for proc in runs]
    assert all('"outcome": "passed"' in out for out in outs), outs


# -- kill -9 of fixbot: the next run restores the owners and modes exactly -----------------------


# -- fixbot never writes a step file through a link the commands put in its place ------------------


def test_fixbot_never_writes_a_step_file_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "root-owned.conf"
    target.write_text("keep\n")
    output = tmp_path / "set_output"
    output.symlink_to(target)
    with pytest.raises(ConfigError, match="symbolic link"):
        workflow.write_outputs(output, {"outcome": "fixed"})
    summary = tmp_path / "step_summary"
    os.link(target, summary)
    with pytest.raises(ConfigError, match="more than one link"):
        workflow.write_summary(summary, "# hi\n", "see the log")
    assert target.read_text() == "keep\n"
    plain = tmp_path / "plain"
    workflow.write_outputs(plain, {"outcome": "fixed"})
    assert "outcome<<" in plain.read_text()


# -- the tree fingerprint streams: a sparse file costs time, not memory ----------------------------


FINGERPRINT = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
from fixbot.process import git
print(git.tree_fingerprint(Path(sys.argv[1]))["big.bin"])
"""


@pytest.mark.slow
def test_a_sparse_file_larger_than_memory_is_fingerprinted_in_bounded_memory(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    size, limit = 1024**3, 512 * 1024**2  # a 1 GiB file, 512 MiB of address space
    with (repo / "big.bin").open("wb") as handle:
        handle.truncate(size)
    done = subprocess.run(
        [sys.executable, "-c", FINGERPRINT, str(repo), str(limit)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    zeros = subprocess.run(
        f"head -c {size} /dev/zero | sha256sum",
        shell=True,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == zeros.stdout.split()[0]


# -- the preflight's question, answered by the check's own path ----------------------------------


@needs_root
def test_as_the_commands_runs_a_program_as_the_check_would(
    open_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fixbot.core.settings import Settings
    from fixbot.process.launcher import as_the_commands

    monkeypatch.setattr(sandbox, "CANDIDATES", ("nobody",))
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    env = {"PATH": os.environ["PATH"], "GITHUB_TOKEN": TOKEN}
    probe = ["sh", "-c", 'id -u; echo "token=${GITHUB_TOKEN:-none}"']
    with monkeypatch.context() as image:
        as_in_the_image(image)
        code, out = as_the_commands(Settings(check="true"), repo, env, probe)
    assert code == 0 and out.splitlines()[:2] == [str(NOBODY.uid), "token=none"]
    assert stat.S_IMODE(repo.stat().st_mode) == 0o755  # confined, then given back
    code, out = as_the_commands(
        Settings(check="true"), repo, env, probe
    )  # the CLI: fixbot's own user
    assert code == 0 and out.splitlines()[:2] == ["0", "token=none"]


@needs_root
def test_a_writable_program_in_a_root_only_folder_is_not_taken(
    monkeypatch: pytest.MonkeyPatch, fresh_programs: None
) -> None:
    """A root-only folder holding a `git` the commands' user may write (owner 65534, or mode
    0777) is skipped for the next folder's."""
    folder = Path(tempfile.mkdtemp(dir="/run" if os.access("/run", os.W_OK) else "/"))
    try:
        folder.chmod(0o755)
        if not programs.root_only(folder):
            pytest.skip(f"{folder.parent} is not root-only on this machine")
        planted = folder / "git"
        planted.write_text("#!/bin/sh\nexit 0\n")
        planted.chmod(0o755)
        os.chown(planted, NOBODY.uid, NOBODY.gid)
        monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
        assert programs.which("git") != str(planted)
        os.chown(planted, 0, 0)
        planted.chmod(0o777)
        programs.which.cache_clear()
        assert programs.which("git") != str(planted)
        planted.chmod(0o755)
        programs.which.cache_clear()
        assert programs.which("git") == str(planted)  # root's, not writable: taken
    finally:
        shutil.rmtree(folder)


def test_a_git_folder_the_check_replaced_never_reaches_fixbots_git(tmp_path: Path) -> None:
    """The check moves the workspace's `.git` away and puts a gitfile pointing at a repository
    of its own (with a filter in its config) in its place: fixbot's clone commits as before and
    no git of fixbot's reads the gitfile."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".gitattributes": "* filter=evil\n"})
    evil = make_repo(tmp_path / "evil", {"b.txt": "b\n"})
    marker = tmp_path / "ran.txt"
    raw_git(evil, "config", "filter.evil.clean", f"sh -c 'echo ran >> {marker}; cat'")
    pair = _clone_for(repo, tmp_path)
    launcher = Launcher(
        pair.fixbot, {"PATH": os.environ["PATH"]}, pair=pair, deadline=Deadline.start(None)
    )
    swap = f"mv .git ../moved-git && echo 'gitdir: {evil / '.git'}' > .git"
    assert launcher.run(swap, pair.fixbot, tmp_path / "c.log", 30).exit_code == 0
    assert (repo / ".git").is_file()  # the attack happened in the workspace
    (pair.fixbot / "a.txt").write_text("fixed\n")
    with worlds.entered(pair.fixbot.parent):
        assert commits.commit_paths(pair.fixbot, ["a.txt"], "fix") is not None
        assert launcher.run("true", pair.fixbot, tmp_path / "d.log", 30).exit_code == 0
    assert (repo / "a.txt").read_text() == "fixed\n"  # the next command sees fixbot's tree
    assert not marker.exists()
