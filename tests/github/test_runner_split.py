"""The runner mode's uid split, on this machine: a real unprivileged "runner" user starts fixbot
the way runner/action.yml does (`python -I -m fixbot action`, from `/`).

With passwordless sudo (as on GitHub-hosted runners; a sudoers.d file of the test's), fixbot
becomes root and the project's commands run as a user of their own (`fixbot-commands`): the
check cannot read the token from any process above it, cannot write the runner user's
`~/.gitconfig` (an `http.proxy` that carries the token away, a clean filter that runs outside
the PID namespace), and the workspace is the runner user's again afterwards. Without sudo the run
warns before it starts and refuses a fork's code.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.process import sandbox
from tests.fakes.action_env import TOKEN, ActionSandbox, parse_outputs
from tests.fakes.github_server import FakeGitHub
from tests.fakes.paths import ROOT
from tests.fakes.preload import preload_library

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="creating the runner's user needs root"),
]
RUNNER = "fixbot-runner-test"
SUDOERS = Path("/etc/sudoers.d") / RUNNER
MODEL_KEY = "sk-split-model-key-0123456789abcdef"
# The check: its uid, every environment up its ancestors, the runner's git configuration.
ATTACK = r"""
id -u > uid.txt; : > leak.txt
pid=$$
while [ -n "$pid" ] && [ "$pid" -gt 0 ]; do
  cat /proc/$pid/environ >> leak.txt 2>/dev/null; echo >> leak.txt
  for fd in /proc/$pid/fd/*; do timeout 1 cat "$fd" >> leak.txt 2>/dev/null < /dev/null; done
  pid=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$pid/status)
done
printf '[http]\n\tproxy = http://127.0.0.1:9\n[filter "x"]\n\tclean = touch %s\n' \
  "$PWNED" 2>> denied.txt >> "$RUNNER_GITCONFIG"
cat "$RUNNER_SECRET" >> leak.txt 2>> denied.txt
echo '* filter=x' > .gitattributes
exit 0
"""


def _user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(RUNNER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", RUNNER], check=True)
        return pwd.getpwnam(RUNNER)


@pytest.fixture(scope="session")
def runner() -> pwd.struct_passwd:
    """The runner's user (uid 1001 on GitHub's runners), created once."""
    return _user()


@pytest.fixture(scope="session")
def runner_python(runner: pwd.struct_passwd) -> Iterator[Path]:
    """A Python the runner's user may run (this checkout's own lives under root's mode-0700
    home) that imports this checkout's fixbot and its dependencies, in isolated mode too."""
    base = Path(tempfile.mkdtemp(prefix="fixbot-runner-python-", dir="/var/tmp"))
    base.chmod(0o755)
    system = shutil.which("python3.11", path="/usr/bin:/usr/local/bin")
    if system is None:
        pytest.skip("no system Python 3.11 the runner's user may run")
    subprocess.run([system, "-m", "venv", "--without-pip", str(base / "venv")], check=True)
    site = next((base / "venv" / "lib").glob("python3*/site-packages"))
    ours = next((Path(sys.prefix) / "lib").glob("python3*/site-packages"))
    (site / "checkout.pth").write_text(f"{ours}\n{ROOT}\n")
    yield base / "venv" / "bin" / "python"
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def sudo(runner: pwd.struct_passwd) -> Iterator[None]:
    """Passwordless sudo for the runner's user, as GitHub-hosted runners have it."""
    if shutil.which("sudo") is None:
        pytest.skip("sudo is not installed (scripts/setup.sh installs it where apt-get exists)")
    SUDOERS.write_text(f"{RUNNER} ALL=(ALL) NOPASSWD:ALL\n")
    SUDOERS.chmod(0o440)
    yield
    SUDOERS.unlink(missing_ok=True)


@pytest.fixture
def no_sudo(runner: pwd.struct_passwd) -> None:
    SUDOERS.unlink(missing_ok=True)


@pytest.fixture
def box(runner: pwd.struct_passwd, github_server: FakeGitHub) -> Iterator[ActionSandbox]:
    """The job's files (origin, workspace, event, outputs) in a folder other users may enter."""
    base = Path(tempfile.mkdtemp(prefix="fixbot-runner-box-", dir="/var/tmp"))
    base.chmod(0o755)
    (base / "box").mkdir()
    yield ActionSandbox(base / "box", github_server)
    shutil.rmtree(base, ignore_errors=True)


