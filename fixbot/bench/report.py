"""`fixbot bench` output: a terminal table (rich), JSON, Markdown and a PNG chart, in the style of
`fixbot stats` (`fixbot.github.stats.render`). `summarize` is pure; the PNG is drawn with
matplotlib (the `chart` extra), imported only when asked for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from fixbot.bench.results import CaseResult, Grade, Runner
from fixbot.core.errors import ConfigError

if TYPE_CHECKING:
    from rich.table import Table

    from fixbot.bench.localize import Localization


class Totals(BaseModel):
    """One runner's figures over the cases: counts by grade; the localization figure (cases
    whose first request held the reference fix's files and lines, of those whose fix has target
    lines and that made a request) with the cases whose fix has no target line apart
    (`no_target`, of them `no_target_named` named every file); model calls per fix from the
    fixed runs that made calls (`fixes_with_calls` of them, `calls_of_fixes` their calls; a
    scripted model's are not counted, see `calls_per_fix`); costs (USD None when unknown) and
    the tampering detector's false alarms."""

    runner: str
    cases: int
    fixed: int
    wrong: int
    escalated: int
    unclaimed: int = 0
    never_failed: int = 0
    errors: int
    localized: int
    with_request: int
    localized_held_out: int = 0  # of `localized`, the held-out part's (the rest are dev's)
    with_request_held_out: int = 0
    no_target: int = 0
    no_target_named: int = 0
    model_calls: int
    fixes_with_calls: int = 0
    calls_of_fixes: int = 0
    tokens: int
    usd: float | None
    wall_s: float
    false_alarms: int
    over_budget: int
    first_request_chars: int
    naive_chars: int

    @property
    def calls_per_fix(self) -> float | None:
        """Model calls per fixed case, over the fixed runs that made calls; None without one, and
        for the oracle's and `--localize`'s scripted models (their calls follow from the
        localization figure: no separate evidence)."""
        if self.runner in SCRIPTED or not self.fixes_with_calls:
            return None
        return self.calls_of_fixes / self.fixes_with_calls


SCRIPTED = frozenset({Runner.ORACLE.value, Runner.LOCALIZE.value})


def summarize(results: Sequence[CaseResult]) -> list[Totals]:
    """The totals of each runner, in the order the runners first appear."""
    runners = list(dict.fromkeys(r.runner.value for r in results))
    return [_totals(name, [r for r in results if r.runner.value == name]) for name in runners]


# The field of `Totals` counting each grade.
GRADE_FIELDS = {Grade.FIXED: "fixed", Grade.WRONG: "wrong", Grade.ESCALATED: "escalated"}
GRADE_FIELDS |= {Grade.UNCLAIMED: "unclaimed", Grade.NEVER_FAILED: "never_failed"}
GRADE_FIELDS |= {Grade.ERROR: "errors"}


def _totals(runner: str, rows: list[CaseResult]) -> Totals:
    grades = [r.grade for r in rows]
    return Totals(
        runner=runner,
        cases=len(rows),
        **{field: grades.count(grade) for grade, field in GRADE_FIELDS.items()},
        **_localization(rows),
        **_spending(rows),
        false_alarms=sum(1 for r in rows if r.false_alarms),
        over_budget=sum(1 for r in rows if r.over_budget),
    )


def _targeted(rows: Iterable[CaseResult]) -> list[Localization]:
    """The localization figures of the cases whose fix has target lines and that made a request."""
    located = [r.localization for r in rows if r.localization]
    return [loc for loc in located if not loc.no_target_lines]


def _localization(rows: list[CaseResult]) -> dict[str, int]:
    """The `Totals` fields about localization and the size of the first request."""
    with_lines = _targeted(rows)
    held = _targeted(r for r in rows if r.part == "held-out")
    located = [r.localization for r in rows if r.localization]
    return {
        "localized": sum(loc.localized for loc in with_lines),
        "with_request": len(with_lines),
        "localized_held_out": sum(loc.localized for loc in held),
        "with_request_held_out": len(held),
        **_untargeted(located),
        "first_request_chars": sum(loc.request_chars for loc in located),
        "naive_chars": sum(loc.naive_chars or 0 for loc in located),
    }


def _untargeted(located: list[Localization]) -> dict[str, int]:
    """The cases whose fix has no target line, and how many of them named every file."""
    no_lines = [loc for loc in located if loc.no_target_lines]
    return {"no_target": len(no_lines), "no_target_named": sum(loc.named for loc in no_lines)}


def _spending(rows: list[CaseResult]) -> dict[str, Any]:
    """The `Totals` fields about model calls, tokens, money (None when a case's is unknown)
    and time."""
    paid = [r for r in rows if r.grade is Grade.FIXED and r.model_calls]
    return {
        "model_calls": sum(r.model_calls for r in rows),
        "fixes_with_calls": len(paid),
        "calls_of_fixes": sum(r.model_calls for r in paid),
        "tokens": sum(r.tokens for r in rows),
        "usd": _usd(rows),
        "wall_s": round(sum(r.wall_s for r in rows), 1),
    }


def _usd(rows: list[CaseResult]) -> float | None:
    """The cases' cost in US dollars; None when one case's is unknown."""
    if any(r.usd is None for r in rows):
        return None
    return sum(r.usd or 0.0 for r in rows)


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _located(r: CaseResult, short: bool = False) -> str:
    loc = r.localization
    if loc is None:
        return "-"
    mark = "n/a" if loc.no_target_lines else "yes" if loc.localized else "no"
    if short:
        return f"{mark} {len(loc.files_shown)}/{len(loc.files)} {loc.lines_shown}/{loc.lines}"
    files = f"{len(loc.files_shown)}/{len(loc.files)} files"
    return f"{mark} ({files}, {loc.lines_shown}/{loc.lines} lines)"


CASE_COLUMNS = ["case", "family", "runner", "grade", "attempts", "calls", "tokens", "USD", "wall s"]
CASE_COLUMNS += ["localized", "spectrum", "false alarms"]
TOTAL_COLUMNS = ["runner", "cases", "fixed", "verified-but-wrong", "escalated", "green-unclaimed"]
TOTAL_COLUMNS += ["never-failed", "error", "localized", "no target lines", "calls per fix"]
TOTAL_COLUMNS += ["tokens", "USD", "wall s", "false alarms"]
# The terminal's case tables (one per runner), narrow enough for 100 columns with the longest
# case id whole.
TERMINAL_COLUMNS = ["case", "grade", "calls", "tokens", "s", "localized", "alarms"]


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
        r.spectrum or "-",
        "; ".join(r.false_alarms) or "0",
    ]


