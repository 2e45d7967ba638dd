"""Each ecosystem's default set-up and check, the last place a plan comes from: the ecosystem
registry's (`fixbot.ecosystems`, one module per language, its `markers` and `Commands`), asked
with the reader's own `exists` (it follows no link)."""

from __future__ import annotations

from collections.abc import Callable

from fixbot.ecosystems import registry
from fixbot.ecosystems.base import first
from fixbot.infer.plan import Inferred, Origin, Plan


def ecosystem(exists: Callable[[str], bool]) -> str | None:
    """The first ecosystem whose marker file is at the root (`exists(name)`), None for none."""
    found = registry.recognised(exists)
    return found[0].name if found else None


def plan(name: str, exists: Callable[[str], bool]) -> Plan:
    """The ecosystem `name`'s default plan for a root where `exists(file)` says what is there."""
    known = registry.find(name)
    if known is None:
        return Plan(check=None)
    detail = f"the {name} default"
    setup = first(known.commands.setup, exists)
    check = first(known.commands.check, exists)
    return Plan(
        check=Inferred(check[1], Origin(check[0], detail=detail)) if check else None,
        setup=(Inferred(setup[1], Origin(setup[0], detail=detail)),) if setup else (),
    )
