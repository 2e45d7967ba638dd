"""What every comment command is: a parsed `Command`, the `CommandSpec` a command module
exports, and the answers a command gives (`Reply`, `Run`, `Help`).

Pure. A command never talks to GitHub itself: what it needs to know of the pull request comes
through the `Desk` the wiring (`fixbot.github.conversation`) provides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

HINT_LIMIT = 2_000  # characters of hint kept (it reaches the model as untrusted text)


class Command(BaseModel):
    """A parsed command: `kind` is the command's name (`retry`, `status`, `help`, ...); `hint`
    the argument it kept; `unknown` the subcommand that was not understood (help is shown)."""

    kind: str
    hint: str | None = None
    unknown: str | None = None


class Reply(BaseModel):
    """Answer on the pull request with `text`; nothing is run."""

    text: str


class Run(BaseModel):
    """Run fixbot on the pull request's head, passing `hint` to the model."""

    hint: str | None = None


class Help(BaseModel):
    """Answer with the help text (written from the registry by `comment.answer`)."""


Answer = Reply | Run | Help


class Desk(Protocol):
    """What a command may ask of the pull request it was given on (the wiring implements it
    over GitHub's API)."""

    def last_report(self) -> str | None:
        """The visible text of fixbot's last report on the pull request, None when none."""
        ...


@dataclass(frozen=True)
class CommandSpec:
    """One comment command.

    `name`: the lower-case word after `/fixbot`; `usage`: how it is written, as the help text
    shows it (`/fixbot retry [hint]`); `summary`: what it does, one or two sentences of
    Markdown; `parse`: the rest of the command's line (stripped, may be empty) -> `Command`;
    `answer`: the command and the pull request's `Desk` -> what fixbot does; `rank`: where the
    help text lists it (lower first, then by name).
    """

    name: str
    usage: str
    summary: str
    parse: Callable[[str], Command]
    answer: Callable[[Command, Desk], Answer]
    rank: int = 50


def bare(name: str) -> Callable[[str], Command]:
    """The `parse` of a command without arguments: the rest of the line is ignored."""
    return lambda _rest: Command(kind=name)
