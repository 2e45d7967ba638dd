"""Progress that tells the truth: a clock that ticks while waiting, retries and
fallbacks shown as they happen, "no reply from the model" when it never answered, and plain output
of one line a step."""

from __future__ import annotations

import io
import re
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

from fixbot.core.models import FixResult
from fixbot.run import engine
from fixbot.ui.progress import Progress, RichProgress, _Clock, clock, fix_line
from tests.fakes.agent_repo import make_repo, model_env, model_settings
from tests.fakes.model_server import FakeModelServer, error, model_server

__all__ = ["model_env", "model_server"]  # pytest fixtures used by name below


def render(clock: _Clock) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(clock)
    return out.getvalue().strip()


def test_the_live_status_clock_ticks_without_a_new_phase() -> None:
    progress = RichProgress(io.StringIO())
    clock = _Clock(progress, "attempt 1/5", "fix (model)")
    first = render(clock)
    progress.started -= 13.0  # 13 s pass inside one model call, no phase change
    later = render(clock)
    assert first.startswith("attempt 1/5 fix (model) at 0:")
    seconds = [int(text.rsplit(":", 1)[-1]) for text in (first, later)]
    assert seconds[1] - seconds[0] >= 13


def test_plain_output_is_one_line_a_step() -> None:
    out = io.StringIO()
    progress = Progress(out, heartbeat_s=None)
    progress.phase(1, 5, "fix (model)")
    progress.event("openai/x: retrying in 4 s (429 rate limited)")
    progress.event("a reason\nover two lines")
    progress.line(fix_line(FixResult(fixer="model:openai/x", files_changed=["a.py"], summary="s")))
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[1] == "  openai/x: retrying in 4 s (429 rate limited)"
    assert lines[3] == "  model:openai/x changed a.py"


def test_fix_line_says_no_reply_when_the_model_never_answered() -> None:
    def result(**kw: object) -> FixResult:
        return FixResult(fixer="model:openai/x", summary="s", **kw)  # type: ignore[arg-type]

    assert fix_line(result(error="every model failed (openai/x): timed out\nmore")) == (
        "  model:openai/x: no reply from the model: every model failed (openai/x): timed out"
    )
    assert fix_line(result(tokens=0)) == "  model:openai/x: no reply from the model"
    assert fix_line(result(tokens=900)) == "  model:openai/x changed nothing"
    commands = FixResult(fixer="commands", summary="s")
    assert fix_line(commands) == "  commands changed nothing"


@pytest.mark.slow
def test_a_run_shows_retries_as_they_happen_and_no_reply_at_the_end(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(
        error(429, "Rate limit reached", {"Retry-After": "0"}), error(400, "bad request")
    )
    out = io.StringIO()
    settings = model_settings(
        model_server.url, check=f"{sys.executable} -m pytest -q -p no:cacheprovider"
    )
    settings = settings.model_copy(update={"max_attempts": 1, "review": False})
    engine.run(settings, repo, env=model_env, progress=Progress(out))
    lines = out.getvalue().splitlines()
    retry = lines.index("  openai/fake: retrying in 0 s (429 rate limited)")
    no_reply = next(i for i, line in enumerate(lines) if "no reply from the model" in line)
    assert retry < no_reply
    assert not any("changed nothing" in line for line in lines)


def test_plain_output_says_a_long_step_is_still_running() -> None:
    """A CI log that shows nothing during a 100 s check reads as a hang: after a silence of
    `heartbeat_s`, plain output names the step still running and the moment. Bounded by polls of
    the output, not by a wall-clock limit."""
    out = io.StringIO()
    progress = Progress(out, heartbeat_s=0.01)
    progress.phase(0, 5, "run the check")
    for _ in range(100_000):
        if "still running" in out.getvalue():
            break
        threading.Event().wait(0.001)
    progress.close()
    beats = [line for line in out.getvalue().splitlines() if "still running" in line]
    assert beats and re.fullmatch(
        r"  still running: initial check: run the check, at 0:\d\d", beats[0]
    )
    assert out.getvalue().splitlines()[0] == "[initial check] run the check, at 0:00"


def test_moments_and_durations_have_one_notation_each() -> None:
    assert [clock(s) for s in (0, 59.9, 61, 3725)] == [
        "at 0:00",
        "at 0:59",
        "at 1:01",
        "at 1:02:05",
    ]
