"""Each run's job summary gives its cost and its time to green."""

from __future__ import annotations

from fixbot.core.models import Outcome, OutcomeKind
from fixbot.github.publish.render import Links, Report, duration, summary


def report(kind: OutcomeKind, seconds: float | None) -> Report:
    return Report(
        outcome=Outcome(outcome=kind, reason="r", cost_usd=0.0123),
        links=Links(run_url="https://run"),
        seconds=seconds,
        tokens=5400,
    )


def test_a_fixed_runs_summary_gives_cost_tokens_and_time_to_green() -> None:
    text = summary(report(OutcomeKind.FIXED, 125.4))
    assert "- model cost: $0.0123" in text and "- model tokens: 5,400" in text
    assert "- time to green: 2 min 5 s" in text


def test_another_outcome_gives_its_wall_time() -> None:
    text = summary(report(OutcomeKind.ESCALATED, 59.6))
    assert "- wall time: 1 min 0 s" in text and "time to green" not in text
    assert "wall time" not in summary(report(OutcomeKind.ESCALATED, None))


def test_duration() -> None:
    assert [duration(s) for s in (4, 65, 3725)] == ["4 s", "1 min 5 s", "1 h 2 min"]
