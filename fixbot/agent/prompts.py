"""Prompt rendering: Jinja2 templates in `fixbot/templates/*.j2` with `StrictUndefined`.

Untrusted text (check output, review comments, user hints, diffs) goes through the `untrusted`
filter: wrapped in `<untrusted-data source="...">` delimiters, with any delimiter inside the
text defused, so the model can tell data from instructions.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
OPEN, CLOSE = "<untrusted-data", "</untrusted-data>"


def untrusted(text: str | None, source: str) -> str:
    """`text` wrapped in untrusted-data delimiters naming its `source`."""
    body = (text or "").replace(CLOSE, "</untrusted-data_>").replace(OPEN, "<untrusted-data_")
    return f'{OPEN} source="{source}">\n{body}\n{CLOSE}'


@cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment (built on first use, not at import)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["untrusted"] = untrusted
    return env


def render(name: str, **values: Any) -> str:
    """Render `fixbot/templates/<name>`; `jinja2.UndefinedError` names a missing value."""
    return environment().get_template(name).render(**values).strip() + "\n"
