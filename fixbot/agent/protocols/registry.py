"""Every edit protocol fixbot speaks.

A new protocol is a module next to this one exporting a `base.ProtocolSpec`, its instructions
template in `fixbot/templates/`, one entry here and its name in `core.settings.EditProtocol`
(README.md, "Extending fixbot").
"""

from __future__ import annotations

from fixbot.agent.protocols import text, tools
from fixbot.agent.protocols.base import ProtocolSpec
from fixbot.agent.runtime import Runtime
from fixbot.core.errors import ConfigError

PROTOCOLS: list[ProtocolSpec] = [tools.PROTOCOL, text.PROTOCOL]


def names() -> list[str]:
    """The names of the edit protocols, in the registry's order."""
    return [spec.name for spec in PROTOCOLS]


def get(name: str) -> ProtocolSpec:
    """The edit protocol called `name`.

    Raises `ConfigError` naming the known protocols when there is none (a value of
    `core.settings.EditProtocol` without its module in `PROTOCOLS`).
    """
    found = next((spec for spec in PROTOCOLS if spec.name == name), None)
    if found is None:
        known = ", ".join(names())
        raise ConfigError([f"no edit protocol called {name!r}: fixbot speaks {known}"])
    return found


def for_model(runtime: Runtime, model: str) -> ProtocolSpec:
    """The edit protocol `runtime` chooses for `model` (see `Runtime.protocol`).

    Raises `ConfigError` when the chosen name has no protocol here.
    """
    return get(runtime.protocol(model))
