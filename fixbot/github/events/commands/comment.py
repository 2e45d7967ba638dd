"""Find the command in a pull request comment, answer it, and write the help text.

Pure. The comment is read as CommonMark (markdown-it-py's `commonmark` preset, the parser
`rich` already installs; CommonMark 0.31): a command counts only at the start of a line of a
paragraph or heading (up to three spaces of indentation) that is not inside a block quote
(its lazy continuation lines included), a code block, a code span, an HTML block or an HTML
comment: what reads as a command once the comment is rendered. `/fixbot` and the subcommand
are case-insensitive; the first command in the comment wins; the rest of its line, as written,
is the command's argument. An unknown subcommand, or `/fixbot` alone, asks for the help text.
Only the first `COMMENT_LIMIT` characters are read: GitHub accepts no longer comment.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from fixbot.github.events.commands import registry
from fixbot.github.events.commands.base import Command, Desk, Help, Reply, Run

LINE_END = re.compile(r"\r\n|\r|\n")  # CommonMark's line endings (not str.splitlines' \x0c, ...)
COMMAND = re.compile(r"^ {0,3}/fixbot(?:[ \t]+(\S+))?(?:[ \t]+(.*))?$", re.IGNORECASE)
HEAD = "/fixbot"
# GitHub refuses a longer comment body: 422 "Body is too long (maximum is 65536 characters)"
# (https://docs.github.com/rest/issues/comments#create-an-issue-comment). A longer body is
# not a comment GitHub delivered; reading only this much bounds the parse (markdown-it-py
# reads about 100,000 short lines a second).
COMMENT_LIMIT = 65_536
LINES = "fixbot_command_lines"  # the `env` key the inline rule records line starts under
SEEN = "fixbot_seen"  # the `env` key of (position, line) counted so far


def _line_starts(state: StateInline, silent: bool) -> bool:
    """An inline rule that consumes nothing: record the index (within the inline text) of each
    line that starts with `/fixbot` where the inline parser stands in plain text. Code spans,
    inline HTML and autolinks are consumed whole by their own rules, so it never sees inside
    them."""
    pos = state.pos
    if silent or state.src[pos] != "/" or state.src[pos : pos + 7].lower() != HEAD:
        return False
    start = state.src.rfind("\n", 0, pos) + 1
    if state.src[start:pos].strip(" \t"):
        return False
    seen, lines = state.env[SEEN]  # counted up to `seen` (the rule moves forward through src)
    lines += state.src.count("\n", seen, pos)
    state.env[SEEN] = (pos, lines)
    state.env[LINES].append(lines)
    return False


@cache
def _markdown() -> MarkdownIt:
    """CommonMark without the inline pass (`_commands` runs it on the blocks that count)."""
    md = MarkdownIt("commonmark").disable("inline")
    md.inline.ruler.before("text", "fixbot_command_lines", _line_starts)
    return md


def _candidates(body: str) -> list[int]:
    """The 0-based lines of `body` that start with `/fixbot` in a paragraph's or a heading's
    plain text outside block quotes, in order."""
    md = _markdown()
    lines = LINE_END.split(body)
    found: list[int] = []
    quoted = 0
    for token in md.parse(body):
        quoted += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if token.type != "inline" or quoted or token.map is None:
            continue
        found.extend(_in_block(md, token, lines))
    return found


def _in_block(md: MarkdownIt, token: Token, lines: list[str]) -> list[int]:
    """The source lines of the inline `token` (a paragraph's or heading's text) that start with
    `/fixbot` in plain text. The block's text is its lines trimmed as a whole, so lines of
    whitespace alone at its start are not in it."""
    assert token.map is not None
    env: dict[str, Any] = {LINES: [], SEEN: (0, 0)}
    md.inline.parse(token.content, md, env, [])
    first = token.map[0]
    while first < token.map[1] and not mdTrim(lines[first]):
        first += 1
    return [first + index for index in env[LINES]]


def parse(body: str) -> Command | None:
    """The first command in a comment `body` (its first `COMMENT_LIMIT` characters), or None
    when it holds none."""
    body = body[:COMMENT_LIMIT]
    lines = LINE_END.split(body)
    for number in _candidates(body):
        found = COMMAND.match(lines[number].rstrip())
        if found is None:
            continue
        word = (found.group(1) or "").lower()
        spec = registry.find(word)
        if spec is None:
            return Command(kind="help", unknown=word or None)
        return spec.parse((found.group(2) or "").strip())
    return None


def help_text() -> str:
    """The list of commands, from the registry."""
    listed = "\n".join(f"- `{spec.usage}`: {spec.summary}" for spec in registry.commands())
    return (
        "fixbot answers these commands at the start of a line in a pull request comment:\n\n"
        f"{listed}\n\nCommands are accepted from people with write access to the repository "
        "(or the level set by `command-permission`)."
    )


def help_reply(command: Command) -> str:
    """The reply to `/fixbot help` (or to an unknown subcommand)."""
    if command.unknown:
        word = command.unknown.replace("`", "")[:40]
        return f"fixbot does not know `{word}`.\n\n{help_text()}"
    return help_text()


def answer(command: Command, desk: Desk) -> Reply | Run:
    """What to do for `command`: its registered answer, the help text written out."""
    spec = registry.find(command.kind)
    said = spec.answer(command, desk) if spec is not None and not command.unknown else Help()
    return Reply(text=help_reply(command)) if isinstance(said, Help) else said


def refusal_reply(login: str, level: str, minimum: str) -> str:
    """The polite reply to a command from someone without the needed permission."""
    return (
        f"Thanks @{login}. fixbot takes commands from people with {minimum} access to this "
        f"repository or more, and yours is {level}, so nothing was run. A maintainer can "
        "comment `/fixbot retry` instead."
    )
