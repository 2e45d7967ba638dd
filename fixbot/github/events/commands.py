"""Pull request comment commands: `/fixbot retry [hint]`, `/fixbot status`, `/fixbot help`.

Pure. A command counts only at the start of a line (up to three spaces of indentation, as
Markdown allows) outside block quotes (`>`), fenced code blocks (``` or ~~~) and indented code
(four spaces or a tab); `/fixbot` and the subcommand are case-insensitive; the first command in
the comment wins. `retry`'s hint is the rest of its line. An unknown subcommand, or `/fixbot`
alone, asks for the help text.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel

LINE_END = re.compile(
    r"\r\n|\r|\n"
)  # CommonMark's line endings (not str.splitlines' \x0c, \x85, ...)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
COMMAND = re.compile(r"^ {0,3}/fixbot(?:[ \t]+(\S+))?(?:[ \t]+(.*))?$", re.IGNORECASE)
HINT_LIMIT = 2_000  # characters of hint kept (it reaches the model as untrusted text)


class CommandKind(StrEnum):
    """What a comment asks of fixbot."""

    RETRY = "retry"
    STATUS = "status"
    HELP = "help"


class Command(BaseModel):
    """A parsed command; `unknown` is the subcommand that was not understood (help is shown)."""

    kind: CommandKind
    hint: str | None = None
    unknown: str | None = None


HELP = """fixbot answers these commands at the start of a line in a pull request comment:

- `/fixbot retry [hint]`: run again on this pull request's head, with a fresh budget; fixbot is
  told what earlier runs already tried, and the hint (for example `/fixbot retry use the new
  parser API`) is passed to the model as a suggestion.
- `/fixbot status`: reply with the last report.
- `/fixbot help`: this text.

Commands are accepted from people with write access to the repository (or the level set by
`command-permission`)."""


def _lines_outside_code(body: str) -> list[str]:
    """The lines of `body` that are not inside a fenced code block (CommonMark 0.31, 4.5: a
    backtick fence's info string has no backtick; a closing fence has nothing after it)."""
    kept: list[str] = []
    fence: str | None = None
    for line in LINE_END.split(body):
        opened = FENCE.match(line)
        rest = line[opened.end() :] if opened else ""
        if fence is not None:
            # a closing fence: the same character, at least as long, nothing after it
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None if not rest.strip(" \t") else fence
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in rest):  # not inline code
            fence = opened.group(1)
            continue
        kept.append(line)
    return kept


def parse(body: str) -> Command | None:
    """The first command in a comment `body`, or None when it holds none."""
    for line in _lines_outside_code(body):
        if line.startswith(("    ", "\t")) or line.lstrip().startswith(">"):
            continue
        found = COMMAND.match(line.rstrip())
        if found is None:
            continue
        word = (found.group(1) or "").lower()
        rest = (found.group(2) or "").strip()
        if word == CommandKind.RETRY:
            return Command(kind=CommandKind.RETRY, hint=rest[:HINT_LIMIT] or None)
        if word == CommandKind.STATUS:
            return Command(kind=CommandKind.STATUS)
        return Command(kind=CommandKind.HELP, unknown=word if word not in ("", "help") else None)
    return None


def help_reply(command: Command) -> str:
    """The reply to `/fixbot help` (or to an unknown subcommand)."""
    if command.unknown:
        word = command.unknown.replace("`", "")[:40]
        return f"fixbot does not know `{word}`.\n\n{HELP}"
    return HELP


def refusal_reply(login: str, level: str, minimum: str) -> str:
    """The polite reply to a command from someone without the needed permission."""
    return (
        f"Thanks @{login}. fixbot takes commands from people with {minimum} access to this "
        f"repository or more, and yours is {level}, so nothing was run. A maintainer can "
        "comment `/fixbot retry` instead."
    )
