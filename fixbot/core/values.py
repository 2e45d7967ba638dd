"""The values settings take: the choices (enums) and the validators of the values that are not
a plain type (Debian package names, the state folder). `fixbot.core.settings` declares the
settings themselves.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Annotated

from pydantic import AfterValidator

AUTO_PROTOCOL = "auto"  # `edit-protocol`: choose by the model (`fixbot.agent.runtime`)


def _protocol_name(value: str) -> str:
    """An `edit-protocol` value: `auto` or a protocol's name (lower-case letters, digits, `_`,
    `-`). Which names exist is the protocol registry's to say (`fixbot.agent.protocols`,
    checked by the run's preflight): the registry sits above this layer."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", value):
        raise ValueError(f"{value!r} is not an edit protocol's name")
    return value


ProtocolName = Annotated[str, AfterValidator(_protocol_name)]


class OnSuccess(StrEnum):
    """What the Action does with a verified fix."""

    AUTO = "auto"  # push on a same-repository PR branch, pull-request otherwise
    PUSH = "push"
    PULL_REQUEST = "pull-request"
    SUGGEST = "suggest"  # one pull-request review with suggestion blocks, nothing pushed
    NONE = "none"


class OnEscalation(StrEnum):
    """What the Action does when fixbot gives up."""

    PULL_REQUEST = "pull-request"
    COMMENT = "comment"
    NONE = "none"


class ThreadAuthors(StrEnum):
    """Whose review threads reach the model."""

    COLLABORATORS = "collaborators"  # write, maintain or admin permission on the repository
    ANY = "any"


class CommandPermission(StrEnum):
    """The least repository permission that may give `/fixbot` commands."""

    TRIAGE = "triage"
    WRITE = "write"
    MAINTAIN = "maintain"
    ADMIN = "admin"


# Debian Policy 5.6.1, "Package": at least two characters, lower case letters, digits, `+`, `-`
# and `.`, starting with a letter or digit (https://www.debian.org/doc/debian-policy/ch-controlfields.html).
DEBIAN_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]+\Z")


def check_package_names(value: list[str]) -> list[str]:
    """`value` split on whitespace into Debian package names; ValueError naming the items that
    are not one (an option, a version, a URL, a shell word never reaches `apt-get`)."""
    names = [name for item in value for name in item.split()]
    bad = [name for name in names if not DEBIAN_PACKAGE.match(name)]
    if bad:
        raise ValueError(
            f"not Debian package names: {', '.join(repr(b) for b in bad)}; a name is lower case "
            "letters, digits, '+', '-' and '.', at least two characters, starting with a letter "
            "or digit (e.g. `nodejs npm`), with no option, version or URL"
        )
    return list(dict.fromkeys(names))


UNSAFE_STATE_DIR = re.compile(r"[\x00-\x1f*?\[\]!\\]")


def check_state_dir(value: str) -> str:
    """`value` when it is a safe state folder, else ValueError saying what to use.

    Safe: a relative path inside the repository, without `..`, control characters (a newline
    would write a second pattern into `.git/info/exclude`), glob characters or backslashes,
    and not `.git` itself.
    """
    text = value.strip().rstrip("/")
    pure = PurePosixPath(text)
    if (
        not text
        or pure.is_absolute()
        or ".." in pure.parts
        or UNSAFE_STATE_DIR.search(text)
        or pure.parts[0].lower() == ".git"
    ):
        raise ValueError(
            "the state folder must be a relative path inside the repository, without '..', "
            "'.git', control or glob characters (e.g. .fixbot)"
        )
    return pure.as_posix()
