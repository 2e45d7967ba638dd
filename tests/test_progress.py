"""Progress output styles: rich in a terminal, plain lines under CI, ::group:: in GitHub Actions."""

from __future__ import annotations

import io

from fixbot.progress import GitHubProgress, Progress, RichProgress, make_progress


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


def test_github_groups_wrap_the_block_and_plain_lines_name_the_attempt() -> None:
    out = io.StringIO()
    progress = GitHubProgress(out)
    with progress.group("fixbot: attempt 2 (fix)"):
        progress.phase(2, 5, "run the check")
    lines = out.getvalue().splitlines()
    assert lines[0] == "::group::fixbot: attempt 2 (fix)"
    assert lines[1].startswith("[attempt 2/5] run the check (")
    assert lines[-1] == "::endgroup::"


def test_rich_progress_prints_history_lines_to_its_stream() -> None:
    out = Terminal()
    progress = RichProgress(out)
    progress.phase(0, 5, "run the check")
    progress.line("  check failed: exit 1")
    progress.close()
    assert "check failed: exit 1" in out.getvalue()
