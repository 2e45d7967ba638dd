"""System packages of the container: Debian packages fixbot installs as root, from the
workflow's `system-packages` input, before any of the pull request's code runs.

The set-up command runs as the unprivileged user (`fixbot.process.sandbox`), so it cannot run
`apt-get install`; the workflow names the packages instead and fixbot installs them. The names are
checked against Debian's rules (`fixbot.core.values.check_package_names`) and come from the
step's inputs only (a setting that carries trust). `apt-get` is fixbot's own program, called by
its absolute path with a clean environment: nothing of the step's environment (which an earlier
step may have written, `APT_CONFIG` say) or of the workspace reaches it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from typing import TextIO

from fixbot.core.errors import ConfigError

APT_GET = "/usr/bin/apt-get"
APT_ENV = {
    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    "DEBIAN_FRONTEND": "noninteractive",
    "LANG": "C.UTF-8",
}
APT_TIMEOUT_S = 900.0
TAIL_LINES = 20


def install(packages: Sequence[str], out: TextIO, apt_get: str | None = None) -> None:
    """Run `apt-get update` and `apt-get install --yes --no-install-recommends PACKAGES` as root.

    `packages` are validated names (`Settings.system_packages`); nothing happens without any.
    Raises `ConfigError` when fixbot is not root (runner mode: install them in a step of your
    own) and when apt-get fails or runs past `APT_TIMEOUT_S` seconds (its last lines quoted).
    """
    if not packages:
        return
    if not is_root():
        raise ConfigError(
            [
                "system-packages needs fixbot to run as root (the container action); in runner "
                "mode install them in a step of your own before fixbot's"
            ]
        )
    out.write(f"fixbot: installing system packages: {' '.join(packages)}\n")
    for args in (["update"], ["install", "--yes", "--no-install-recommends", *packages]):
        _apt(apt_get or APT_GET, args)


def is_root() -> bool:
    """True when fixbot runs as root (the container action)."""
    return os.geteuid() == 0


def _apt(apt_get: str, args: list[str]) -> None:
    try:
        done = subprocess.run(
            [apt_get, *args],
            env=APT_ENV,
            cwd="/",
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=APT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError([f"system-packages: apt-get {args[0]} could not run: {exc}"]) from exc
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-TAIL_LINES:])
        raise ConfigError(
            [
                f"system-packages: apt-get {args[0]} failed (exit {done.returncode}); check the "
                f"names in `system-packages`:\n{tail}"
            ]
        )
