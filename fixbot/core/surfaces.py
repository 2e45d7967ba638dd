"""Every surface of a setting, derived from its one declaration in `fixbot.core.settings.Settings`.

`spec(field)` / `specs()` give, for each setting, its public name and aliases, CLI flags,
`FIXBOT_*` variables, Action input variable, defaults (the CLI's and the Action's), whether it
is a list or a boolean, and its `Surface` (trust, secret, ...). The CLI, the layering
(`fixbot.core.config`), the reproducing command line and scripts/gen_settings.py all read these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from fixbot.core.settings import Settings, Surface


@dataclass(frozen=True)
class Spec:
    """Everything a surface needs to know of one setting, derived from its declaration."""

    field: str
    name: str  # the public name: Action input, `--<name>`
    names: tuple[str, ...]  # every accepted name, the public one first
    help: str
    default: Any
    required: bool
    is_list: bool
    is_bool: bool
    surface: Surface

    @property
    def flags(self) -> list[str]:
        """The CLI flags: `--<name>` then one per alias."""
        return [f"--{n}" for n in self.names]

    @property
    def variables(self) -> list[str]:
        """The `FIXBOT_*` environment variables that set it."""
        return [f"FIXBOT_{n.replace('-', '_').upper()}" for n in self.names]

    @property
    def input_variable(self) -> str:
        """The variable the runner sets for its Action input (upper case, hyphens kept)."""
        return "INPUT_" + self.name.upper()

    @property
    def action_default(self) -> Any:
        """The default in the Action."""
        override = self.surface.action_default
        return self.default if override is None else override


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return None if info.is_required() else info.default


def _unwrap(annotation: Any) -> Any:
    """`X` for `X | None`, else the annotation itself."""
    if get_origin(annotation) not in (Union, UnionType):
        return annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    return args[0] if len(args) == 1 else annotation


def _spec(field: str, info: FieldInfo) -> Spec:
    surface = next((m for m in info.metadata if isinstance(m, Surface)), Surface())
    name = surface.name or field.replace("_", "-")
    names = tuple(dict.fromkeys([name, *surface.aliases, field.replace("_", "-")]))
    inner = _unwrap(info.annotation)
    return Spec(
        field=field,
        name=name,
        names=names,
        help=info.description or "",
        default=_default(info),
        required=info.is_required(),
        is_list=get_origin(inner) is list,
        is_bool=inner is bool,
        surface=surface,
    )


def specs() -> list[Spec]:
    """The `Spec` of every setting, in declaration order."""
    return [_spec(field, info) for field, info in Settings.model_fields.items()]


def spec(field: str) -> Spec:
    """The `Spec` of one setting by field name; KeyError for an unknown one."""
    return _spec(field, Settings.model_fields[field])


def by_name() -> dict[str, Spec]:
    """Every accepted name (hyphens or underscores, any case) -> its Spec."""
    found: dict[str, Spec] = {}
    for item in specs():
        for name in item.names:
            found[name] = item
            found[name.replace("-", "_")] = item
    return found


def shown_default(value: Any) -> str:
    """A default as documentation writes it: `5`, `true`, `.github/workflows/**`, or ''."""
    if value is None or value == []:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) else str(value)
    return str(value)
