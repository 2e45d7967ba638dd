"""Prompt rendering: Jinja2 templates in `fixbot/templates/*.j2` with `StrictUndefined`, through
fixbot's one environment (`fixbot.core.templates`, where the report renders too: a run that
never asks a model imports nothing of `agent/`).

Untrusted text (check output, review comments, user hints, diffs) goes through the `untrusted`
filter: wrapped in `<untrusted-data source="...">` delimiters, with anything inside the text
that looks like an opening or closing delimiter defused.
"""

from __future__ import annotations

from fixbot.core.templates import (
    CLOSE,
    DELIMITER,
    OPEN,
    TEMPLATES,
    defuse,
    environment,
    render,
    untrusted,
)

__all__ = [
    "CLOSE",
    "DELIMITER",
    "OPEN",
    "TEMPLATES",
    "defuse",
    "environment",
    "render",
    "untrusted",
]