def run_as_runner(
    box: ActionSandbox, python: Path, runner: pwd.struct_passwd, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """runner/action.yml's step as the runner's user: `cd / && exec python -I -m fixbot action`."""
    subprocess.run(["chown", "-R", f"{runner.pw_uid}:{runner.pw_gid}", str(box.root)], check=True)
    # The fake's origin stands in for GitHub's server: not the runner's to own.
    subprocess.run(["chown", "-R", "0:0", str(box.origin), str(box.seed)], check=True)
    return subprocess.run(
        [str(python), "-I", "-m", "fixbot", "action"],
        cwd="/",
        env=env,
        user=runner.pw_uid,
        group=runner.pw_gid,
        extra_groups=[],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def job_env(
    box: ActionSandbox, runner: pwd.struct_passwd, event: str, payload: dict[str, object]
) -> dict[str, str]:
    ws = box.workspace("changes")
    env = box.env(event, payload, ws, {"check-command": "sh attack.sh", "fix-commands": "true"})
    env.update(HOME=runner.pw_dir, OPENAI_API_KEY=MODEL_KEY, LITELLM_LOCAL_MODEL_COST_MAP="True")
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env["RUNNER_GITCONFIG"] = str(Path(runner.pw_dir) / ".gitconfig")
    env["PWNED"] = str(box.root / "pwned")
    env["RUNNER_SECRET"] = str(Path(runner.pw_dir) / ".cargo" / "credentials.toml")
    return env


CARGO_TOKEN = "cio" + "Cargo0123456789abcdef"


@pytest.fixture
def cargo_credential(runner: pwd.struct_passwd) -> Iterator[Path]:
    """A 0644 `~/.cargo/credentials.toml` of the runner's user in its 0755 HOME: a tool no
    list of credential names knows."""
    folder = Path(runner.pw_dir) / ".cargo"
    folder.mkdir(exist_ok=True)
    path = folder / "credentials.toml"
    path.write_text(f'[registry]\ntoken = "{CARGO_TOKEN}"\n')
    for item in (folder, path):
        os.chown(item, runner.pw_uid, runner.pw_gid)
    folder.chmod(0o755)
    path.chmod(0o644)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


def test_with_passwordless_sudo_the_commands_run_as_a_user_of_their_own(
    box: ActionSandbox,
    runner: pwd.struct_passwd,
    runner_python: Path,
    sudo: None,
    cargo_credential: Path,
) -> None:
    """The split: the check runs as `fixbot-commands`, reads no secret of any process, writes
    nothing of the runner user's, and sees none of its HOME (`fixbot.process.homes`): the
    0644 cargo credential there stays out of reach, the `.gitconfig` it writes has no folder."""
    gitconfig = Path(runner.pw_dir) / ".gitconfig"
    gitconfig.unlink(missing_ok=True)
    box.commit("main", {"attack.sh": ATTACK}, "initial")
    sha = box.commit("changes", {"app.py": "print('hi')\n"}, "say hi")
    env = job_env(box, runner, "push", box.push_event("changes", sha))
    ws = Path(env["GITHUB_WORKSPACE"])

    done = run_as_runner(box, runner_python, runner, env)

    out = done.stdout + done.stderr
    assert "fixbot: passed" in out, out
    commands = pwd.getpwnam(sandbox.RUNNER_USER)
    assert int((ws / "uid.txt").read_text()) == commands.pw_uid != runner.pw_uid
    leak = (ws / "leak.txt").read_text(errors="replace")
    assert TOKEN not in leak and MODEL_KEY not in leak and CARGO_TOKEN not in leak
    assert not gitconfig.exists()  # the runner's git configuration is another user's
    denied = (ws / "denied.txt").read_text()
    assert f"{cargo_credential}: No such file or directory" in denied, denied  # HOME hidden
    assert not (box.root / "pwned").exists()
    owners = {p.lstat().st_uid for p in [ws, *ws.rglob("*")]}
    assert owners == {runner.pw_uid}  # later steps of the job write the workspace
    assert "no uid split" not in out
    assert "the runner's HOME is not hidden" not in out  # the namespace, not the fallback


def test_an_ld_preload_from_github_env_never_loads_into_root(
    box: ActionSandbox, runner: pwd.struct_passwd, runner_python: Path, sudo: None
) -> None:
    """An earlier step left a library and wrote `LD_PRELOAD` (and `LD_LIBRARY_PATH`) into
    GITHUB_ENV. The runner's own Python loads it (it runs as the runner's user, as that step
    did); fixbot's re-execution as root through sudo never passes it on: no root process, and
    none of the commands, loads it."""
    box.commit("main", {"attack.sh": ATTACK}, "initial")
    sha = box.commit("changes", {"app.py": "print('hi')\n"}, "say hi")
    env = job_env(box, runner, "push", box.push_event("changes", sha))
    mark = box.root / "preloaded.txt"
    library = preload_library(box.root / "left", str(mark))
    env.update(LD_PRELOAD=str(library), LD_LIBRARY_PATH=str(library.parent))

    done = run_as_runner(box, runner_python, runner, env)

    out = done.stdout + done.stderr
    assert "fixbot: passed" in out, out
    loaded = mark.read_text().split() if mark.exists() else []
    assert str(runner.pw_uid) in loaded  # the attack is real: the runner's Python loaded it
    commands = pwd.getpwnam(sandbox.RUNNER_USER)
    assert not {"0", str(commands.pw_uid)} & set(loaded), loaded


def test_without_sudo_the_run_warns_first_and_refuses_a_forks_code(
    box: ActionSandbox, runner: pwd.struct_passwd, runner_python: Path, no_sudo: None
) -> None:
    box.commit("main", {"attack.sh": ATTACK}, "initial")
    sha = box.commit("changes", {"app.py": "print('hi')\n"}, "say hi")
    event = box.pull_request_event("changes", sha, head_repo="mallory/app")
    env = job_env(box, runner, "pull_request", event)
    env["INPUT_ALLOW-FORKS"] = "true"  # even so: nothing separates the fork's code from the key

    done = run_as_runner(box, runner_python, runner, env)

    out = done.stdout + done.stderr
    assert "::warning title=fixbot%3A no uid split::" in out, out
    assert "nothing separates the project's code" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    outputs = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))
    assert outputs["outcome"] == "refused" and "mallory/app" in outputs["reason"]
    assert not (Path(env["GITHUB_WORKSPACE"]) / "uid.txt").exists()  # the check never ran
