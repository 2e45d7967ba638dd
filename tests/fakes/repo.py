"""Real temporary git repositories for tests, and a helper to run the fixbot CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` (raising on failure) and return stdout."""
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def state_of(repo: Path, state_dir: str = ".fixbot") -> Path:
    """The state folder of fixbot's runs in `repo`: inside fixbot's own clone of it, in its
    private folder (`fixbot.process.worlds`): this test's folder for runs in this process, the
    machine's (`/var/lib/fixbot`) for a fixbot subprocess run as root."""
    from fixbot.process import worlds

    key = worlds.repo_key(repo)
    here = worlds.state_base(os.geteuid(), os.environ) / key / worlds.REPO
    if (here / ".git").is_dir() or os.geteuid() != 0:
        return here / state_dir
    return Path("/var/lib/fixbot") / key / worlds.REPO / state_dir


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write `files` (relative path -> text) under `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_repo(path: Path, files: dict[str, str], branch: str = "main") -> Path:
    """Create a git repository at `path` holding `files` in one commit; return the path."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    write_files(path, files)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


@dataclass
class CliResult:
    """A finished `fixbot` subprocess: exit code, stdout, stderr, and stdout parsed as JSON."""

    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        """The last line of stdout parsed as the JSON outcome."""
        return dict(json.loads(self.stdout.strip().splitlines()[-1]))


def run_fixbot(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600, stdin: str | None = None
) -> CliResult:
    """Run `python -m fixbot ARGS` with the current environment plus `env` (and `stdin`);
    `timeout` is a hang guard only, far above any run on a busy machine."""
    full_env = {**os.environ, **(env or {})}
    tools = str(Path(sys.executable).parent)
    full_env["PATH"] = tools + os.pathsep + full_env.get("PATH", "")
    done = subprocess.run(
        [sys.executable, "-m", "fixbot", *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}),
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def running(needle: str) -> list[int]:
    """The pids (as this process sees them) of live processes whose command line holds `needle`.

    A command runs in a PID namespace of its own (`fixbot.process.sandbox.namespace_argv`): the
    pid it reports of itself is not the one outside, but its command line is the same."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def pid_alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (exited, not yet reaped by a non-reaping PID 1) is dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in "ZX"
