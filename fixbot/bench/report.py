"""`fixbot bench` output: a terminal table (rich), JSON, Markdown and a PNG chart, in the style of
`fixbot stats` (`fixbot.github.stats.render`). `summarize` is pure; the PNG is drawn with
matplotlib (the `chart` extra), imported only when asked for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from fixbot.bench.results import CaseResult, Grade
from fixbot.core.errors import ConfigError


class Totals(BaseModel):
    """One runner's figures over the cases: counts by grade, the localization figure (cases
    whose first request held the reference fix's files and lines, of those with a request),
    costs per fixed case (None when unknown) and the tampering detector's false alarms."""

    runner: str
    cases: int
    fixed: int
    wrong: int
    escalated: int
    errors: int
    localized: int
    with_request: int
    model_calls: int
    tokens: int
    usd: float | None
    wall_s: float
    false_alarms: int
    over_budget: int
    first_request_chars: int
    naive_chars: int

    @property
    def calls_per_fix(self) -> float | None:
        """Model calls per fixed case (None without a fix)."""
        return self.model_calls / self.fixed if self.fixed else None


def summarize(results: Sequence[CaseResult]) -> list[Totals]:
    """The totals of each runner, in the order the runners first appear."""
    runners = list(dict.fromkeys(r.runner.value for r in results))
    return [_totals(name, [r for r in results if r.runner.value == name]) for name in runners]


def _totals(runner: str, rows: list[CaseResult]) -> Totals:
    grades = [r.grade for r in rows]
    located = [r.localization for r in rows if r.localization]
    usd = None if any(r.usd is None for r in rows) else sum(r.usd or 0.0 for r in rows)
    return Totals(
        runner=runner,
        cases=len(rows),
        fixed=grades.count(Grade.FIXED),
        wrong=grades.count(Grade.WRONG),
        escalated=grades.count(Grade.ESCALATED),
        errors=grades.count(Grade.ERROR),
        localized=sum(1 for loc in located if loc.localized),
        with_request=len(located),
        model_calls=sum(r.model_calls for r in rows),
        tokens=sum(r.tokens for r in rows),
        usd=usd,
        wall_s=round(sum(r.wall_s for r in rows), 1),
        false_alarms=sum(1 for r in rows if r.false_alarms),
        over_budget=sum(1 for r in rows if r.over_budget),
        first_request_chars=sum(loc.request_chars for loc in located),
        naive_chars=sum(loc.naive_chars or 0 for loc in located),
    )


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _located(r: CaseResult) -> str:
    loc = r.localization
    if loc is None:
        return "-"
    mark = "yes" if loc.localized else "no"
    files = f"{len(loc.files_shown)}/{len(loc.files)} files"
    return f"{mark} ({files}, {loc.lines_shown}/{loc.lines} lines)"


CASE_COLUMNS = ["case", "family", "runner", "grade", "attempts", "calls", "tokens", "USD", "wall s"]
CASE_COLUMNS += ["localized", "false alarms"]
TOTAL_COLUMNS = ["runner", "cases", "fixed", "verified-but-wrong", "escalated", "error"]
TOTAL_COLUMNS += ["localized", "calls per fix", "tokens", "USD", "wall s", "false alarms"]


def case_cells(r: CaseResult) -> list[str]:
    """One case's row."""
    return [
        r.id,
        r.family,
        r.runner.value,
        r.grade.value,
        str(r.attempts),
        str(r.model_calls),
        f"{r.tokens:,}",
        _money(r.usd),
        f"{r.wall_s:.1f}",
        _located(r),
        "; ".join(r.false_alarms) or "0",
    ]


def total_cells(t: Totals) -> list[str]:
    """One runner's totals row."""
    per_fix = "-" if t.calls_per_fix is None else f"{t.calls_per_fix:.1f}"
    located = f"{t.localized}/{t.with_request}" if t.with_request else "-"
    return [
        t.runner,
        str(t.cases),
        str(t.fixed),
        str(t.wrong),
        str(t.escalated),
        str(t.errors),
        located,
        per_fix,
        f"{t.tokens:,}",
        _money(t.usd),
        f"{t.wall_s:.1f}",
        str(t.false_alarms),
    ]


def table(results: Sequence[CaseResult]) -> object:
    """A rich renderable: the cases, then the totals per runner."""
    from rich.console import Group
    from rich.table import Table

    cases = Table(title="fixbot bench: cases")
    totals = Table(title="fixbot bench: totals")
    for name in CASE_COLUMNS:
        cases.add_column(name)
    for name in TOTAL_COLUMNS:
        totals.add_column(name)
    for r in results:
        cases.add_row(*case_cells(r))
    for t in summarize(results):
        totals.add_row(*total_cells(t))
    return Group(cases, totals)


def as_json(results: Sequence[CaseResult]) -> str:
    """The cases and the totals as one JSON object."""
    return json.dumps(
        {
            "cases": [r.model_dump(mode="json") for r in results],
            "totals": [t.model_dump(mode="json") for t in summarize(results)],
        },
        sort_keys=True,
    )


def _md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(results: Sequence[CaseResult]) -> str:
    """The totals, then the cases, as Markdown tables (for a README)."""
    totals = _md(TOTAL_COLUMNS, [total_cells(t) for t in summarize(results)])
    cases = _md(CASE_COLUMNS, [case_cells(r) for r in results])
    return f"{totals}\n\n{cases}\n"


def png(results: Sequence[CaseResult], path: Path) -> None:
    """Draw each runner's grades as stacked bars into the PNG `path`.

    Raises `ConfigError` when matplotlib is not installed (`pip install 'fixbot[chart]'`).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: write files only
        from matplotlib import pyplot
    except ImportError as exc:
        raise ConfigError(["--png needs matplotlib: pip install 'fixbot[chart]'"]) from exc
    totals = summarize(results)
    names = [t.runner for t in totals]
    figure, axes = pyplot.subplots(figsize=(8, 4), dpi=100)
    bottom = [0] * len(totals)
    parts = [("fixed", "#2da44e"), ("wrong", "#bf8700"), ("escalated", "#cf222e")]
    for field, color in [*parts, ("errors", "#6e7781")]:
        values = [getattr(t, field) for t in totals]
        axes.bar(names, values, bottom=bottom, color=color, label=field)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    axes.set_ylabel("cases")
    axes.set_title("fixbot bench: how often each runner fixes")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)
