"""A suspected cheat (`Cheat`): the rule that fired, the path, the evidence. Made by the
detector's rules (`fixbot.tamper.cheats`, `fixbot.tamper.runtime`, `fixbot.tamper.reports`,
`fixbot.tamper.doctests`, `fixbot.tamper.rusttests`, `fixbot.tamper.rustasserts`), by the
adapters around a green check (`fixbot.run.integrity`, `fixbot.run.phases.judging`) and read by
the edit-time guard (`fixbot.agent.guard`); its own module so that the rules' modules beside
`fixbot.tamper.cheats`, which it imports, can make one."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cheat"]


@dataclass(frozen=True)
class Cheat:
    """A suspected cheat: the rule that fired (see the module docstring), the path, the evidence."""

    rule: str
    path: str | None
    evidence: str

    def __str__(self) -> str:
        where = f" in {self.path}" if self.path else ""
        return f"{self.rule}{where}: {self.evidence}"
