"""The report's suggestions: offered only when they can help, and each runs as pasted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.calls import CallEnd, CallPurpose, ModelCall
from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, BreakerState, Outcome, OutcomeKind, Phase
from fixbot.core.settings import Settings
from fixbot.policy.state import RunState
from fixbot.run.report import OnGitHub, render_report

SETTINGS = Settings(
    check="pytest -q 'tests/test a.py'",
    model="openai/gpt-4o",
    api_base="http://127.0.0.1:8080/v1",
    max_attempts=3,
)


def failed(number: int, signature: str, klass: ErrorClass, files: list[str]) -> Attempt:
    phase = Phase.CHECK if number == 0 else Phase.FIX
    return Attempt(
        number=number,
        phase=phase,
        done=True,
        passed=False,
        exit_code=1,
        signature=signature,
        error_class=klass,
        category="assertion" if klass is ErrorClass.FIXABLE else "command_not_found",
        files_changed=files,
        excerpt="E   assert 1 == 2",
    )


def escalated(*attempts: Attempt) -> RunState:
    state = RunState(settings_digest="d", check=SETTINGS.check, start_sha="0" * 40)
    state.attempts = list(attempts)
    fixes = sum(a.is_fix for a in attempts)
    state.outcome = Outcome(outcome=OutcomeKind.ESCALATED, reason="stopped", attempts=fixes)
    return state


F, P = ErrorClass.FIXABLE, ErrorClass.PERMANENT
SPENT = escalated(
    failed(0, "a", F, []), *(failed(n, s, F, ["m.py"]) for n, s in [(1, "b"), (2, "c"), (3, "d")])
)
PERMANENT = escalated(failed(0, "a", P, []))
REPEATED = escalated(*(failed(n, "same", F, ["m.py"] if n else []) for n in range(4)))
UNCHANGED = escalated(failed(0, "a", F, []), failed(1, "b", F, []), failed(2, "c", F, []))


def suggestions(report: str) -> list[str]:
    """The `fixbot ...` commands the report suggests."""
    return re.findall(r"`(fixbot [^`]+)`", report)


def test_more_attempts_are_offered_only_when_they_can_help() -> None:
    assert "Retry with more attempts" in render_report(SPENT, SETTINGS)
    for state in (PERMANENT, REPEATED, UNCHANGED):
        assert "Retry with more attempts" not in render_report(state, SETTINGS)
    assert "Give fixbot a hint" not in render_report(PERMANENT, SETTINGS)  # no code can fix it
    assert "Give fixbot a hint" in render_report(REPEATED, SETTINGS)


def test_the_repeated_error_is_pointed_at_where_it_is() -> None:
    report = render_report(REPEATED, SETTINGS)
    assert "## The repeated error" in report
    assert report.index("## The repeated error") < report.index("the repeated error above")
    assert "below" not in report.split("## Suggested next steps")[1]


@pytest.mark.slow
@pytest.mark.parametrize("api_base", ["http://127.0.0.1:8080/v1", "https://u:pw@llm.example/v1"])
def test_each_suggested_command_runs_as_pasted(tmp_path: Path, api_base: str) -> None:
    """Pasted into a shell with FIXBOT_API_BASE unset (or exported, when the report asks for
    it), every suggested command parses; a shim `fixbot` parses its words with fixbot's own
    parser and prints the settings they give."""
    settings = SETTINGS.model_copy(update={"api_base": api_base})
    report = render_report(SPENT, settings)
    commands = suggestions(report)
    assert len(commands) == 2, report
    shim = tmp_path / "fixbot"
    shim.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from fixbot.cli import build_parser, flags_from\n"
        "from fixbot.core.config import load_settings\n"
        "import os, pathlib\n"
        "args = build_parser().parse_args(sys.argv[1:])\n"
        "env = {k: v for k, v in os.environ.items() if k.startswith('FIXBOT_')}\n"
        "s = load_settings(pathlib.Path('.'), flags_from(args), env)\n"
        "print(s.api_base, s.max_attempts, s.check, sep='|')\n"
    )
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIXBOT_")}
    env["PATH"] = f"{tmp_path}{os.pathsep}{env['PATH']}"
    if "exports FIXBOT_API_BASE" in report:
        env["FIXBOT_API_BASE"] = api_base
    else:
        assert "u:pw" not in report
    for command in commands:
        pasted = subprocess.run(
            command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
        )
        assert pasted.returncode == 0, (command, pasted.stderr)
        base, attempts, check = pasted.stdout.strip().split("|")
        assert (base, check) == (api_base, SETTINGS.check), command
        assert attempts == ("3" if "--hint" in command else "6"), command
    assert "u:pw" not in report


def test_model_text_is_labelled_unverified_and_an_empty_attempt_says_so() -> None:
    state = UNCHANGED.model_copy(deep=True)
    for attempt in state.attempts[1:]:
        attempt.fixer, attempt.summary = "model", "model edits"
    state.analysis = "The bug is in `import magic_numbers` (invented by a small model)."
    report = render_report(state, SETTINGS)
    assert "1. model edits: changed no file" in report
    assert "not verified by fixbot" in report.split("### What each attempt tried")[1]
    analysis = report.split("## Analysis")[1]
    assert analysis.index("unverified") < analysis.index("import magic_numbers")
    spent = render_report(SPENT, SETTINGS)
    assert "changed no file" not in spent  # attempts that edited m.py


def test_no_model_means_no_hint_and_no_talk_of_what_the_model_lacked() -> None:
    no_model = SETTINGS.model_copy(update={"model": None, "api_base": None})
    report = render_report(REPEATED, no_model)
    assert "Give fixbot a hint" not in report and "--hint" not in report
    assert "the model did not have" not in report and "no model was configured" in report
    assert "the model did not have" in render_report(REPEATED, SETTINGS)  # with a model


def test_a_tree_holding_the_best_attempt_makes_every_command_discard_it() -> None:
    """A new run refuses the dirty tree (exit 2) unless told to discard fixbot's leftovers."""
    kept = SPENT.model_copy(update={"kept": "attempt 3 (1 failing), the best attempt"})
    commands = suggestions(render_report(kept, SETTINGS))
    assert len(commands) == 2 and all("--discard" in c for c in commands), commands
    assert not any("--discard" in c for c in suggestions(render_report(SPENT, SETTINGS)))


