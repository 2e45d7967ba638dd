"""The structured diagnosis, the deterministic recovery plan, divergence and the event log."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.diagnosis import Diagnosis, RootCauseCategory, Strategy, parse_diagnosis
from fixbot.core.failure import Classification, ErrorClass, Failure
from fixbot.policy.divergence import best_index, diverged
from fixbot.policy.recovery import check_program_missing, missing_program, recovery_plan
from fixbot.run.eventlog import EventLog, read_events

GOOD = {
    "why": ["the test expects 4", "add() returns a - b", "the operator was mistyped"],
    "root_cause": {"category": "code_bug", "description": "add subtracts", "confidence": 0.8},
    "evidence": ["E  assert -1 == 3"],
    "next_step": "make add() use +",
}


def failure(
    category: str, text: str = "", error_class: ErrorClass = ErrorClass.PERMANENT
) -> Failure:
    return Failure(
        condensed=text,
        signature="s",
        classification=Classification(error_class=error_class, category=category, rule=category),
    )


def test_a_diagnosis_from_a_tool_call_or_from_text() -> None:
    from_call = parse_diagnosis(json.dumps(GOOD), "")
    from_text = parse_diagnosis(None, "Here it is:\n" + json.dumps(GOOD) + "\nthanks")
    assert from_call == from_text and from_call is not None
    assert from_call.root_cause.category is RootCauseCategory.CODE_BUG
    opening = from_call.opening()
    assert opening.startswith("The previous attempt failed. Root cause (code_bug, confidence 0.8)")
    assert "why: 1. the test expects 4 2. add() returns a - b" in opening
    assert opening.endswith("recommended next step: make add() use +")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "no json here",
        json.dumps({**GOOD, "why": []}),
        json.dumps({**GOOD, "why": ["a"] * 6}),
        json.dumps({**GOOD, "root_cause": {**GOOD["root_cause"], "confidence": 1.5}}),
        json.dumps({**GOOD, "root_cause": {**GOOD["root_cause"], "category": "aliens"}}),
        "{not json}",
    ],
)
def test_a_malformed_diagnosis_is_dropped(bad: str) -> None:
    assert parse_diagnosis(bad, bad) is None


def test_the_score_weighs_automation_confidence_and_steps() -> None:
    auto = Strategy(action="a", automated=True, confidence=0.4, steps=4)
    ask = Strategy(action="b", automated=False, confidence=0.8, steps=1)
    assert auto.score == pytest.approx(0.4 / 2 * 2.5)
    assert ask.score == pytest.approx(0.8 * 0.6)


def test_a_missing_program_is_named_and_the_plan_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "/bin/sh: 1: pytset: not found\n[fixbot] exit 127"
    assert missing_program(text) == "pytset"
    assert (
        missing_program("ModuleNotFoundError: No module named 'pytest'") == "python module pytest"
    )

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the plan is pure: no connection, no process")

    # pure: neither the model nor a program is asked
    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(subprocess.Popen, "__init__", refused)
    plan = recovery_plan(failure("command_not_found", text), 600, in_action=True)
    assert plan is not None and plan.chosen.action.startswith("pytset is missing: install it")
    assert "the `setup-command` input" in plan.chosen.action
    assert len(plan.alternatives) == 2
    assert [s.score for s in [plan.chosen, *plan.alternatives]] == sorted(
        [s.score for s in [plan.chosen, *plan.alternatives]], reverse=True
    )


def test_a_timeout_plan_names_the_timeout_and_code_failures_have_none() -> None:
    plan = recovery_plan(failure("timeout", error_class=ErrorClass.TRANSIENT), 120, measured_s=121)
    assert plan is not None and "raise --timeout above 120 s" in plan.chosen.action
    assert "it ran 121.0 s before it was stopped" in plan.chosen.action
    assert any("narrow the check" in s.action for s in plan.alternatives)
    assert recovery_plan(failure("assertion", error_class=ErrorClass.FIXABLE), 600) is None


@pytest.mark.parametrize(
    ("check", "output", "program"),
    [
        ("python -m pytest -q", "/usr/bin/python3: No module named pytest", "python module pytest"),
        ("python3 -m pytest.main", "No module named pytest", "python module pytest"),
        ("python -m pytest -q", "E   ModuleNotFoundError: No module named 'requests'", None),
        ("pytest -q", "sh: 1: pytest: not found", "pytest"),
        ("python -m pytest -q", "1 failed in 0.1s", None),
    ],
)
def test_the_check_program_is_missing_only_when_it_is_the_checks_own(
    check: str, output: str, program: str | None
) -> None:
    assert check_program_missing(check, output) == program


@pytest.mark.parametrize(
    ("counts", "since", "want"),
    [
        ([1, 3, 64], 0, True),  # two attempts in a row worse than the start
        ([1, 3], 0, False),
        ([5, 3, 4], 0, False),  # 3 improved on 5: only one attempt is worse than the best
        ([5, 6, 2], 0, False),  # the last one improved
        ([1, 3, 64, 103], 3, False),  # restored after attempt 2: one attempt since
        ([1, 3, 64, 103, 115], 3, True),  # second divergence
        ([None, 3, 4], 0, False),  # nothing known before them
        ([2, None, 9], 0, False),
    ],
)
def test_divergence(counts: list[int | None], since: int, want: bool) -> None:
    assert diverged(counts, since) is want


def test_best_index_prefers_fewest_then_earliest() -> None:
    assert best_index([3, 1, 1, 5]) == 1
    assert best_index([None, None]) is None


def test_the_event_log_parses_line_by_line(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "state" / "log.jsonl", "run-1", clock=Deadline.start(None))
    log.emit("check", 0, exit_code=1, signature="abc")
    log.emit("fix", 1, files=["a.py"], path=Path("x"))
    events = read_events(tmp_path / "state" / "log.jsonl")
    assert [e["event"] for e in events] == ["check", "fix"]
    for event in events:
        assert {"ts", "run_id", "attempt", "event", "elapsed_ms"} <= set(event)
        assert event["run_id"] == "run-1" and event["elapsed_ms"] >= 0
    assert events[1]["path"] == "x"
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\nnope\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        read_events(tmp_path / "bad.jsonl")


def test_diagnosis_model_bounds_its_lines() -> None:
    long = Diagnosis.model_validate({**GOOD, "evidence": ["x" * 2000]})
    assert len(long.evidence[0]) == 500
