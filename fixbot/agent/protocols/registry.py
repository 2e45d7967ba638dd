"""Every edit protocol fixbot speaks: the `PROTOCOL` of each module of this package.

A new protocol is a module next to this one exporting `PROTOCOL = base.ProtocolSpec(...)`, with
its instructions template in `fixbot/templates/`; nothing else lists it (README.md, "Extending
fixbot"). `--edit-protocol` takes `auto` or any name found here (`check` is the run's preflight
rule).
"""

from __future__ import annotations

from functools import cache

from fixbot.agent import protocols
from fixbot.agent.protocols.base import ProtocolSpec
from fixbot.agent.runtime import Runtime
from fixbot.core.errors import ConfigError
from fixbot.core.plugins import members
from fixbot.core.values import AUTO_PROTOCOL


@cache
def all_protocols() -> tuple[ProtocolSpec, ...]:
    """The edit protocols, in their modules' name order (found once per process)."""
    return tuple(members(protocols, "PROTOCOL", ProtocolSpec))


def names() -> list[str]:
    """The names of the edit protocols, in the registry's order."""
    return [spec.name for spec in all_protocols()]


def check(name: str) -> str | None:
    """The problem with `--edit-protocol name` (naming the choices), None when it is `auto`
    or a protocol's name."""
    if name == AUTO_PROTOCOL or name in names():
        return None
    choices = ", ".join(f"`{n}`" for n in [AUTO_PROTOCOL, *names()])
    return f"edit-protocol `{name}` is no edit protocol fixbot speaks: choose {choices}"


def get(name: str) -> ProtocolSpec:
    """The edit protocol called `name`.

    Raises `ConfigError` naming the known protocols when there is none.
    """
    found = next((spec for spec in all_protocols() if spec.name == name), None)
    if found is None:
        known = ", ".join(names())
        raise ConfigError([f"no edit protocol called {name!r}: fixbot speaks {known}"])
    return found


def for_model(runtime: Runtime, model: str) -> ProtocolSpec:
    """The edit protocol `runtime` chooses for `model` (see `Runtime.protocol`).

    Raises `ConfigError` when the chosen name has no protocol here.
    """
    return get(runtime.protocol(model))
