"""`schedule`: fix the default branch (the payload has no ref: `GITHUB_REF`, `GITHUB_SHA`)."""

from __future__ import annotations

from fixbot.github.events.kinds.base import EventKind

KIND = EventKind(name="schedule")