@pytest.mark.parametrize("pull_request", [True, False])
def test_on_github_the_next_steps_are_comments_and_the_job_log(pull_request: bool) -> None:
    run_url = "https://github.com/o/r/actions/runs/77"
    kept = SPENT.model_copy(update={"kept": "attempt 3 (1 failing), the best attempt"})
    report = render_report(
        kept, SETTINGS, on_github=OnGitHub(run_url=run_url, pull_request=pull_request)
    )
    steps = report.split("## Suggested next steps")[1]
    assert suggestions(steps) == [] and "127.0.0.1" not in report  # no local command line
    assert f"[job log]({run_url})" in steps and ".fixbot/attempts/" not in report
    assert "The working directory holds" not in steps  # the runner's, not the reader's
    if pull_request:
        assert "comment `/fixbot retry <what to try>` on this pull request" in steps
    else:
        assert "/fixbot retry" not in steps and "set the workflow's `hint` input" in steps


LITELLM_ERROR = (
    "the fixer failed: every model failed (openai/x): litellm.APIConnectionError: "
    "OpenAIException - Connection error. " + "Received Model Group=openai/x " * 8
)


def test_the_header_says_the_reason_once_and_names_the_breaker_only_when_it_counted() -> None:
    stopped = escalated(failed(0, "a", F, []), failed(1, "b", F, ["m.py"]))
    stopped.outcome = Outcome(outcome=OutcomeKind.ESCALATED, reason=LITELLM_ERROR, attempts=1)
    stopped.breaker, stopped.breaker_reason = BreakerState.OPEN, LITELLM_ERROR
    header = render_report(stopped, SETTINGS).split("## ")[0]
    assert header.count("Connection error") == 1 and "Circuit breaker" not in header

    repeated = REPEATED.model_copy(deep=True)
    reason = "the same failure occurred 3 times in a row"
    repeated.outcome = Outcome(outcome=OutcomeKind.ESCALATED, reason=reason, attempts=3)
    repeated.breaker, repeated.breaker_reason = BreakerState.OPEN, reason
    header = render_report(repeated, SETTINGS).split("## ")[0]
    assert header.count(reason) == 1 and "- Circuit breaker: **OPEN**\n" in header


def test_each_model_call_shows_its_figures_and_how_it_ended() -> None:
    state = UNCHANGED.model_copy(deep=True)
    state.attempts[1].calls = [
        ModelCall(model="openai/small", tokens_in=4000, tokens_out=250, seconds=12.5, first_s=2.5),
        ModelCall(
            model="openai/small",
            tokens_in=4300,
            tokens_out=180,
            seconds=9.0,
            first_s=3.0,
            end=CallEnd.DEGENERATE,
            why="the reply repeated 'x | y' 12+ times",
        ),
    ]
    state.attempts[2].calls = [
        ModelCall(model="openai/small", seconds=60.0, end=CallEnd.TIMED_OUT, why="no reply"),
        ModelCall(model="openai/small", purpose=CallPurpose.DIAGNOSIS, tokens_out=90, seconds=3),
    ]
    table = render_report(state, SETTINGS).split("### Model calls")[1]
    assert "| 1 | 1 | fix | openai/small | 4000 | 250 | 12.5 (2.5) | 25.0 | finished |" in table
    assert "| 1 | 2 | fix | openai/small | 4300 | 180 | 9.0 (3.0) | 30.0 | degenerate: " in table
    assert "'x \\| y' 12+ times |" in table  # a | in the reason stays in its cell
    assert "| 2 | 1 | fix | openai/small | 0 | 0 | 60.0 | - | timed out: no reply |" in table
    assert "| 2 | 2 | diagnosis | openai/small | 0 | 90 | 3.0 | 30.0 | finished |" in table
    assert "### Model calls" not in render_report(SPENT, SETTINGS)  # no model calls recorded


def test_a_state_written_before_calls_were_recorded_still_loads() -> None:
    old = failed(1, "b", F, ["m.py"]).model_dump(mode="json")
    del old["calls"]
    assert Attempt.model_validate(old).calls == []
