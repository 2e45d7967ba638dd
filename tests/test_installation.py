"""Where fixbot runs is a fact of the installation, never an environment variable.

An earlier step of the job writes `FIXBOT_RUNTIME=runner` into GITHUB_ENV: in the image the
next fixbot step then ran the project's commands as root. Now only the image's root-owned
`/etc/fixbot/runtime` says "container", and only while nobody but root could have written it.
Each case runs in a mount namespace of its own (`tests.fakes.installation`), so the file is
exactly where the image has it, and the host never gets one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.process import installation
from tests.fakes.installation import in_the_image, needs_mount
from tests.fakes.repo import make_repo

ASK = "from fixbot.process import installation; print(installation.runtime())"


def runtime_after(change: str, env: dict[str, str] | None = None) -> str:
    """`installation.runtime()` in a fresh Python where the image's file exists, after the
    shell command `change` ran on it (`$F` is the file, `$D` its folder)."""
    script = f'D={installation.RUNTIME_FILE.parent}; F=$D/runtime; {change}; exec "$@"'
    argv = in_the_image(["/bin/sh", "-c", script, "sh", sys.executable, "-I", "-c", ASK])
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=60, check=True, cwd="/"
    )
    return done.stdout.strip()


@pytest.mark.slow
@needs_mount
def test_the_images_root_owned_file_says_container() -> None:
    assert runtime_after(":") == "container"


@pytest.mark.slow
@needs_mount
@pytest.mark.parametrize(
    "change",
    [
        "chmod 0666 $F",  # anyone could have written it
        "chmod 0664 $F",  # its group could
        "chown 1001 $F",  # the commands' user owns it
        "chown 0:1001 $F",  # the commands' group could own it
        "chmod 0777 $D",  # its folder: anyone could have replaced it
        "chmod 1777 $D",  # a sticky folder like /tmp: its creator could
        "chown 1001 $D",  # the folder is the commands' user's
        "mv $F $D/real && ln -s real $F",  # a link, whatever it points to
        "rm $F && mkdir $F",  # not a regular file
        "rm $F",  # no file: not the image
    ],
)
def test_the_file_counts_only_while_root_alone_could_have_written_it(change: str) -> None:
    assert runtime_after(change) == "None"


@pytest.mark.slow
@needs_mount
def test_a_variable_from_an_earlier_step_changes_nothing() -> None:
    """`FIXBOT_RUNTIME` in the environment (GITHUB_ENV): in the image and outside it."""
    env = {**os.environ, "FIXBOT_RUNTIME": "runner"}
    assert runtime_after(":", env) == "container"
    env["FIXBOT_RUNTIME"] = "container"
    assert runtime_after("rm $F", env) == "None"


def test_the_action_entry_point_without_the_file_is_the_runner_mode(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(installation, "RUNTIME_FILE", tmp_path / "absent" / "runtime")
    monkeypatch.setattr(installation, "_ENTRY", [None])
    assert installation.runtime() is None  # `fixbot run`: the CLI
    installation.enter_action()
    assert installation.runtime() == installation.RUNNER


@needs_mount
@pytest.mark.slow
def test_in_the_image_a_runner_variable_still_runs_the_commands_as_the_unprivileged_user(
    tmp_path: Path,
) -> None:
    """The attack end to end on the host's copy of the image's layout: `fixbot run` as root
    with `FIXBOT_RUNTIME=runner` in its environment; the check records its uid."""
    from tests.process.test_sandbox import auto_uid

    folder = Path("/var/tmp") / f"fixbot-installation-{os.getpid()}"  # others may enter it
    folder.mkdir(mode=0o755)
    try:
        repo = make_repo(folder / "repo", {"a.txt": "a\n"})
        os.chmod(folder, 0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FIXBOT_")}
        env.update(FIXBOT_RUNTIME="runner", FIXBOT_RUN_AS="auto")
        check = ["--check", "id -u > uid.txt", "--fix-commands", "true", "--json"]
        argv = [sys.executable, "-m", "fixbot", "run", "-C", str(repo), *check]
        done = subprocess.run(
            in_the_image(argv), env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert '"outcome": "passed"' in done.stdout, done.stdout + done.stderr
        assert int((repo / "uid.txt").read_text()) == auto_uid()
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
