"""`whole`: the model sends each changed file whole.

The dummy edit protocol of README.md's "Extending fixbot": this file, dropped into
`fixbot/agent/protocols/`, with its template `fixbot/templates/protocol_whole.j2`, is the whole
change (tests/agent/test_protocol_registry.py).
"""

from __future__ import annotations

import re

from fixbot.agent.protocols.base import Conversation, ProtocolSpec

WHOLE_FILE = re.compile(r"^FILE: (?P<path>\S+)\n```\n(?P<body>.*?)^```$", re.M | re.S)


def loop(talk: Conversation) -> None:
    """Write every whole file of the reply through the guarded toolbox; nudge once."""
    for _ in range(2):
        reply = talk.ask()
        if reply is None:
            return
        for found in WHOLE_FILE.finditer(reply.content):
            talk.session.box.write(found["path"], found["body"])
        summary = re.search(r"^SUMMARY: (.+)$", reply.content, re.M)
        talk.session.summary = summary[1] if summary else talk.session.summary
        if not talk.nudge():
            return


PROTOCOL = ProtocolSpec(
    name="whole",
    instructions="protocol_whole.j2",
    nudge="as whole files",
    tool_answers=False,
    loop=loop,
)
