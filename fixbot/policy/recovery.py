"""The deterministic recovery plan for a failure that editing code cannot fix.

A missing program or package, credentials, a timeout, a full disk, ...: no model call, a few
candidate strategies (`fixbot.core.diagnosis.Strategy`) scored as confidence x 1/sqrt(estimated
steps) x 2.5 for automated ones or x 0.6 for asking a person, the best one chosen and the
alternatives recorded
in a `RecoveryPlan` (all pure, well under 50 ms).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from fixbot.core.diagnosis import RecoveryPlan, Strategy
from fixbot.ecosystems import registry

if TYPE_CHECKING:  # `fixbot.core.models` imports this module (an attempt holds its diagnosis)
    from fixbot.core.failure import Failure, MissingDependency


NOT_FOUND = re.compile(
    r"(?:^|\n)\S*(?:sh|bash|dash|zsh)?:? ?(?:\d+: |line \d+: )?(?P<p>[\w./+-]+): "
    r"(?:command )?not found|No module named '?(?P<m>[\w.]+)'?"
)


def missing_program(condensed: str) -> str | None:
    """The program (or Python module) the shell or Python reported missing, if any."""
    match = NOT_FOUND.search(condensed)
    if not match:
        return None
    return match["p"] or f"python module {match['m']}"


def check_program_missing(check: str, condensed: str) -> str | None:
    """The check's own program when the output says it is missing, else None.

    A module is the check's program only when the check runs it with `-m` (`python -m pytest`
    printing `No module named pytest`); a module a test imports is the code's problem (fixable).
    """
    program = missing_program(condensed)
    if program is None or not program.startswith("python module "):
        return program
    module = program.removeprefix("python module ")
    try:
        words = shlex.split(check)
    except ValueError:
        words = check.split()
    runs = {words[i + 1] for i, word in enumerate(words[:-1]) if word == "-m"}
    tops = {run.split(".")[0] for run in runs}
    return program if module in runs or module.split(".")[0] in tops else None


def _dependency_action(missing: MissingDependency, where: str, in_action: bool) -> str:
    """How the set-up gets the missing package (its ecosystem's advice, `fixbot.ecosystems`) or
    program."""
    name = missing.name
    if missing.ecosystem == "program":
        packages = " or name its Debian package in `system-packages`" if in_action else ""
        return (
            f"the tests run `{name}`, which is not on the check's PATH: install it in "
            f"{where}{packages}, or skip those tests where `{name}` is missing"
        )
    ecosystem = registry.find(missing.ecosystem)
    if ecosystem is None or ecosystem.missing is None:
        return f"install `{name}` in {where} and declare it with the project's dependencies"
    advice = ecosystem.missing.advice(missing, where)
    if missing.provides:  # the fixture of a pytest plugin (`fixbot.logs.absent`)
        return f"{missing.provides} comes from the pytest plugin `{name}`: {advice}"
    return advice


def _missing_dependency(failure: Failure, where: str, in_action: bool) -> list[Strategy]:
    """Declare the package where the project keeps its dependencies and install it in the
    set-up; or fix the import when the name is a typo."""
    missing = failure.classification.missing
    if missing is None:
        return []
    typo = f"fix the import if `{missing.name}` is a typo of a module the project has"
    if missing.provides or missing.ecosystem == "program":
        what = missing.provides or f"the program `{missing.name}`"
        typo = f"fix the test if {what} is a typo of one the project has"
    action = _dependency_action(missing, where, in_action)
    return [
        Strategy(action=action, automated=False, confidence=0.8, steps=1),
        Strategy(action=typo, automated=False, confidence=0.2, steps=1),
    ]


def _cut_by_budget(timeout_s: float, measured_s: float | None) -> bool:
    """True when a timed-out command ran well short of its own timeout: the run's wall-time
    budget (`max-duration`, `fixbot.core.budget.capped_timeout`) stopped it."""
    return measured_s is not None and measured_s < 0.9 * timeout_s


def _candidates(
    category: str, failure: Failure, timeout_s: float, in_action: bool, measured_s: float | None
) -> list[Strategy]:
    where = "the `setup-command` input" if in_action else "--setup-command"
    program = missing_program(failure.condensed) or "the check's program"
    name = program.removeprefix("python module ")
    ran = f"it ran {measured_s:.1f} s before it was stopped" if measured_s else "it was stopped"
    table: dict[str, list[Strategy]] = {
        "missing_dependency": _missing_dependency(failure, where, in_action),
        "command_not_found": [
            Strategy(
                action=f"{program} is missing: install it with {where} "
                f"(e.g. `pip install {name}` or `pip install -e '.[test]'`)",
                automated=False,
                confidence=0.8,
                steps=1,
            ),
            Strategy(
                action=f"fix the check command if `{name}` is a typo",
                automated=False,
                confidence=0.4,
                steps=1,
            ),
            Strategy(
                action="use the runner mode (`<owner>/fixbot/runner@v1`) after your set-up steps, "
                f"so the check finds {name} where your workflow installed it",
                automated=False,
                confidence=0.6,
                steps=2,
            ),
        ],
        "timeout": [
            Strategy(
                action=f"raise --timeout above {timeout_s:g} s if the check is merely slow ({ran})"
                if not _cut_by_budget(timeout_s, measured_s)
                else f"raise --max-duration if the check is merely slow: the run's wall-time "
                f"budget stopped it ({ran}), before its own {timeout_s:g} s timeout",
                automated=False,
                confidence=0.6,
                steps=1,
            ),
            Strategy(
                action="narrow the check (run the failing tests only, e.g. `pytest -x "
                "tests/test_one.py`) so it fits the timeout",
                automated=False,
                confidence=0.5,
                steps=2,
            ),
            Strategy(
                action="re-run the check once in case the machine was slow",
                automated=True,
                confidence=0.1,
                steps=1,
            ),
        ],
        "auth": [
            Strategy(
                action="set the credential the check needs (a secret passed with `env:`)",
                automated=False,
                confidence=0.9,
                steps=1,
            )
        ],
        "permission": [
            Strategy(
                action="grant the permission (file modes, `permissions:` of the job)",
                automated=False,
                confidence=0.8,
                steps=1,
            )
        ],
        "disk_full": [
            Strategy(
                action="free disk space or use a larger runner",
                automated=False,
                confidence=0.7,
                steps=2,
            )
        ],
        "out_of_memory": [
            Strategy(
                action="run the check with fewer parallel workers",
                automated=False,
                confidence=0.6,
                steps=1,
            ),
            Strategy(
                action="use a runner with more memory", automated=False, confidence=0.5, steps=2
            ),
        ],
    }
    for transient in ("network", "rate_limit", "server_error"):
        table[transient] = [
            Strategy(
                action="re-run later (the failure is the service's, not the code's)",
                automated=True,
                confidence=0.5,
                steps=1,
            ),
            Strategy(
                action="mock the service in the tests", automated=False, confidence=0.4, steps=3
            ),
        ]
    return table.get(category, [])


def recovery_plan(
    failure: Failure, timeout_s: float, *, in_action: bool = False, measured_s: float | None = None
) -> RecoveryPlan | None:
    """The recovery plan for a failure code cannot fix, or None when code may fix it.

    `timeout_s` is the check's limit and `measured_s` how long the check ran (seconds);
    `in_action` names the Action's input instead of the CLI flag. Pure, no model call.
    """
    category = failure.classification.category
    found = _candidates(category, failure, timeout_s, in_action, measured_s)
    ranked = sorted(found, key=lambda s: -s.score)
    if not ranked:
        return None
    return RecoveryPlan(category=category, chosen=ranked[0], alternatives=ranked[1:])
