"""`/fixbot status`: reply with the last report on the pull request."""

from __future__ import annotations

from fixbot.github.events.commands.base import Answer, Command, CommandSpec, Desk, Reply, bare

NOT_YET = "fixbot has not reported on this pull request yet. Comment `/fixbot retry` to run it."


def answer(_command: Command, desk: Desk) -> Answer:
    """The last report, or how to get one."""
    report = desk.last_report()
    if report is None:
        return Reply(text=NOT_YET)
    return Reply(text=f"The last fixbot report on this pull request:\n\n{report}\n")


COMMAND = CommandSpec(
    name="status",
    usage="/fixbot status",
    summary="reply with the last report.",
    parse=bare("status"),
    answer=answer,
    rank=20,
)
