"""Progress output: live rich status in a terminal, plain lines when `CI` is set, and
`::group::` blocks when `GITHUB_ACTIONS` is set (GitHub's workflow commands:
https://docs.github.com/actions/reference/workflow-commands-for-github-actions#grouping-log-lines).

Progress goes to stderr so `fixbot run --json` keeps stdout for the JSON outcome. Lines name
files and quote the model, so the plain styles print them through `workflow.plain_line`: a
file named `a.py\n::add-mask::x` never becomes a workflow command in a GitHub Actions log.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from fixbot.core.models import Heartbeat
from fixbot.ui import workflow

if TYPE_CHECKING:
    from rich.status import Status
    from rich.text import Text

    from fixbot.core.models import FixResult


# Seconds of silence after which plain output says the step is still running (a CI log that
# shows nothing for minutes reads as a hang).
HEARTBEAT_S = 30.0


def clock(seconds: float) -> str:
    """A moment of the run as the time since its start, `at m:ss` (`at h:mm:ss` past an hour):
    one notation for moments, so they never read as durations, which are `12.3 s`."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"at {hours}:{minutes:02d}:{secs:02d}" if hours else f"at {minutes}:{secs:02d}"


def attempt_label(attempt: int, max_attempts: int | None = None) -> str:
    """`initial check` for attempt 0, else `attempt n` or `attempt n/m`."""
    if attempt == 0:
        return "initial check"
    return f"attempt {attempt}" + (f"/{max_attempts}" if max_attempts else "")


def fix_line(result: FixResult) -> str:
    """The progress line for a fixer's result: the files it changed, `changed nothing` (with
    how many fix commands failed; `problem_lines` shows them), or `no reply from the model`
    when a model fixer never got an answer (an error, or 0 tokens)."""
    if result.files_changed:
        return f"  {result.fixer} changed {', '.join(result.files_changed)}"
    if result.fixer.startswith("model") and (result.error or not result.tokens):
        why = f": {result.error.splitlines()[0]}" if result.error else ""
        return f"  {result.fixer}: no reply from the model{why}"
    if result.problems:
        failed = len(result.problems)
        return f"  {result.fixer} changed nothing ({failed} command{'s' * (failed != 1)} failed)"
    return f"  {result.fixer} changed nothing"


def problem_lines(result: FixResult) -> list[str]:
    """One progress line per fix command that failed (`FixResult.problems`: its exit code and
    first output lines), so a crashing command is not taken for one that found nothing."""
    return [f"    {problem}" for problem in result.problems]


class Progress:
    """Plain progress lines: `[attempt 2/5] run the check, at 0:12`, one line a step or event;
    after `heartbeat_s` seconds without a line during a step, `  still running: ...` (None: no
    heartbeat)."""

    def __init__(self, stream: TextIO | None = None, heartbeat_s: float | None = HEARTBEAT_S):
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.heartbeat_s = heartbeat_s
        self._step = ""
        self._last = self.started
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def elapsed(self) -> float:
        """Seconds since this progress was created."""
        return time.monotonic() - self.started

    def phase(self, attempt: int, max_attempts: int, text: str) -> None:
        """Announce a phase of an attempt (0 is the initial check), with the moment it starts."""
        label = attempt_label(attempt, max_attempts)
        self._step = f"{label}: {text}"
        self.line(f"[{label}] {text}, {clock(self.elapsed())}")
        self._keep_ticking()

    def event(self, text: str) -> None:
        """Show something that happened inside a step (a retry, a fallback) as it happens."""
        self.line(f"  {text}")

    def line(self, text: str) -> None:
        """Print one line (line breaks inside `text` shown as `\\n`, no workflow command)."""
        with self._lock:
            print(workflow.plain_line(text), file=self.stream, flush=True)
            self._last = time.monotonic()

    def _keep_ticking(self) -> None:
        if self.heartbeat_s is None or self._ticker is not None:
            return
        self._ticker = threading.Thread(target=self._tick, name="fixbot-heartbeat", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        """Every `heartbeat_s` of silence, one line naming the step still running."""
        assert self.heartbeat_s is not None
        while not self._stop.wait(self.heartbeat_s):
            if time.monotonic() - self._last < self.heartbeat_s:
                continue
            try:
                self.line(f"  still running: {self._step}, {clock(self.elapsed())}")
            except (ValueError, OSError):  # the stream was closed under us: nobody reads on
                return

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        """A titled block (plain: just the title)."""
        self.line(title)
        yield

    def close(self) -> None:
        """Stop the heartbeat (and, in a terminal, the live display)."""
        self._stop.set()


class GitHubProgress(Progress):
    """Plain lines inside collapsible `::group::` blocks in a GitHub Actions log."""

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        """Wrap the block in `::group::title` / `::endgroup::` (the title escaped)."""
        workflow.group(title, self.stream)
        self.stream.flush()
        try:
            yield
        finally:
            workflow.endgroup(self.stream)
            self.stream.flush()


class _Clock:
    """The live status text; rendered on each of rich's refreshes (12.5 a second), so the
    elapsed seconds keep ticking during a long model call or check."""

    def __init__(self, progress: Progress, label: str, text: str) -> None:
        self.progress, self.label, self.text = progress, label, text

    def __rich__(self) -> Text:
        from rich.text import Text

        out = Text()
        out.append(self.label, style="bold")
        out.append(f" {self.text} ")
        out.append(clock(self.progress.elapsed()), style="dim")
        return out


class RichProgress(Progress):
    """A live status line (spinner, attempt n/m, phase, elapsed) for an interactive terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__(stream)
        self._status: Status | None = None
        self._console: Any = None

    def _ensure(self) -> Status:
        if self._status is None:
            from rich.console import Console

            self._console = Console(file=self.stream)
            self._status = self._console.status("starting")
            self._status.start()
        return self._status

    def phase(self, attempt: int, max_attempts: int, text: str) -> None:
        """Update the live status; its clock ticks until the next phase."""
        self._ensure().update(_Clock(self, attempt_label(attempt, max_attempts), text))

    def event(self, text: str) -> None:
        """Print an event above the live status; a `Heartbeat` is left to its ticking clock."""
        if not isinstance(text, Heartbeat):
            super().event(text)

    def line(self, text: str) -> None:
        """Print a line above the live status."""
        self._ensure()
        self._console.print(text, markup=False, highlight=False)

    def close(self) -> None:
        """Stop the live status."""
        super().close()
        if self._status is not None:
            self._status.stop()


def make_progress(env: Mapping[str, str], stream: TextIO | None = None) -> Progress:
    """Choose the progress style from the environment and whether stderr is a terminal."""
    stream = stream or sys.stderr
    if _in_actions(env):
        return GitHubProgress(stream)
    if env.get("CI") or not stream.isatty():
        return Progress(stream)
    return RichProgress(stream)


def _in_actions(env: Mapping[str, str]) -> bool:
    """`GitHubEnv.read(env).actions`, with `fixbot.core.github_env` (pydantic-settings, asyncio)
    imported only where a `GITHUB_ACTIONS` variable is set: a run on a workstation spares it."""
    if not any(name.upper() == "GITHUB_ACTIONS" for name in env):
        return False
    from fixbot.core.github_env import GitHubEnv

    return GitHubEnv.read(env).actions
