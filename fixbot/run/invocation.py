"""The command line that reproduces a run: for the report's and the status comment's next steps.

Derived from the settings' declarations (`fixbot.core.settings.specs`), so every flag the user gave
(or set through a variable or a file) comes back, under its public name, and a suggested
command works when pasted. Secret settings are left out (their variable is named instead),
and so are the Action-only ones.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fixbot.core.settings import Settings
from fixbot.core.surfaces import shown_default, specs

SKIPPED = {"resume", "allow_dirty", "discard", "hint"}


def _flag(name: str, value: Any, is_bool: bool) -> list[str]:
    if is_bool:
        return [f"--{name}" if value else f"--no-{name}"]
    return [f"--{name}", shown_default(value)]


def command_line(
    settings: Settings,
    directory: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> str:
    """`fixbot run ...` with every setting that differs from its default, then `overrides`
    (field name -> value, e.g. a larger `max_attempts`); `-C directory` when given."""
    values = settings.model_dump()
    values.update(overrides or {})
    words = ["fixbot", "run"]
    if directory is not None:
        words += ["-C", str(directory)]
    for item in specs():
        value = values[item.field]
        if not item.surface.cli or item.field in SKIPPED:
            continue
        if value == item.default and item.field not in (overrides or {}) and not item.required:
            continue
        if item.surface.secret:
            words += [f"--{item.name}", f"${item.variables[0]}"]
            continue
        for part in value if item.is_list else [value]:
            words += _flag(item.name, part, item.is_bool)
    return " ".join(w if w.startswith("$FIXBOT_") else shlex.quote(w) for w in words)


def secret_variables(settings: Settings) -> list[str]:
    """The `FIXBOT_*` variables the command line above expects for its secret settings."""
    return [
        item.variables[0]
        for item in specs()
        if item.surface.secret and getattr(settings, item.field) not in (None, item.default)
    ]
