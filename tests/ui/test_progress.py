"""Progress output styles: rich in a terminal, plain lines under CI, ::group:: in GitHub Actions."""

from __future__ import annotations

import io
import re

import pytest

from fixbot.ui.progress import GitHubProgress, Progress, RichProgress, make_progress


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_style_follows_the_environment() -> None:
    assert (
        type(make_progress({"GITHUB_ACTIONS": "true", "CI": "true"}, Terminal())) is GitHubProgress
    )
    assert type(make_progress({"CI": "1"}, Terminal())) is Progress
    assert type(make_progress({}, io.StringIO())) is Progress  # not a terminal
    assert type(make_progress({}, Terminal())) is RichProgress
    # the runner's variables are read as `GitHubEnv` reads them (any case), only when present
    assert type(make_progress({"github_actions": "true"}, Terminal())) is GitHubProgress
    assert type(make_progress({"GITHUB_ACTIONS": "false"}, Terminal())) is RichProgress


def test_github_groups_wrap_the_block_and_plain_lines_name_the_attempt() -> None:
    out = io.StringIO()
    progress = GitHubProgress(out)
    with progress.group("fixbot: attempt 2 (fix)"):
        progress.phase(2, 5, "run the check")
    lines = out.getvalue().splitlines()
    assert lines[0] == "::group::fixbot: attempt 2 (fix)"
    assert re.fullmatch(r"\[attempt 2/5\] run the check, at 0:0\d", lines[1])
    assert lines[-1] == "::endgroup::"


def test_rich_progress_prints_history_lines_to_its_stream() -> None:
    out = Terminal()
    progress = RichProgress(out)
    progress.phase(0, 5, "run the check")
    progress.line("  check failed: exit 1")
    progress.close()
    assert "check failed: exit 1" in out.getvalue()


COMMAND_LINE = re.compile(r"^\s*::")
EVIL_NAMES = [
    "x\n::add-mask::abc",
    "a.py\n::error::pwned",
    "b.py\r::warning::x",
    "c\u2028::debug::",
]


@pytest.mark.parametrize("style", [Progress, GitHubProgress])
def test_file_names_cannot_inject_workflow_commands(style: type[Progress]) -> None:
    out = io.StringIO()
    progress = style(out)
    with progress.group("fixbot: attempt 1 (fix)\n::error::title"):
        progress.line(f"  model changed {', '.join(EVIL_NAMES)}")
        progress.line("::stop-commands::abc")
    commands = [
        line for line in re.split(r"\r\n|\r|\n", out.getvalue()) if COMMAND_LINE.match(line)
    ]
    allowed = {"::group::fixbot: attempt 1 (fix)%0A::error::title", "::endgroup::"}
    assert set(commands) <= allowed
    assert "add-mask::abc" in out.getvalue()  # still visible to the reader, as text


def test_a_heartbeat_is_a_line_in_plain_output_and_left_to_the_live_clock() -> None:
    import io

    from fixbot.core.models import Heartbeat
    from fixbot.ui.progress import Progress, RichProgress

    plain = io.StringIO()
    Progress(plain).event(Heartbeat("waiting for openai/x at h: 30 s so far, at most 60 s"))
    assert "waiting for openai/x at h: 30 s so far" in plain.getvalue()
    live = io.StringIO()
    rich = RichProgress(live)
    rich.event(Heartbeat("waiting for openai/x at h: 30 s so far"))
    rich.event("retrying in 2 s")
    rich.close()
    assert "waiting for" not in live.getvalue() and "retrying in 2 s" in live.getvalue()
