"""No process started for the check, the set-up or a fix command can read a secret.

The attack: the check reads `/proc/<pid>/environ` of fixbot and of every process above it (in
the container, tini holds the whole step environment). These tests run the real `fixbot run`
and `fixbot action` as root, started by a shell that holds the secrets the way the runner's
shell does, with a check that walks up its ancestors and copies every environment it can read
into the repository. In fixbot's container (its root-owned `/etc/fixbot/runtime`, given to the
subprocess by `tests.fakes.installation.in_the_image`) the commands run as an
unprivileged user; everywhere (the CLI as root included) in a PID namespace whose fresh /proc
shows none of fixbot's processes. Without both, the same check reads the token.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.errors import ConfigError
from fixbot.process import cloning, sandbox, sync, worlds
from fixbot.process import git as fixbot_git
from fixbot.process.launcher import Launcher
from tests.fakes.action_env import TOKEN, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.installation import in_the_image
from tests.fakes.paths import ROOT
from tests.fakes.repo import make_repo

needs_root = pytest.mark.skipif(
    os.geteuid() != 0,
    reason="dropping to an unprivileged user needs root (as in fixbot's container and in CI)",
)
MODEL_KEY = "sk-test-0123456789abcdefghijklmnop"
GITHUB_SECRET = "ghp_" + "S3cr3t" * 6
# Walk from the check's shell up to PID 1, appending every environment it can read.
WALK = r"""
pid=$$; : > leak.txt; id -u > uid.txt; : > err.txt
while [ -n "$pid" ] && [ "$pid" -gt 0 ]; do
  cat /proc/$pid/environ >> leak.txt 2>> err.txt; echo >> leak.txt
  pid=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$pid/status)
