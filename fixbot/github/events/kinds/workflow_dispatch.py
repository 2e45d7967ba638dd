"""`workflow_dispatch`: fix the branch the workflow was started on (`ref`, `GITHUB_SHA`)."""

from __future__ import annotations

from fixbot.github.events.kinds.base import EventKind

KIND = EventKind(name="workflow_dispatch")
