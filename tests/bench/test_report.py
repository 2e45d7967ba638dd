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
    assert fixbot.calls_per_fix == 5.0 and fixbot.usd == pytest.approx(0.03)
    assert fixbot.localized == 1 and fixbot.with_request == 1 and fixbot.false_alarms == 1
    assert baseline.usd is None and baseline.calls_per_fix is None  # an unknown price


def test_json_and_markdown_carry_the_cases_and_totals() -> None:
    data = json.loads(report.as_json(RESULTS))
    assert [c["grade"] for c in data["cases"]] == ["fixed", "verified-but-wrong", "escalated"]
    assert data["totals"][0]["fixed"] == 1
    text = report.markdown(RESULTS)
    assert "| fixbot | 2 | 1 | 1 | 0 | 0 | 1/1 | 5.0 |" in text
    assert "yes (1/1 files, 1/2 lines)" in text and "unknown" in text


def test_the_png_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    report.png(RESULTS, tmp_path / "bench.png")
    assert (tmp_path / "bench.png").read_bytes().startswith(b"\x89PNG")
