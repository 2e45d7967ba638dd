"""The command line that reproduces a run: for the report's and the status comment's next steps.

Derived from the settings' declarations (`fixbot.core.settings.specs`), so every flag the user gave
(or set through a variable or a file) comes back, under its public name, and a suggested
command works when pasted. A secret setting (`api-base`) is shown when its value carries no
credential (a plain `http://127.0.0.1:8080/v1`); otherwise it is left out, and the command
works in a shell that exports its variable (`FIXBOT_API_BASE`, read by fixbot itself: see
`secret_variables`). The Action-only settings are left out.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fixbot.core.settings import Settings
from fixbot.core.surfaces import Spec, shown_default, specs

SKIPPED = {"resume", "allow_dirty", "discard", "hint"}


def _flag(name: str, value: Any, is_bool: bool) -> list[str]:
    if is_bool:
        return [f"--{name}" if value else f"--no-{name}"]
    return [f"--{name}", shown_default(value)]


def carries_credential(value: Any) -> bool:
    """True when a secret setting's value may hold a credential: a URL with a user, a query or
    a fragment, or anything that is not a plain http(s) URL."""
    parts = urlsplit(str(value))
    plain = parts.scheme in ("http", "https") and parts.hostname is not None
    return not plain or bool(parts.username or parts.password or parts.query or parts.fragment)


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
        if _on_command_line(item, value, item.field in (overrides or {})):
            for part in value if item.is_list else [value]:
                words += _flag(item.name, part, item.is_bool)
    return shlex.join(words)


def _on_command_line(item: Spec, value: Any, overridden: bool) -> bool:
    """True when setting `item` with `value` is written on the command line: a CLI option, not
    skipped, differing from its default or required (either unless `overridden`), and not a
    secret carrying a credential (read from its variable: `secret_variables` names it)."""
    if not item.surface.cli or (item.field in SKIPPED and not overridden):
        return False
    if value == item.default and not overridden and not item.required:
        return False
    return not (item.surface.secret and carries_credential(value))


def secret_variables(settings: Settings) -> list[str]:
    """The `FIXBOT_*` variables the command line above expects exported: its secret settings
    whose value carries a credential, so they are not on the command line."""
    return [
        item.variables[0]
        for item in specs()
        if item.surface.secret
        and getattr(settings, item.field) not in (None, item.default)
        and carries_credential(getattr(settings, item.field))
    ]