done
exit 0
"""


REAL_CANDIDATES = ("fixbot", "nobody")  # sandbox.CANDIDATES


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder other users may enter (pytest's own temporary folders are mode 0700)."""
    path = Path(tempfile.mkdtemp(prefix="fixbot-sandbox-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def real_users(monkeypatch: pytest.MonkeyPatch) -> None:
    """fixbot's container: `auto` picks the unprivileged user (`fixbot` where it exists, else
    `nobody`)."""
    monkeypatch.setattr("fixbot.process.sandbox.CANDIDATES", REAL_CANDIDATES)
    monkeypatch.delenv("FIXBOT_RUN_AS", raising=False)


def auto_uid() -> int:
    """The uid `run-as: auto` picks on this machine: `fixbot` where it exists (fixbot's image),
    else `nobody`."""
    for name in REAL_CANDIDATES:
        try:
            return pwd.getpwnam(name).pw_uid
        except KeyError:
            continue
    raise AssertionError("no unprivileged user (fixbot, nobody) on this machine")


def fixbot_under_a_parent(
    args: list[str], cwd: Path, env: dict[str, str], *, image: bool = False
) -> str:
    """Run `python -m fixbot ARGS` as the child of a process holding `env` (like tini or the
    runner's shell), so both the parent's and fixbot's /proc/PID/environ hold the secrets.
    The parent is Python, not a shell: shells drop `INPUT_CHECK-COMMAND` (not a shell name).
    `image`: both run where the image's runtime file is (`in_the_image`)."""
    parent = "import subprocess, sys; print('exit', subprocess.call(sys.argv[1:]))"
    argv = [sys.executable, "-c", parent, sys.executable, "-m", "fixbot", *args]
    done = subprocess.run(
        in_the_image(argv) if image else argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def secret_env(run_as: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIXBOT_")}
    env.update({"GITHUB_TOKEN": GITHUB_SECRET, "OPENAI_API_KEY": MODEL_KEY})
    env["FIXBOT_RUN_AS"] = run_as
    return env


@pytest.mark.slow
@needs_root
def test_a_check_cannot_read_the_token_from_fixbot_or_its_parents(
    open_dir: Path, real_users: None
) -> None:
    repo = make_repo(open_dir / "repo", {"walk.sh": WALK})
    out = fixbot_under_a_parent(
        ["run", "--check", "sh walk.sh", "--fix-commands", "true", "-C", str(repo), "--json"],
        open_dir,
        secret_env("auto"),
        image=True,
    )
    assert '"outcome": "passed"' in out, out
    leak = (repo / "leak.txt").read_text(errors="replace")
    assert GITHUB_SECRET not in leak and MODEL_KEY not in leak
    assert int((repo / "uid.txt").read_text()) == auto_uid()
    assert "PATH=" in leak  # its own environment was read: the walk itself worked


@pytest.mark.slow
@needs_root
def test_the_cli_as_root_runs_the_check_as_root_where_it_sees_no_process_of_fixbots(
    open_dir: Path,
) -> None:
    """The CLI as root (no container): the user's own identity, in a PID namespace, so the walk
    up the ancestors ends at the namespace's init and reads no secret."""
    repo = make_repo(open_dir / "repo", {"walk.sh": WALK})
    out = fixbot_under_a_parent(
        ["run", "--check", "sh walk.sh", "--fix-commands", "true", "-C", str(repo), "--json"],
        open_dir,
        secret_env("auto"),
    )
    assert '"outcome": "passed"' in out, out
    leak = (repo / "leak.txt").read_text(errors="replace")
    assert GITHUB_SECRET not in leak and MODEL_KEY not in leak
    assert int((repo / "uid.txt").read_text()) == 0
    assert "PATH=" in leak  # its own environment was read: the walk itself worked


WALK_WITHOUT_NAMESPACE = """
import os, subprocess, sys
from pathlib import Path
from fixbot.process import sandbox
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
repo = Path(sys.argv[1])
env = {"PATH": os.environ["PATH"]}
launcher = Launcher(repo, env, namespace=sys.argv[2] == "on", deadline=Deadline.start(None))
print("exit", launcher.run("sh walk.sh", repo, repo.parent / "walk.log", 30).exit_code)
"""


@pytest.mark.slow
@needs_root
def test_without_the_namespace_the_same_check_as_root_reads_the_token(open_dir: Path) -> None:
    """The attack is real: the same walk, run as fixbot's own user without the PID namespace by
    a process holding the secret in its environ, reads it; with the namespace it does not."""
    for namespace, leaks in (("off", True), ("on", False)):
        repo = make_repo(open_dir / f"repo-{namespace}", {"walk.sh": WALK})
        done = subprocess.run(
            [sys.executable, "-c", WALK_WITHOUT_NAMESPACE, str(repo), namespace],
            env={**secret_env("self"), "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "exit 0" in done.stdout, done.stdout + done.stderr
        assert (GITHUB_SECRET in (repo / "leak.txt").read_text(errors="replace")) is leaks


@pytest.mark.slow
@needs_root
def test_in_the_action_the_check_reads_no_secret_from_any_ancestor(
    open_dir: Path, github_server: FakeGitHub
) -> None:
    box = ActionSandbox(open_dir, github_server)
    sha = box.commit("main", {"walk.sh": WALK}, "initial")
    ws = box.workspace("main")
    env = box.env(
        "push",
        box.push_event("main", sha),
        ws,
        {"check-command": "sh walk.sh", "fix-commands": "true", "run-as": "auto"},
    )
    env["OPENAI_API_KEY"] = MODEL_KEY
    env["FIXBOT_RUN_AS"] = "auto"
    out = fixbot_under_a_parent(["action"], ws, env, image=True)
    assert "fixbot: passed" in out, out
    leak = (ws / "leak.txt").read_text(errors="replace")
    assert TOKEN not in leak and MODEL_KEY not in leak
    assert int((ws / "uid.txt").read_text()) == auto_uid()
    owners = {p.lstat().st_uid for p in [ws, *ws.rglob("*")]}
    assert owners == {0}  # given back to the workspace's owner (root here, the runner's uid in CI)


@needs_root
def test_commands_cannot_touch_fixbots_clone_or_state_but_can_edit_the_workspace(
    open_dir: Path, real_users: None
) -> None:
    """As root with the commands' user: they write the workspace's `.git` (hooks, config, a
    moved `.git`), its `.fixbot/state.json` and its files; fixbot's clone and state, in its
    private folder, are out of their reach, and the next command sees fixbot's tree."""
    repo = make_repo(open_dir / "repo", {"app.py": "x = 1\n"})
    private = worlds.private_folder(repo, open_dir / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(repo, private / worlds.REPO)
    fixbot = private / worlds.REPO
    cloning.own_folder(fixbot, ".fixbot")
    (fixbot / ".fixbot" / "state.json").write_text("{}")
    identity, _ = sandbox.choose("auto", 0, runtime="container")
    assert identity is not None and identity.uid == auto_uid()
    attack = (
        "echo hacked > .git/hooks/post-commit; echo '[core] fsmonitor = evil' >> .git/config; "
        "mkdir -p .fixbot; echo forged > .fixbot/state.json; "
        f"echo forged > {fixbot}/.fixbot/state.json; "
        f"ls {private} > ls-private.txt 2>&1; "
        "echo y = 2 >> app.py && echo build > build-info.txt && echo $HOME > home.txt"
    )
    with sandbox.handed_over(repo, identity) as who:
        assert who is not None
        pair = sync.Worlds(fixbot, repo, owner=(identity.uid, identity.gid))
        (fixbot / "model_wrote.py").write_text("z = 3\n")  # fixbot (root) writes a new file
        launcher = Launcher(
            fixbot, {"PATH": os.environ["PATH"]}, who, pair=pair, deadline=Deadline.start(None)
        )
        moved = launcher.run("mv .git .git-moved", fixbot, open_dir / "m.log", 30)
        assert moved.exit_code == 0, (open_dir / "m.log").read_text()  # a check's doing
        result, back = launcher.run_fix(
            attack + "; echo w >> model_wrote.py", fixbot, open_dir / "c.log", 30
        )
        assert result.exit_code == 0, (open_dir / "c.log").read_text()
        home = Path((repo / "home.txt").read_text().strip())
        assert home.is_dir() and home.stat().st_uid == identity.uid
        assert back is not None
        assert sorted(back.changed) == [
            "app.py",
            "build-info.txt",
            "home.txt",
            "ls-private.txt",
            "model_wrote.py",
        ]
    log = (open_dir / "c.log").read_text()
    assert f"{fixbot}/.fixbot/state.json: Permission denied" in log, log
    assert "Permission denied" in (repo / "ls-private.txt").read_text()
    assert (fixbot / ".fixbot" / "state.json").read_text() == "{}"
    assert not (fixbot / ".git" / "hooks" / "post-commit").exists()
    assert "evil" not in (fixbot / ".git" / "config").read_text()
    assert (fixbot / ".git").is_dir()
    assert (fixbot / "app.py").read_text() == "x = 1\ny = 2\n"
    assert (fixbot / "model_wrote.py").read_text() == "z = 3\nw\n"
    assert not home.exists()  # the private HOME is gone after the run
    assert repo.stat().st_uid == 0  # the workspace is given back
    with worlds.entered(private):
        assert " M app.py" in fixbot_git.run(fixbot, "status", "--porcelain")


def test_choose_decides_the_user_from_the_setting_and_the_uid(real_users: None) -> None:
    users = {"nobody": pwd.struct_passwd(("nobody", "x", 65534, 65534, "", "/", "/bin/false"))}

    def lookup(name: str) -> pwd.struct_passwd:
        return users[name]

    assert sandbox.choose("auto", 1000, lookup, runtime="container")[0] is None
    assert sandbox.choose("self", 0, lookup, runtime="container")[0] is None
    found, note = sandbox.choose("auto", 0, lookup, runtime="container")
    assert found == sandbox.Identity(65534, 65534, "nobody") and "nobody" in note
    users["fixbot"] = pwd.struct_passwd(("fixbot", "x", 1001, 1001, "", "/", "/bin/sh"))
    assert sandbox.choose("auto", 0, lookup, runtime="container")[0] == sandbox.Identity(
        1001, 1001, "fixbot"
    )
    with pytest.raises(ConfigError, match="needs fixbot to run as root"):
        sandbox.choose("fixbot", 1000, lookup, runtime="container")
    with pytest.raises(ConfigError, match="no user 'ghost'"):
        sandbox.choose("ghost", 0, lookup, runtime="container")
    users["toor"] = pwd.struct_passwd(("toor", "x", 0, 0, "", "/", "/bin/sh"))
    with pytest.raises(ConfigError, match="is root"):
        sandbox.choose("toor", 0, lookup, runtime="container")
    users.clear()
    nobody_left, warning = sandbox.choose("auto", 0, lookup, runtime="container")
    assert nobody_left is None and "can read the secrets" in warning


@needs_root
def test_an_unreachable_work_tree_is_a_clear_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})  # under pytest's 0700 folder
    with (
        pytest.raises(ConfigError, match="may not enter"),
        sandbox.handed_over(repo, sandbox.Identity(65534, 65534, "nobody")),
    ):
        pass


@pytest.mark.slow
def test_not_root_fixbot_run_re_executes_without_secrets_in_its_environ(tmp_path: Path) -> None:
    """Runner mode without root: the check shares fixbot's uid, so fixbot's own environ must
    hold no secret (where no PID namespace hides it). Read from outside while the check runs.
    (The uid is faked so the test runs the non-root path as any user.)"""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    wrapper = tmp_path / "as_user.py"
    wrapper.write_text(
        "import os, sys\nos.geteuid = lambda: 1000\nfrom fixbot.cli import main\n"
        "sys.argv[0] = 'fixbot'\nraise SystemExit(main())\n"
    )
    check = "touch started; sleep 3"
    env = {**secret_env("self"), "PYTHONPATH": str(ROOT)}
    args = ["run", "--check", check, "--fix-commands", "true", "-C", str(repo), "--json"]
    with subprocess.Popen(
        [sys.executable, str(wrapper), *args], env=env, stdout=subprocess.PIPE, text=True
    ) as proc:
        deadline = time.monotonic() + 60
        while not (repo / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            seen = (Path("/proc") / str(fixbot_pid(proc.pid)) / "environ").read_bytes()
        except PermissionError:  # not root: fixbot is not dumpable (fixbot.startup.harden_process)
            assert os.geteuid() != 0
            seen = b"PATH="
        out, _ = proc.communicate(timeout=60)
    assert '"outcome": "passed"' in out, out
    assert b"PATH=" in seen  # fixbot's environ was read (or refused to another user) ...
    assert GITHUB_SECRET.encode() not in seen and MODEL_KEY.encode() not in seen  # ... empty


def fixbot_pid(pid: int) -> int:
    """`pid`, re-executed in place (same pid) by `scrubbed_exec`: check it runs `-m fixbot`."""
    cmdline = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
    assert b"fixbot" in cmdline, cmdline
    return pid


# Leaves the process group and the session, then keeps changing its pid (each generation forks
# the next and exits): a one-pass kill by pid or by group misses it. It writes `late.txt` once
# the command is over, if it is still alive then.
ESCAPEE = (
    "setsid sh -c 'i=0; while [ $i -lt 60 ]; do sleep 0.05; "
    'sh -c "sleep 1.5; echo alive >> late.txt" & i=$((i+1)); done\' & sleep 0.3; exit 0'
)


def escape_and_wait(launcher: Launcher, cwd: Path, log: Path) -> bool:
    """Run `ESCAPEE` through `launcher`; True when something of it still ran after the step."""
    assert launcher.run(ESCAPEE, cwd, log, 30).exit_code == 0, log.read_text()
    time.sleep(4)
    return (cwd / "late.txt").exists()


@pytest.mark.slow
@needs_root
@pytest.mark.parametrize("namespace", [True, False], ids=["pid-namespace", "marked-sweep"])
def test_a_process_that_keeps_changing_its_pid_does_not_outlive_the_step(
    open_dir: Path, namespace: bool
) -> None:
    """Nothing of the project's code runs between fixbot's steps, where a survivor could change
    the repository behind fixbot's back: as the image's user and as fixbot's own, with the
    namespace and with the fallback sweep alone."""
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    dedicated = sandbox.Identity(54321, 54321, sandbox.DEDICATED)  # no passwd entry needed
    env = {"PATH": os.environ["PATH"]}
    with sandbox.handed_over(repo, dedicated) as who:
        assert not escape_and_wait(
            Launcher(repo, env, who, namespace=namespace, deadline=Deadline.start(None)),
            repo,
            open_dir / "1.log",
        )
    assert not escape_and_wait(
        Launcher(repo, env, namespace=namespace, deadline=Deadline.start(None)),
        repo,
        open_dir / "2.log",
    )


@pytest.mark.slow
@needs_root
def test_without_namespace_or_sweep_the_escapee_outlives_the_step(
    open_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack is real: with the fallback sweep disabled, the process group kill alone
    leaves it running."""
    repo = make_repo(open_dir / "repo", {"a.txt": "a\n"})
    monkeypatch.setattr(sandbox, "sweep", lambda mark: 0)
    launcher = Launcher(
        repo, {"PATH": os.environ["PATH"]}, namespace=False, deadline=Deadline.start(None)
    )
    assert escape_and_wait(launcher, repo, open_dir / "c.log")
