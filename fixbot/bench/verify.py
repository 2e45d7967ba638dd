"""`fixbot bench --verify`: each case fails as recorded, its reference fix makes the check pass,
and its hidden tests pass on the fixed tree."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.bench.archives import PrepareError
from fixbot.bench.corpus import Case
from fixbot.bench.prepare import Prepared, apply_patch, prepare
from fixbot.process.spawn import run_command

COMMAND_TIMEOUT_S = 600.0  # one check or hidden command
SHOWN_TAIL = 1500  # characters of a command's output quoted in a problem


@dataclass
class Verdict:
    """One case's verification: `problems` is empty when it holds; `seconds` is wall time."""

    case: Case
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every step held."""
        return not self.problems


def _run(prepared: Prepared, command: str, log: Path) -> tuple[int | None, str]:
    result = run_command(command, prepared.repo, log, COMMAND_TIMEOUT_S, env=prepared.env)
    return result.exit_code, result.tail


def verify_case(case: Case, cache: Path, into: Path | None = None) -> Verdict:
    """Prepare `case` afresh and check its three claims; stop at the first that fails.

    The repository is prepared at `into` (default `cache/work/<id>`, `prepare`'s), the logs
    written beside it (`<into>.logs/`; default `cache/logs/<id>/`): a caller that runs cases
    in parallel gives each its own `into`, so that no two share a tree. Never raises for a
    broken case: a download, install or patch failure is a problem of the verdict.
    """
    start = time.monotonic()
    verdict = Verdict(case)
    try:
        _check(case, cache, verdict.problems, into)
    except PrepareError as error:
        verdict.problems.append(str(error))
    verdict.seconds = time.monotonic() - start
    return verdict


def _check(case: Case, cache: Path, problems: list[str], into: Path | None) -> None:
    prepared = prepare(case, cache, into)
    logs = into.with_name(f"{into.name}.logs") if into else cache / "logs" / case.id
    code, tail = _run(prepared, prepared.check, logs / "broken.log")
    if code == 0:
        problems.append(f"the check passes on the broken repository: {tail[-SHOWN_TAIL:]}")
        return
    if case.check.expect not in tail:
        problems.append(
            f"the check's output lacks {case.check.expect!r} (exit {code}): {tail[-SHOWN_TAIL:]}"
        )
        return
    apply_patch(prepared.repo, prepared.fix_patch, f"{case.id}: the [fix] patch")
    code, tail = _run(prepared, prepared.check, logs / "fixed.log")
    if code != 0:
        problems.append(
            f"the check fails after the reference fix (exit {code}): {tail[-SHOWN_TAIL:]}"
        )
        return
    apply_patch(prepared.repo, prepared.hidden_patch, f"{case.id}: the [hidden] patch")
    command = prepared.hidden_command or prepared.check
    code, tail = _run(prepared, command, logs / "hidden.log")
    if code != 0:
        problems.append(
            f"the hidden tests fail on the fixed tree (exit {code}): {tail[-SHOWN_TAIL:]}"
        )


def verify_all(
    cases: Sequence[Case], cache: Path, report: Callable[[Verdict], None] = lambda v: None
) -> list[Verdict]:
    """`verify_case` for each case in turn, calling `report` after each."""
    verdicts = []
    for case in cases:
        verdict = verify_case(case, cache)
        report(verdict)
        verdicts.append(verdict)
    return verdicts
