"""fixbot's first act keeps its secrets from a process of its own uid. Not root (runner mode, the
CLI), the project's commands share fixbot's uid: fixbot re-executes itself without its secrets
before anything else, trusts no `FIXBOT_SECRETS_FD` it did not set, is not dumpable and leaves no
core file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.paths import ROOT
from tests.fakes.repo import make_repo

TOKEN = "ghs_reexecTOKEN0123456789abcdef"
MODEL_KEY = "sk-reexec-model-key-0123456789"
# `fixbot` as the runner's (non-root) user: the uid is faked so the non-root path runs as any
# user; the re-execution (`python -m fixbot`) runs with the real one.
AS_USER = (
    "import os, sys\nos.geteuid = lambda: 1000\nfrom fixbot.cli import main\n"
    "raise SystemExit(main())\n"
)
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl: Linux")


def secret_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIXBOT_")}
    env.update({"GITHUB_TOKEN": TOKEN, "OPENAI_API_KEY": MODEL_KEY, "PYTHONPATH": str(ROOT)})
    env.update({"FIXBOT_RUN_AS": "self", **extra})
    return env


def fixbot_as_user(tmp_path: Path, env: dict[str, str]) -> tuple[Path, bytes, str]:
    """Run `fixbot run` as the runner's user in a new repository, with a check that records its
    own core limit and waits; while it waits, read fixbot's environ and limits from outside
    (the check runs in a PID namespace of its own and cannot see fixbot: its `$PPID` is not
    fixbot). Return (the repository, fixbot's environ or b"PATH=" when refused, its limits)."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    wrapper = tmp_path / "as_user.py"
    wrapper.write_text(AS_USER)
    check = "ulimit -c > own-core.txt; touch started; sleep 2"
    args = ["run", "--check", check, "--fix-commands", "true", "-C", str(repo), "--json"]
    with subprocess.Popen(
        [sys.executable, str(wrapper), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        deadline = time.monotonic() + 60
        while not (repo / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc_dir = Path("/proc") / str(proc.pid)  # the re-execution keeps the pid (execve)
        limits = (proc_dir / "limits").read_text()
        try:
            seen = (proc_dir / "environ").read_bytes()
        except PermissionError:  # another user may not read it: fixbot is not dumpable
            assert os.geteuid() != 0
            seen = b"PATH="
        out, err = proc.communicate(timeout=120)
    assert '"outcome": "passed"' in out, out + err
    return repo, seen, limits


@pytest.mark.slow
@linux
def test_a_secrets_fd_variable_from_the_environment_does_not_turn_the_re_exec_off(
    tmp_path: Path,
) -> None:
    """A step before fixbot wrote `FIXBOT_SECRETS_FD=0` into GITHUB_ENV: fixbot took itself for
    its own re-execution, read 'secrets' from stdin and kept the real ones in its environ."""
    _, seen, _ = fixbot_as_user(tmp_path, secret_env(FIXBOT_SECRETS_FD="0"))
    assert b"PATH=" in seen
    assert TOKEN.encode() not in seen and MODEL_KEY.encode() not in seen


@pytest.mark.slow
@linux
def test_fixbot_leaves_no_core_file_and_is_not_dumpable(tmp_path: Path) -> None:
    """A check that crashes fixbot would get a core file holding the secrets; a process of the
    same user could read fixbot's memory. Core limit 0 (soft and hard, so the same user cannot
    raise it) and `PR_SET_DUMPABLE` 0."""
    repo, _, limits = fixbot_as_user(tmp_path, secret_env())
    core = next(line for line in limits.splitlines() if line.startswith("Max core file size"))
    assert core.split()[4:6] == ["0", "0"], core  # soft, hard
    assert (repo / "own-core.txt").read_text().strip() == "0"  # inherited by the commands
    probe = (
        "import ctypes, resource\nfrom fixbot.startup import harden_process\nharden_process()\n"
        "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0), resource.getrlimit(resource.RLIMIT_CORE))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "0 (0, 0)"  # PR_GET_DUMPABLE (prctl(2)): 0


@pytest.mark.slow
def test_secrets_moved_out_of_the_environment_come_back_in_memory() -> None:
    """The exec is recorded instead of made: the new environment holds no secret and names the
    pipe; the new process, given that environment and argv, gets every secret back in memory."""
    probe = """
import json, os, sys
from fixbot import startup
os.geteuid = lambda: 1000
made = {}
os.execve = lambda exe, argv, env: made.update(argv=argv, env=env)
startup.secrets_first(["run", "--check", "true"])
argv, env = made["argv"], made["env"]
os.environ.clear()
os.environ.update(env)
words = startup.secrets_first(argv[4:])
print(json.dumps([argv[:4], argv[4], argv[6], words, sorted(env), os.environ["GITHUB_TOKEN"]]))
"""
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=secret_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=ROOT,
    )
    start, marker, folder, words, names, token = json.loads(done.stdout)
    assert start == [os.path.abspath(sys.executable), "-I", "-m", "fixbot"]  # isolated mode
    assert marker == "--fixbot-reexec" and words == ["run", "--check", "true"]
    assert folder == str(ROOT)  # relative paths are read from where fixbot was started
    assert "GITHUB_TOKEN" not in names and "OPENAI_API_KEY" not in names
    assert "FIXBOT_SECRETS_FD" in names and token == TOKEN


@pytest.mark.slow
def test_a_forged_secrets_pipe_is_refused(tmp_path: Path) -> None:
    """Only fixbot's own re-execution (its marker and nonce in argv, the nonce first in the
    pipe) reads secrets from a pipe; anything else ends at once."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"wrong-nonce\0OPENAI_BASE_URL=http://attacker.example")
    os.close(write_end)
    done = subprocess.run(
        [sys.executable, "-m", "fixbot", "--fixbot-reexec", "right-nonce", "run"],
        env={**secret_env(), "FIXBOT_SECRETS_FD": str(read_end)},
        pass_fds=(read_end,),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    os.close(read_end)
    assert done.returncode != 0
    assert "not fixbot's own" in done.stderr


# -- fixbot's own code is its own: isolated mode, by absolute path, from `/` --------------------

PLANT = (
    "import os\n"
    "open({mark!r}, 'a').write(__name__ + ' ' + os.environ.get('GITHUB_TOKEN', '') + '\\n')\n"
)


def planted(folder: Path, mark: Path, names: tuple[str, ...]) -> dict[str, str]:
    """Files named `names` in `folder` that, when Python imports or runs them, append their name
    and the token they can read to `mark`."""
    folder.mkdir(parents=True, exist_ok=True)
    code = PLANT.format(mark=str(mark))
    files = {name: code for name in names}
    for name, text in files.items():
        (folder / name).write_text(text)
    return files


def run_fixbot(argv: list[str], cwd: Path, env: dict[str, str], mark: Path) -> None:
    """Run fixbot; nothing planted may have run (`mark` absent), and the run passes."""
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert not mark.exists(), mark.read_text()  # names the planted code that ran, the token
    assert '"outcome": "passed"' in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_code_the_pull_request_planted_in_the_workspace_never_runs_in_fixbot(
    tmp_path: Path,
) -> None:
    """A `fixbot.py`, `argparse.py` or `sitecustomize.py` at the repository's root, fixbot started
    from there (the CLI: its console script; the runner's step starts in the workspace): the
    re-execution that reads every secret from the pipe ran `python -m fixbot` in that folder,
    which imports the folder's `fixbot.py` first."""
    mark = tmp_path / "owned.txt"
    names = ("fixbot.py", "argparse.py", "sitecustomize.py", "usercustomize.py", "json.py")
    repo = make_repo(tmp_path / "repo", planted(tmp_path / "plants", mark, names))
    script = str(Path(sys.executable).parent / "fixbot")
    env = {k: v for k, v in secret_env().items() if k != "PYTHONPATH"}
    words = ["run", "--check", "true", "--fix-commands", "true", "-C", ".", "--json"]
    run_fixbot([script, *words], repo, env, mark)


@pytest.mark.slow
def test_python_variables_and_a_user_site_from_an_earlier_step_never_run_in_fixbot(
    tmp_path: Path,
) -> None:
    """An earlier step wrote `PYTHONPATH`, `PYTHONSTARTUP`, `PYTHONINSPECT` and `PYTHONHOME`-free
    tricks into GITHUB_ENV and a `.pth` file into the user site under HOME; fixbot starts as
    runner/action.yml starts it (`python -I -m fixbot`, from `/`) and re-executes itself to move
    its secrets: neither process may import or run any of it."""
    mark = tmp_path / "owned.txt"
    evil = tmp_path / "evil"
    planted(evil, mark, ("sitecustomize.py", "usercustomize.py", "startup.py", "argparse.py"))
    home = tmp_path / "home"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    user_site = home / ".local" / "lib" / version / "site-packages"
    user_site.mkdir(parents=True)
    (user_site / "evil.pth").write_text(f"import os; open({str(mark)!r}, 'a').write('pth\\n')\n")
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    env = {
        **secret_env(),
        "PYTHONPATH": str(evil),
        "PYTHONSTARTUP": str(evil / "startup.py"),
        "PYTHONINSPECT": "1",
        "PYTHONUSERBASE": str(home / ".local"),
        "HOME": str(home),
    }
    argv = [sys.executable, "-I", "-m", "fixbot", "run", "--check", "true", "-C", str(repo)]
    argv += ["--fix-commands", "true"]
    run_fixbot([*argv, "--json"], Path("/"), env, mark)
