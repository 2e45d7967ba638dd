"""Who may talk to fixbot: a user's permission on the repository, and the rule over it.

The permission comes from `GET /repos/{owner}/{repo}/collaborators/{username}/permission`
(https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user):
`role_name` is the role (admin, maintain, write, triage, read, or a custom role's name) and
`permission` the classic level it maps to (admin, write, read, none). `author_association` in a
payload is not trusted: it says how someone relates to the repository, not what they may do.
The rule is pure (`allows`); `Permissions` is the thin cached lookup (one request per login).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum


class Level(StrEnum):
    """A repository permission level, weakest first in `ORDER`."""

    NONE = "none"
    READ = "read"
    TRIAGE = "triage"
    WRITE = "write"
    MAINTAIN = "maintain"
    ADMIN = "admin"


ORDER = (Level.NONE, Level.READ, Level.TRIAGE, Level.WRITE, Level.MAINTAIN, Level.ADMIN)


def level_of(role_name: str | None, permission: str | None) -> Level:
    """The `Level` of an API answer: the role when it is a built-in one, else the classic
    `permission` (a custom role maps to its base level there); unknown values are NONE."""
    for value in (role_name, permission):
        text = (value or "").strip().lower()
        if text in Level.__members__.values():
            return Level(text)
        if text == "pull":  # the classic names some answers still use
            return Level.READ
        if text == "push":
            return Level.WRITE
    return Level.NONE


def allows(level: Level, minimum: Level) -> bool:
    """True when `level` is `minimum` or stronger."""
    return ORDER.index(level) >= ORDER.index(minimum)


Lookup = Callable[[str], Level]


class Permissions:
    """A run's cache of permission lookups: each login is asked about once.

    `lookup(login)` does the request (the REST adapter's `permission`); it raises
    `fixbot.core.errors.GitHubError` when GitHub refuses, and answers NONE for unknown users.
    """

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup
        self._known: dict[str, Level] = {}

    def level(self, login: str) -> Level:
        """The permission of `login` (cached; logins compare case-insensitively)."""
        key = login.lower()
        if key not in self._known:
            self._known[key] = self._lookup(login)
        return self._known[key]

    def allowed(self, login: str, minimum: Level) -> bool:
        """True when `login` has `minimum` permission or more."""
        return allows(self.level(login), minimum)
