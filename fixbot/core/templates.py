"""fixbot's one Jinja2 environment, for prompts and reports: templates in
`fixbot/templates/*.j2` with `StrictUndefined`.

Untrusted text (check output, review comments, user hints, diffs) goes through the `untrusted`
filter: wrapped in `<untrusted-data source="...">` delimiters, with anything inside the text
that looks like an opening or closing delimiter defused (any case, spacing, `_` for `-`,
zero-width characters, full-width brackets), so the model can tell data from instructions.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
OPEN, CLOSE = "<untrusted-data", "</untrusted-data>"
_GAP = r"[\s\u200b-\u200f\u2060\ufeff]*"
DELIMITER = re.compile(
    r"[<\uff1c\ufe64\u2329\u3008\u27e8]"
    + _GAP
    + r"/?"
    + _GAP
    + _GAP.join("untrusted")
    + r"[\s\u200b-\u200f\u2060\ufeff_\-]*"
    + _GAP.join("data"),
    re.IGNORECASE,
)


def defuse(text: str) -> str:
    """`text` with every look-alike of the untrusted-data delimiters made `[untrusted-data`."""
    return DELIMITER.sub(lambda m: "[" + m.group(0)[1:], text)


def untrusted(text: str | None, source: str) -> str:
    """`text` wrapped in untrusted-data delimiters naming its `source` (which is defused too)."""
    name = defuse(source).replace('"', "'")
    return f'{OPEN} source="{name}">\n{defuse(text or "")}\n{CLOSE}'


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
