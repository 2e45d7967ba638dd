"""Where fixbot runs, as a fact of the installation: never an environment variable.

An earlier step of the job can write any variable into `GITHUB_ENV` (GitHub's docs,
"Workflow commands: Setting an environment variable"), so nothing that decides who runs the
project's commands may come from the environment. Three places:

- `container`: fixbot's image. It ships `RUNTIME_FILE` (`/etc/fixbot/runtime`, the word
  `container`), owned by root and writable by root alone, in folders only root may write. The
  file counts only while those ownership facts hold (`trusted_text`): a copy the project's
  commands could have made or changed is ignored.
- `runner`: the `fixbot action` entry point without that file (runner/action.yml, the
  composite action on the job's own runner); `fixbot.cli` records the entry point.
- None: the CLI, `fixbot run`.
"""

from __future__ import annotations

import os
import stat
import subprocess
from functools import cache
from pathlib import Path

# The variables the dynamic loader and the C library act on, which glibc itself removes from a
# setuid program's environment (glibc's sysdeps/generic/unsecvars.h, ld.so(8) "secure-execution
# mode"): an earlier step can write them into GITHUB_ENV, and `LD_PRELOAD` naming a library in
# the workspace would run it in every dynamically linked process of fixbot's that runs as root.
# The image's entry point removes them before its first dynamic program (Dockerfile); the runner
# mode's re-execution as root never passes them on (`fixbot.startup`).
LOADER_VARIABLES = (
    *("GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LD_AUDIT", "LD_DEBUG"),
    *("LD_DEBUG_OUTPUT", "LD_DYNAMIC_WEAK", "LD_HWCAP_MASK", "LD_LIBRARY_PATH", "LD_ORIGIN_PATH"),
    *("LD_PRELOAD", "LD_PROFILE", "LD_SHOW_AUXV", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE"),
    *("NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR"),
)


def entry_argv() -> list[str]:
    """The image's ENTRYPOINT (the Dockerfile says it literally; a test holds the two equal):
    the statically linked `tini-static`, then the statically linked busybox's `env` removing
    `LOADER_VARIABLES` (an applet that keeps every other variable, `INPUT_GITHUB-TOKEN` too,
    which a shell would drop for its `-`), then fixbot's Action by absolute path in isolated
    mode. No dynamic program runs before the loader's variables are gone."""
    unset = [word for name in LOADER_VARIABLES for word in ("-u", name)]
    python = ["/usr/local/bin/python", "-I", "-m", "fixbot", "action"]
    return ["/usr/bin/tini-static", "--", "/bin/busybox", "env", *unset, *python]


CONTAINER = "container"
RUNNER = "runner"
RUNTIME_FILE = Path("/etc/fixbot/runtime")
MAX_BYTES = 64  # the file holds one word
_ENTRY: list[str | None] = [None]  # RUNNER once `fixbot action` started (`enter_action`)
_SPLIT = [False]  # True once the runner mode became root through sudo (`enter_split`)


def enter_action() -> None:
    """Record that this process is the `fixbot action` entry point (called by `fixbot.cli`)."""
    _ENTRY[0] = RUNNER


def enter_split() -> None:
    """Record that this process is the runner mode's fixbot, made root by its own re-execution
    through the runner user's passwordless sudo (`fixbot.cli`): the commands then get a user of
    their own (`sandbox.choose`)."""
    _SPLIT[0] = True


def split() -> bool:
    """True when `enter_split` was called: the runner mode's uid split is on."""
    return _SPLIT[0]


def runtime() -> str | None:
    """`CONTAINER` when `RUNTIME_FILE` is trusted and says so, else `RUNNER` for the
    `fixbot action` entry point, else None (the CLI)."""
    if installed(RUNTIME_FILE) == CONTAINER:
        return CONTAINER
    return _ENTRY[0]


@cache
def installed(path: Path) -> str | None:
    """The word in `path` when `trusted_text` trusts it, else None. Read once per process."""
    text = trusted_text(path)
    return None if text is None else text.strip()


def trusted_text(path: Path) -> str | None:
    """The text of `path` (at most `MAX_BYTES`), or None when it is missing or anyone but root
    could have written it: the file must be a regular file (not a link) owned by uid 0 and gid
    0, writable by its owner alone, and every folder above it owned by uid 0 and writable by its
    owner alone (no group or other write bit, a sticky `/tmp` included). Checked with `lstat`,
    read with `O_NOFOLLOW`; a folder or file that changes between the check and the read is one
    only root could change."""
    for folder in reversed(path.parents):
        if not _root_only(folder, directory=True):
            return None
    if not _root_only(path, directory=False):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not _owned_by_root(info, directory=False):
            return None
        return handle.read(MAX_BYTES).decode("utf-8", errors="replace")


def _root_only(path: Path, *, directory: bool) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return _owned_by_root(info, directory=directory)


def _owned_by_root(info: os.stat_result, *, directory: bool) -> bool:
    kind = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    group_ok = directory or info.st_gid == 0
    return kind and info.st_uid == 0 and group_ok and not writable_by_others


def passwordless_sudo() -> tuple[str, str] | None:
    """(sudo, env): root's own `sudo` and `env` (`programs.root_program`), when `sudo -n true`
    succeeds (sudo(8): `-n` never asks for a password), else None."""
    from fixbot.process import programs

    sudo, env = programs.root_program("sudo"), programs.root_program("env")
    if sudo is None or env is None:
        return None
    try:
        done = subprocess.run(
            [sudo, "-n", "true"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (sudo, env) if done.returncode == 0 else None
