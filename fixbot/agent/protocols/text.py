"""The `text` edit protocol: Aider-style SEARCH/REPLACE blocks, for models without function
calling (`fixbot.agent.editblocks` parses and applies them).

Up to `TEXT_ROUNDS` replies per attempt: blocks that fail to apply are sent back for the model
to correct; the reply's `SUMMARY:` and `DIAGNOSIS:` lines stand in for `finish`.
"""

from __future__ import annotations

import re

from fixbot.agent import paths
from fixbot.agent.editblocks import EditError, apply_block, parse_blocks
from fixbot.agent.protocols.base import Conversation, ProtocolSpec, Session
from fixbot.agent.tools import read_text

TEXT_ROUNDS = 3


def loop(talk: Conversation) -> None:
    """Ask for blocks, apply them, send failed ones back; nudge once when nothing changed."""
    for _ in range(TEXT_ROUNDS):
        reply = talk.ask()
        if reply is None:
            return
        problems = apply_text(talk.session, reply.content)
        if problems:
            talk.say(
                "Some edits failed:\n"
                + "\n".join(problems)
                + "\nResend corrected blocks for those files only."
            )
        elif not talk.nudge():
            return


def apply_text(session: Session, content: str) -> list[str]:
    """Apply the SEARCH/REPLACE blocks of the reply `content` through `session.box`.

    Records the reply's `SUMMARY:` and `DIAGNOSIS:` lines in the session. Returns one line per
    block that failed (`path: Error: ...`), or the parse error; the model's text never raises.
    """
    session.summary = field(content, "SUMMARY") or session.summary
    session.diagnosis = field(content, "DIAGNOSIS") or session.diagnosis
    try:
        blocks = parse_blocks(content)
    except EditError as exc:
        return [str(exc)]
    problems = []
    for block in blocks:
        try:
            current = read_text(session.box.resolve(block.path, write=True))
            result = session.box.write(block.path, apply_block(current, block))
        except paths.PathRefused as exc:
            result = session.box.refuse(str(exc))
        except (EditError, OSError) as exc:  # the model's text never ends the run
            result = f"Error: {exc}"
        if result.startswith("Error"):
            problems.append(f"{block.path}: {result}")
    return problems


def field(content: str, name: str) -> str | None:
    """The rest of the first line of `content` that starts `NAME:`, stripped; None without one.

    Models dress the label as markdown or in another case (`**Summary:** ...`, `- SUMMARY: ...`,
    `## Summary: ...`): those count too, and the markdown around the text is dropped."""
    label = rf"^[ \t>*_#-]*{name}[ \t*_]*:[ \t*_]*(.+)$"
    match = re.search(label, content, re.MULTILINE | re.IGNORECASE)
    return match.group(1).strip().strip("*_` ").strip() or None if match else None


PROTOCOL = ProtocolSpec(
    name="text",
    instructions="protocol_text.j2",
    nudge="as SEARCH/REPLACE blocks",
    tool_answers=False,
    loop=loop,
    # the 38 reference fixes of the bench corpus as SEARCH/REPLACE answers: median 226 tokens,
    # p90 579, largest 3,155 (bench/README.md): all edits come in one reply
    output_tokens=4096,
)
