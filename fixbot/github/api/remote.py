"""Which GitHub repository (`owner/name`) a git remote URL names: the one reading of remote URLs,
for `fixbot run --pr` (`fixbot.github.local`), `--from-run` (`fixbot.github.fromrun`) and
`fixbot stats`.

The forms are git's (git-clone(1), "GIT URLS"): `https://host/owner/name(.git)`,
`ssh://[user@]host/owner/name(.git)` and the scp-like `user@host:owner/name(.git)`. A local
path, or a URL with more than `owner/name` after the host, names no GitHub repository.
"""

from __future__ import annotations

import re
from pathlib import Path

from fixbot.core.errors import ConfigError
from fixbot.process import git

__all__ = ["repository_from", "repository_from_remote"]

REMOTE = re.compile(
    r"^(?:https?://[^/]+/|ssh://[^/]+/|[\w.-]+@[^:/]+:)([\w.-]+)/([\w.-]+?)(?:\.git)?/?$"
)
NAME = re.compile(r"[\w.-]+/[\w.-]+")


def repository_from_remote(url: str) -> str | None:
    """`owner/name` of the git remote URL `url` (https, ssh or scp-like), or None."""
    found = REMOTE.match(url.strip())
    return f"{found[1]}/{found[2]}" if found else None


def repository_from(root: Path, given: str | None) -> str:
    """`owner/name`: `given` (`--repo`), else the one the `origin` remote of the work tree at
    `root` names. Raises `ConfigError` for a `given` not shaped owner/name, or when origin is
    missing or names no GitHub repository (saying to pass `--repo`)."""
    if given:
        if not NAME.fullmatch(given):
            raise ConfigError([f"--repo {given!r}: write it as owner/name"])
        return given
    url = git.run(root, "remote", "get-url", "origin", check=False).strip()
    found = repository_from_remote(url) if url else None
    if found is None:
        raise ConfigError(
            [f"cannot tell the repository from the origin remote ({url or 'none'}): pass --repo"]
        )
    return found
