"""A run with no check written: the plan `fixbot.infer` reads from the repository becomes the
check, the set-up and the fix commands, before the preflight (which then judges them as it
judges written ones). What was given always wins over what is inferred.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings
from fixbot.infer.inference import infer, missing_tools
from fixbot.infer.plan import CHECK_INPUT, Inferred, Origin, Plan

GIVEN = Origin("", detail="given")


def plan_for(settings: Settings, root: Path) -> Plan:
    """The plan a run with `settings` follows in the repository at `root`: the given check,
    set-up and fix commands where set, the inferred ones where not (fix commands only when no
    check was given and `infer_fixes` is on)."""
    plan = infer(
        root, fixes=not settings.check and settings.infer_fixes and not settings.fix_commands
    )
    if settings.check:
        plan = replace(plan, check=Inferred(settings.check, GIVEN), unresolved=(), tools=())
        if settings.setup is None:
            plan = replace(plan, setup=())
    if settings.setup is not None:
        plan = replace(plan, setup=(Inferred(settings.setup, GIVEN),))
    if settings.fix_commands:
        plan = replace(plan, fixes=tuple(Inferred(c, GIVEN) for c in settings.fix_commands))
    return plan


def resolve(
    settings: Settings, root: Path, which: Callable[[str], str | None] = shutil.which
) -> tuple[Settings, Plan | None]:
    """`settings` with the inferred check, set-up and fix commands filled in, and the plan (None
    when the check was given: nothing is inferred then). Raises `ConfigError` when no check can
    be inferred or a tool the CI sets up is not installed here (`which`)."""
    if settings.check:
        return settings, None
    plan = plan_for(settings, root)
    if plan.check is None:
        raise ConfigError([*plan.unresolved] or [f"no check could be inferred: set {CHECK_INPUT}"])
    problems = missing_tools(plan, which)
    if problems:
        raise ConfigError(problems)
    update = {
        "check": plan.check.command,
        "setup": plan.setup_command(),
        "fix_commands": [fix.command for fix in plan.fixes],
    }
    return settings.model_copy(update=update), plan