def terminal_cells(r: CaseResult) -> list[str]:
    """One case's row in the terminal (`TERMINAL_COLUMNS`)."""
    tokens = f"{r.tokens / 1000:.1f}k" if r.tokens >= 1000 else str(r.tokens)
    return [
        r.id,
        r.grade.value,
        str(r.model_calls),
        tokens,
        f"{r.wall_s:.0f}",
        _located(r, short=True),
        str(len(r.false_alarms)),
    ]


def _per_fix(t: Totals) -> str:
    if t.calls_per_fix is None:
        return "-"
    return f"{t.calls_per_fix:.2f} ({t.calls_of_fixes}/{t.fixes_with_calls})"


def total_cells(t: Totals) -> list[str]:
    """One runner's totals row (`TOTAL_COLUMNS`)."""
    located = "-"
    if t.with_request:
        dev = f"{t.localized - t.localized_held_out}/{t.with_request - t.with_request_held_out}"
        held = f"{t.localized_held_out}/{t.with_request_held_out}"
        located = f"{t.localized}/{t.with_request} (dev {dev}, held-out {held})"
    no_target = f"{t.no_target} ({t.no_target_named} named)" if t.no_target else "0"
    return [
        t.runner,
        str(t.cases),
        str(t.fixed),
        str(t.wrong),
        str(t.escalated),
        str(t.unclaimed),
        str(t.never_failed),
        str(t.errors),
        located,
        no_target,
        _per_fix(t),
        f"{t.tokens:,}",
        _money(t.usd),
        f"{t.wall_s:.1f}",
        str(t.false_alarms),
    ]


def table(results: Sequence[CaseResult]) -> object:
    """A rich renderable for a terminal of 100 columns or more: the cases of each runner (case
    ids whole, the localized column as `yes|no|n/a files lines`), the totals with one column per
    runner and one row per figure, then why the coverage spectrum was skipped, per case."""
    from rich import box
    from rich.console import Group
    from rich.table import Table

    def new(title: str) -> Table:
        return Table(title=title, box=box.SIMPLE_HEAD, padding=0, pad_edge=False)

    totals_list = summarize(results)
    parts = [_cases_table(new, t.runner, results) for t in totals_list]
    totals = new("fixbot bench: totals")
    totals.add_column("figure", no_wrap=True)
    for t in totals_list:
        totals.add_column(t.runner, overflow="fold")
    columns = [total_cells(t) for t in totals_list]
    for index, name in enumerate(TOTAL_COLUMNS[1:], start=1):
        totals.add_row(name, *(cells[index] for cells in columns))
    parts.append(totals)
    skipped = list(dict.fromkeys((r.id, r.spectrum) for r in results if r.spectrum))
    if skipped:
        why = new("coverage spectrum skipped")
        why.add_column("case", no_wrap=True)
        why.add_column("why", overflow="fold")
        for case, reason in skipped:
            why.add_row(case, reason)
        parts.append(why)
    return Group(*parts)


def _cases_table(new: Callable[[str], Table], runner: str, results: Sequence[CaseResult]) -> Table:
    """The terminal's table of one runner's cases (`TERMINAL_COLUMNS`); `new` makes a table."""
    cases = new(f"fixbot bench: {runner}")
    for name in TERMINAL_COLUMNS:
        cases.add_column(name, no_wrap=name in ("case", "grade", "localized"), overflow="fold")
    for r in results:
        if r.runner.value == runner:
            cases.add_row(*terminal_cells(r))
    return cases


def as_json(results: Sequence[CaseResult], commands: Sequence[str] = ()) -> str:
    """The cases, the totals and the commands that produced them as one JSON object."""
    return json.dumps(
        {
            "commands": list(commands),
            "cases": [r.model_dump(mode="json") for r in results],
            "totals": [t.model_dump(mode="json") for t in summarize(results)],
        },
        sort_keys=True,
    )


def _md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(results: Sequence[CaseResult], commands: Sequence[str] = ()) -> str:
    """The commands that produced the figures, the totals, then the cases, as Markdown (for a
    README)."""
    produced = "".join(f"    {c}\n" for c in commands)
    head = f"Produced by:\n\n{produced}\n" if commands else ""
    totals = _md(TOTAL_COLUMNS, [total_cells(t) for t in summarize(results)])
    cases = _md(CASE_COLUMNS, [case_cells(r) for r in results])
    return f"{head}{totals}\n\n{cases}\n"


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
