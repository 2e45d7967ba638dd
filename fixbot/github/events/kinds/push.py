"""`push`: fix the pushed branch (`ref`, `after`); a tag push names no branch and is refused."""

from __future__ import annotations

from fixbot.github.events.kinds.base import EventKind

KIND = EventKind(name="push")
