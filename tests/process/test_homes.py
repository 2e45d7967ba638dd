"""The commands of another user see none of the users' homes but what they need
(`fixbot.process.homes`): the workspace under the runner's HOME, and a tool chain there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixbot.process import homes
from fixbot.process.launcher import Launcher
from tests.fakes.homes import as_the_split, needs_hidden_homes, runner_home, secret_file


@pytest.fixture(autouse=True)
def _hidden_homes() -> None:
    needs_hidden_homes()


def test_the_workspace_under_the_runners_home_is_the_commands_to_write(tmp_path: Path) -> None:
    """GitHub's layout, `/home/runner/work/<repo>/<repo>`: the check reads and writes the
    workspace by its own path while the HOME around it is hidden; without the workspace shown
    back, the check finds no file."""
    with runner_home() as (home, workspace):
        secret_file(home / ".npmrc")
        command = (
            f"cat {workspace}/app.py && echo built > {workspace}/built.txt && "
            f"ls -a {home} > {workspace}/seen.txt"
        )
        code, log = as_the_split(workspace, command, tmp_path / "check.log")
        assert code == 0, log
        assert "x = 1" in log
        assert (workspace / "built.txt").read_text() == "built\n"
        assert sorted((workspace / "seen.txt").read_text().split()) == [".", "..", "work"]


def test_a_tool_chain_under_the_runners_home_still_runs_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rustup's layout: `~/.cargo/bin` on PATH runs a tool of `$RUSTUP_HOME`; both are shown
    back read-only, while cargo's credential file beside them stays hidden. Without the PATH
    and the variable's folders shown back the tool is not found; without the cover the
    credential is read."""
    with runner_home() as (home, workspace):
        real = home / ".rustup" / "toolchains" / "stable" / "bin" / "rustc"
        tool = home / ".cargo" / "bin" / "rustc"
        secret_file(real, "#!/bin/sh\necho the-real-rustc-ran\n").chmod(0o755)
        secret_file(tool, '#!/bin/sh\nexec "$RUSTUP_HOME/toolchains/stable/bin/rustc"\n')
        tool.chmod(0o755)
        secret_file(home / ".cargo" / "credentials.toml")
        env = {"PATH": f"{tool.parent}:{os.environ['PATH']}", "RUSTUP_HOME": str(home / ".rustup")}
        command = f"rustc && ! cat {home}/.cargo/credentials.toml && ! touch {tool.parent}/planted"
        code, log = as_the_split(workspace, command, tmp_path / "check.log", env)
        assert code == 0, log
        assert "the-real-rustc-ran" in log
        assert "cio-0123456789" not in log
        assert "Read-only file system" in log  # the tool's folder is shown, read-only
        assert not (tool.parent / "planted").exists()

        monkeypatch.setattr(Launcher, "_cover", lambda self: None)
        code, log = as_the_split(workspace, f"cat {home}/.cargo/credentials.toml", tmp_path / "o")
        assert code == 0 and "cio-0123456789" in log, log  # the attack, without the cover


def test_a_path_entry_that_is_a_home_is_never_shown_back() -> None:
    """A PATH holding `/home`, a user's HOME or `/` would show every home: never shown back;
    nor the user's configuration (`XDG_CONFIG_HOME`: `~/.config/gh/hosts.yml` holds a token),
    while a tool chain's variable (`RUSTUP_HOME`) is."""
    with runner_home() as (home, workspace):
        for name in ("bin", ".config", ".rustup"):
            (home / name).mkdir()
        env = {
            "PATH": f"/home:{home}:/:{home}/bin/",
            "CARGO_HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "RUSTUP_HOME": str(home / ".rustup"),
        }
        cover = homes.plan(65534, [workspace], env)
        assert "/home" in cover.hidden
        assert cover.writable == (str(workspace),)
        assert cover.readable == (f"{home}/.rustup", f"{home}/bin")


def test_a_path_folder_the_commands_turn_into_a_link_shows_nothing(tmp_path: Path) -> None:
    """The runner's PATH names `~/shared/bin`, in a folder everyone may write: the check
    replaces `bin` by a link to the runner's `~/.ssh`, and the next command would see the key
    at the PATH folder's place if root bound what the path names. A PATH folder is shown only
    when no link leads to it and no folder on the way is writable by the commands."""
    with runner_home() as (home, workspace):
        key = secret_file(home / ".ssh" / "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        shared = home / "shared"
        (shared / "bin").mkdir(parents=True)
        shared.chmod(0o777)
        env = {"PATH": f"{shared / 'bin'}:{os.environ['PATH']}"}
        swap = f"rm -rf {shared}/bin && ln -s {key.parent} {shared}/bin"
        code, log = as_the_split(workspace, swap, tmp_path / "swap.log", env)
        if code != 0:  # the folder stayed hidden: the check could not even reach it
            assert "Read-only file system" in log or "No such file" in log, log
            (shared / "bin").rmdir()
            (shared / "bin").symlink_to(key.parent)  # as if the runner's own step did
        code, log = as_the_split(workspace, f"cat {shared}/bin/id_ed25519", tmp_path / "c.log", env)
        assert code != 0 and "PRIVATE KEY" not in log, log


def test_the_commands_cannot_peel_the_cover_off_in_a_namespace_of_their_own(
    tmp_path: Path,
) -> None:
    """The check makes a user and mount namespace of its own, where it is root, and unmounts or
    moves the tmpfs over `/home`: the mounts root made came as one locked unit
    (mount_namespaces(7)), so the runner's key stays out of reach."""
    with runner_home() as (home, workspace):
        key = secret_file(home / ".ssh" / "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        peel = (
            f"unshare -Urm sh -c 'id -u; umount -l /home; mount --move /home /mnt; "
            f"cat {key} /mnt/{key.relative_to('/home')}; ls -a /proc/1/root{home}' ; true"
        )
        code, log = as_the_split(workspace, peel, tmp_path / "peel.log")
        assert code == 0, log
        if not log.startswith("0\n"):
            pytest.skip(f"no user namespace for the commands here: {log[:200]}")
        assert "PRIVATE KEY" not in log and ".ssh" not in log.splitlines(), log
