"""`/fixbot retry [hint]`: run again on the pull request's head, the hint passed to the model."""

from __future__ import annotations

from fixbot.github.events.commands.base import HINT_LIMIT, Answer, Command, CommandSpec, Desk, Run


def parse(rest: str) -> Command:
    """The hint is the rest of the line, cut to `HINT_LIMIT` characters; none when empty."""
    return Command(kind="retry", hint=rest[:HINT_LIMIT] or None)


def answer(command: Command, _desk: Desk) -> Answer:
    """Run the fix with the hint."""
    return Run(hint=command.hint)


COMMAND = CommandSpec(
    name="retry",
    usage="/fixbot retry [hint]",
    summary=(
        "run again on this pull request's head, with a fresh budget; fixbot is told what "
        "earlier runs already tried, and the hint (for example `/fixbot retry use the new "
        "parser API`) is passed to the model as a suggestion."
    ),
    parse=parse,
    answer=answer,
    rank=10,
)
