"""The run's state: `.fixbot/state.json`, a versioned model written atomically after every step.

A run killed at any point (even SIGKILL) resumes from the last saved step and loses no attempt.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from fixbot import __version__
from fixbot.errors import ConfigError
from fixbot.models import Attempt, BreakerState, Finding, Outcome

STATE_VERSION = 1
STATE_FILE = "state.json"


class RunState(BaseModel):
    """Everything a run has done so far.

    `started_at` is a Unix time in seconds; `elapsed_s` accumulates wall time across resumed
    processes; `tokens` and `cost_usd` total the model usage (cost None where a price is unknown).
    """

    version: int = STATE_VERSION
    fixbot_version: str = __version__
    settings_digest: str
    check: str
    start_sha: str
    branch: str | None = None
    started_at: float = Field(default_factory=time.time)
    elapsed_s: float = 0.0
    attempts: list[Attempt] = Field(default_factory=list)
    breaker: BreakerState = BreakerState.CLOSED
    breaker_reason: str | None = None
    oscillated: list[int] = Field(default_factory=list)  # attempt numbers that oscillated
    review_rounds: int = 0
    review_done: bool = False
    threads_done: bool = False
    pending_findings: list[Finding] = Field(default_factory=list)  # blocker/major, being fixed
    minor_findings: list[Finding] = Field(default_factory=list)  # reported, not fixed
    tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    analysis: str | None = None
    notes: list[str] = Field(default_factory=list)
    best_snapshot: str | None = None
    outcome: Outcome | None = None

    @property
    def fix_attempts(self) -> list[Attempt]:
        """Attempts that ran a fixer (number >= 1)."""
        return [a for a in self.attempts if a.number >= 1]


def state_path(state_dir: Path) -> Path:
    """Where the state file lives inside `state_dir`."""
    return state_dir / STATE_FILE


def save_state(state_dir: Path, state: RunState) -> None:
    """Write the state atomically: a temp file in the same folder, fsync, then rename."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".json", dir=state_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(state.model_dump_json(indent=2))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, state_path(state_dir))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_state(state_dir: Path) -> RunState | None:
    """Read the state file, or None when there is none.

    Raises `ConfigError` when the file was written by a newer fixbot or cannot be read, saying
    how to proceed (upgrade, or start over with `--fresh`).
    """
    path = state_path(state_dir)
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = f"{path}: unreadable state ({exc}); run with --fresh to start over"
        raise ConfigError([problem]) from exc
    version = raw.get("version") if isinstance(raw, dict) else None
    if isinstance(version, int) and version > STATE_VERSION:
        raise ConfigError(
            [
                f"{path} was written by a newer fixbot (state version {version}, this fixbot "
                f"{__version__} reads up to {STATE_VERSION}): upgrade fixbot, or run with --fresh"
            ]
        )
    try:
        return RunState.model_validate(raw)
    except ValidationError as exc:
        problem = f"{path}: invalid state ({exc.error_count()} errors); run with --fresh"
        raise ConfigError([problem]) from exc
