"""A runner user's HOME under the machine's real `/home`, and a command run in it as another
user through the launcher, the way the runner mode's split runs the project's commands
(fixbot root, the commands `nobody`)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.process import sandbox
from fixbot.process.launcher import Launcher
from tests.fakes.repo import make_repo

NOBODY = sandbox.Identity(65534, 65534, "nobody")


def needs_hidden_homes() -> None:
    """Skip unless this machine lets root hide the homes (root, /home, a mount namespace)."""
    if os.geteuid() != 0:
        pytest.skip("hiding the homes needs root (the split's fixbot is root)")
    if not Path("/home").is_dir():
        pytest.skip("no /home on this machine")
    if not sandbox.hides_homes():
        pytest.skip("this machine refuses root a mount namespace (unshare, mount)")


@contextmanager
def runner_home() -> Iterator[tuple[Path, Path]]:
    """(HOME, workspace): a runner user's HOME in `/home` (mode 0755, as the split needs) and
    a repository at `HOME/work/repo/repo`, GitHub's layout; removed afterwards."""
    home = Path(tempfile.mkdtemp(prefix="fixbot-runner-", dir="/home"))
    try:
        home.chmod(0o755)
        workspace = make_repo(home / "work" / "repo" / "repo", {"app.py": "x = 1\n"})
        for folder in [home / "work", home / "work" / "repo", workspace]:
            folder.chmod(0o755)
        yield home, workspace
    finally:
        shutil.rmtree(home, ignore_errors=True)


def secret_file(path: Path, text: str = "token = 'cio-0123456789'\n") -> Path:
    """A credential file any user may read (0644), in folders any user may enter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for folder in path.parents:
        if folder == Path("/home"):
            break
        folder.chmod(0o755)
    path.write_text(text)
    path.chmod(0o644)
    return path


def as_the_split(
    workspace: Path, command: str, log: Path, env: Mapping[str, str] | None = None
) -> tuple[int | None, str]:
    """Run `command` in `workspace` as `nobody`, as the runner mode's split runs the check
    (fixbot root, the workspace handed over, a namespace of its own); (exit code, log)."""
    environment = {"PATH": os.environ["PATH"], **(env or {})}
    with sandbox.handed_over(workspace, NOBODY) as who:
        launcher = Launcher(workspace, environment, who, deadline=Deadline.start(None))
        done = launcher.run(command, workspace, log, 30)
    return done.exit_code, log.read_text()
