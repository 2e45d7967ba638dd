"""The bench's report: totals, JSON, Markdown, the PNG (pure but for the PNG file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixbot.bench import report
from fixbot.bench.localize import Localization
from fixbot.bench.run import CaseResult, Grade, Runner


def row(case: str, runner: Runner, grade: Grade, **fields: object) -> CaseResult:
    return CaseResult(
        id=case, family="regression", ecosystem="python", runner=runner, grade=grade, **fields
    )


LOC = Localization(files=["a.py"], files_shown=["a.py"], lines=2, lines_shown=1, request_chars=900)
RESULTS = [
    row("a", Runner.FIXBOT, Grade.FIXED, model_calls=3, usd=0.01, localization=LOC),
    row("b", Runner.FIXBOT, Grade.WRONG, model_calls=2, usd=0.02, false_alarms=["test-skipped"]),
    row("a", Runner.BASELINE, Grade.ESCALATED, model_calls=1, usd=None),
]


def test_totals_count_grades_costs_and_false_alarms_per_runner() -> None:
    fixbot, baseline = report.summarize(RESULTS)
    assert (fixbot.runner, fixbot.fixed, fixbot.wrong, fixbot.escalated) == ("fixbot", 1, 1, 0)
    # calls per fix: the calls of the fixed runs (3), not of the wrong one
    assert fixbot.calls_per_fix == 3.0 and fixbot.usd == pytest.approx(0.03)
    assert fixbot.localized == 1 and fixbot.with_request == 1 and fixbot.false_alarms == 1
    assert baseline.usd is None and baseline.calls_per_fix is None  # an unknown price


def test_json_and_markdown_carry_the_cases_and_totals() -> None:
    data = json.loads(report.as_json(RESULTS))
    assert [c["grade"] for c in data["cases"]] == ["fixed", "verified-but-wrong", "escalated"]
    assert data["totals"][0]["fixed"] == 1
    text = report.markdown(RESULTS)
    located = "1/1 (dev 1/1, held-out 0/0)"
    assert f"| fixbot | 2 | 1 | 1 | 0 | 0 | 0 | 0 | {located} | 0 | 3.00 (3/1) |" in text
    assert "yes (1/1 files, 1/2 lines)" in text and "unknown" in text


def test_the_png_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    report.png(RESULTS, tmp_path / "bench.png")
    assert (tmp_path / "bench.png").read_bytes().startswith(b"\x89PNG")


NO_LINES = Localization(
    files=["n.py"], files_shown=["n.py"], lines=0, lines_shown=0, request_chars=9
)


def test_a_fix_with_no_target_lines_is_counted_apart_never_as_localized() -> None:
    rows = [
        row("a", Runner.FIXBOT, Grade.FIXED, model_calls=2, localization=LOC),
        row("n", Runner.FIXBOT, Grade.FIXED, model_calls=4, localization=NO_LINES),
        row("d", Runner.FIXBOT, Grade.FIXED, model_calls=0),  # fixed by a fix command alone
        row("v", Runner.FIXBOT, Grade.NEVER_FAILED),
    ]
    (t,) = report.summarize(rows)
    assert (t.localized, t.with_request, t.no_target, t.no_target_named) == (1, 1, 1, 1)
    assert not NO_LINES.localized and NO_LINES.named
    assert t.calls_per_fix == 3.0 and (t.calls_of_fixes, t.fixes_with_calls) == (6, 2)
    assert t.never_failed == 1 and t.fixed == 3


def test_a_scripted_models_calls_are_no_calls_per_fix() -> None:
    (t,) = report.summarize([row("a", Runner.ORACLE, Grade.FIXED, model_calls=2)])
    assert t.calls_per_fix is None and report.total_cells(t)[10] == "-"


def test_the_terminal_table_fits_100_columns_with_every_case_id_whole() -> None:
    from rich.console import Console

    ids = ["click-8-0-0-help-invalid-default", "object-inspect-1-4-0-boxed-negative-zero"]
    rows = [
        row(i, r, Grade.ESCALATED, model_calls=3, tokens=123_456, localization=LOC, wall_s=612.5)
        for i in ids
        for r in (Runner.FIXBOT, Runner.BASELINE)
    ]
    rows[0].spectrum = "the check is not a pytest command"
    console = Console(width=100, record=True)
    console.print(report.table(rows))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 100
    for i in ids:
        assert i in text
    assert "the check is not a pytest command" in text  # why the spectrum was skipped
