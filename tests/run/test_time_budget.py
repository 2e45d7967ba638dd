"""The workflow's wall-time budget bounds every command a run starts and every model call, a
resumed run's earlier time included (one `fixbot.core.budget.Deadline` per run)."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from fixbot.core.budget import MIN_COMMAND_S, capped_timeout
from fixbot.core.config import load_settings
from fixbot.core.models import OutcomeKind
from fixbot.process import worlds
from fixbot.run import engine
from fixbot.run.store import prepare_state, save_state
from tests.fakes.agent_repo import make_repo as make_agent_repo
from tests.fakes.agent_repo import model_settings
from tests.fakes.model_server import InProcessModel, text
from tests.fakes.repo import make_repo


@pytest.mark.parametrize(
    ("timeout", "left", "want"),
    [
        (600.0, None, 600.0),  # no budget: the command's own timeout
        (600.0, 30.0, 30.0),  # the budget is shorter
        (10.0, 30.0, 10.0),  # the command's timeout is shorter
        (600.0, 0.2, MIN_COMMAND_S),  # nearly spent: still a moment to start and be killed
        (600.0, -5.0, MIN_COMMAND_S),  # spent
    ],
)
def test_a_commands_timeout_is_capped_by_the_time_left(
    timeout: float, left: float | None, want: float
) -> None:
    assert capped_timeout(timeout, left) == want


@pytest.mark.slow
def test_a_pull_requests_timeout_never_runs_a_check_past_the_workflows_budget(
    tmp_path: Path,
) -> None:
    """The pull request's `.fixbot.toml` sets `timeout = 600`; the workflow gives the run
    `max-duration: 4`. Without the cap the check sleeps its full 60 s."""
    repo = make_repo(
        tmp_path / "repo",
        {".fixbot.toml": "timeout = 600\n", "check.sh": "sleep 60\n"},
    )
    env = {"INPUT_CHECK-COMMAND": "sh check.sh", "INPUT_MAX-DURATION": "4"}
    env["INPUT_FIX-COMMANDS"] = "true"
    env["INPUT_RUN-AS"] = "self"
    settings = load_settings(repo, {}, env, action=True)
    assert (settings.timeout, settings.max_duration) == (600, 4)

    started = time.monotonic()
    outcome, state = engine.run(settings, repo, env={"PATH": "/usr/bin:/bin"})
    spent = time.monotonic() - started

    assert spent < 20, f"the run took {spent:.0f} s"
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert "time budget spent" in outcome.reason, outcome.reason
    assert "raise --max-duration" in outcome.reason  # the budget stopped it, not its timeout
    assert state.attempts[0].timed_out


@pytest.mark.slow
def test_a_resumed_runs_model_call_is_cut_by_what_is_left_of_its_budget(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    """A run killed after spending 50 s of its 60 s resumes: its model request gets at most
    the 10 s left, not the 30 s `request-timeout` a clock started by the resumed process would
    give it (the budget is the workflow's for the whole run)."""
    repo = make_agent_repo(tmp_path / "repo")
    script = 'import calc; assert calc.total([{"price": 2}]) == 2'
    check = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"  # `python` may not exist
    settings = model_settings(
        inprocess_model.url, check=check, max_duration=60, request_timeout=30, max_attempts=1
    )
    private = worlds.private_folder(repo, worlds.state_base(os.geteuid(), os.environ))
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):  # the run's clone and state, as the killed process left them
        fixbot, _ = engine.own_clone(settings, repo, private)
        unfinished = prepare_state(settings, fixbot)
    save_state(fixbot / settings.state_dir, unfinished.model_copy(update={"elapsed_s": 50.0}))
    inprocess_model.enqueue(text("I see no bug."), text("I see no bug."), text("[]"))

    _, state = engine.run(settings, repo, env={**model_env, "PATH": os.environ["PATH"]})

    assert state.run_id == unfinished.run_id and state.elapsed_s >= 50  # it resumed
    asked = [r["timeout"] for r in inprocess_model.requests]
    assert asked and all(0 < seconds <= 10 for seconds in asked), asked
