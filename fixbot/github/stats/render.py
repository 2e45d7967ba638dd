"""`fixbot stats` output: plain text, JSON, a Mermaid block for a job summary, a PNG chart.

Text, JSON and Mermaid are pure. The Mermaid block is a `pie` of the outcomes and an
`xychart-beta` bar chart of the most frequent failure classes (Mermaid's syntax:
https://mermaid.js.org/syntax/pie.html, https://mermaid.js.org/syntax/xyChart.html); GitHub
renders ```` ```mermaid ```` blocks in Markdown, job summaries included. The PNG is drawn with
matplotlib (the `chart` extra), imported only when asked for.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fixbot.core.errors import ConfigError
from fixbot.github.publish.render import duration
from fixbot.github.stats.aggregate import Stats

if TYPE_CHECKING:  # matplotlib is the `chart` extra's, imported only when a chart is drawn
    from matplotlib.figure import Figure


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _number(value: float | None, digits: int = 1) -> str:
    return "unknown" if value is None else f"{value:,.{digits}f}"


def text(stats: Stats) -> str:
    """The figures as lines of plain text."""
    day = time.strftime("%Y-%m-%d", time.gmtime(stats.since))
    counts = ", ".join(f"{k} {v}" for k, v in stats.outcomes.items()) or "no runs yet"
    ttg = stats.median_time_to_green_s
    rate = "unknown" if stats.fix_rate is None else f"{stats.fix_rate:.0%}"
    lines = [
        f"fixbot on {stats.repo} since {day}",
        f"runs: {stats.runs} ({counts})",
        f"flaky CI runs (passed on the re-run): {stats.flaky}; failed again (real): {stats.real}",
        f"fix rate (fixed / fixed + escalated): {rate}",
        f"median time to green: {'unknown' if ttg is None else duration(ttg)}",
        f"attempts per fix: {_number(stats.attempts_per_fix)}",
        f"tokens per fix: {_number(stats.tokens_per_fix, 0)}",
        f"USD per fix: {_money(stats.usd_per_fix)} (total {_money(stats.usd_total)})",
        f"fix commits (fixbot-attempt trailers): {stats.fix_commits}",
    ]
    if stats.classes:
        lines.append("most frequent failure classes:")
        lines += [f"  {name}: {count}" for name, count in stats.classes]
    return "\n".join(lines) + "\n"


def as_json(stats: Stats) -> str:
    """The figures as one JSON object (the `Stats` fields)."""
    return json.dumps(stats.model_dump(mode="json"), sort_keys=True)


def _quoted(label: str) -> str:
    return '"' + label.replace('"', "'") + '"'


def no_runs(stats: Stats) -> str:
    """The sentence shown instead of charts when no run was recorded since `stats.since`."""
    day = time.strftime("%Y-%m-%d", time.gmtime(stats.since))
    return f"fixbot on {stats.repo} since {day}: no runs yet"


def mermaid(stats: Stats) -> str:
    """A Markdown block of Mermaid charts (outcomes, failure classes), or the `no_runs` line."""
    if not stats.runs and not stats.flaky:
        return no_runs(stats) + "\n"
    blocks = [_block(chart) for chart in (_pie(stats), _classes_chart(stats)) if chart]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _block(lines: list[str]) -> str:
    return "```mermaid\n" + "\n".join(lines) + "\n```"


def _pie(stats: Stats) -> list[str]:
    """The outcomes (and the flaky re-runs) as a Mermaid pie; [] when there are none."""
    parts = {**stats.outcomes, **({"flaky": stats.flaky} if stats.flaky else {})}
    if not parts:
        return []
    pie = [f"pie title fixbot runs on {stats.repo}"]
    return pie + [f"    {_quoted(name)} : {count}" for name, count in parts.items()]


def _classes_chart(stats: Stats) -> list[str]:
    """The most frequent failure classes as a Mermaid bar chart; [] when there are none."""
    if not stats.classes:
        return []
    names = ", ".join(_quoted(name) for name, _ in stats.classes)
    counts = ", ".join(str(count) for _, count in stats.classes)
    top = max(count for _, count in stats.classes)
    return [
        "xychart-beta",
        '    title "Most frequent failure classes"',
        f"    x-axis [{names}]",
        f'    y-axis "runs" 0 --> {top}',
        f"    bar [{counts}]",
    ]


def png(stats: Stats, path: Path) -> None:
    """Draw `figure(stats)` into the PNG `path`.

    Raises `ConfigError` when matplotlib is not installed (`pip install 'fixbot[chart]'`).
    """
    try:
        from matplotlib import pyplot
    except ImportError as exc:
        raise ConfigError(
            [f"--png needs matplotlib ({exc}): pip install 'fixbot[chart]', or leave out --png"]
        ) from exc
    drawn = figure(stats)
    drawn.savefig(path, format="png")
    pyplot.close(drawn)


def figure(stats: Stats) -> Figure:
    """The outcomes and the failure classes as two bar charts, 10 x 4 inches at 100 dpi; with
    no runs, the `no_runs` sentence instead of empty axes.

    Raises `ConfigError` when matplotlib is not installed (`pip install 'fixbot[chart]'`).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: write files only
        from matplotlib import pyplot
    except ImportError as exc:
        raise ConfigError(
            ["--png needs matplotlib: pip install 'fixbot[chart]' (or use --mermaid)"]
        ) from exc
    if not stats.runs and not stats.flaky:
        empty = pyplot.figure(figsize=(10, 4), dpi=100)
        empty.text(0.5, 0.5, no_runs(stats), ha="center", va="center", fontsize=16)
        return empty
    parts = {**stats.outcomes, "flaky": stats.flaky}
    drawn, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4), dpi=100)
    left.bar(list(parts), list(parts.values()), color="#2da44e")
    left.set_title(f"fixbot runs on {stats.repo}")
    names = [name for name, _ in stats.classes] or ["none"]
    right.barh(names, [count for _, count in stats.classes] or [0], color="#cf222e")
    right.set_title("Most frequent failure classes")
    right.invert_yaxis()
    drawn.tight_layout()
    return drawn
