"""What every phase of a run needs of the run: `RunParts`, the state and the I/O each step
uses. `fixbot.run.executor.Run` has them; the phase functions (`fixbot.run.phases.checks`,
`fixing`, `ending`) take it as `RunParts`, so no phase imports the executor that calls it, nor
another phase: a call across phases (`verify`, `context`) goes through the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from fixbot.core.budget import Deadline
from fixbot.core.models import Attempt, FixContext
from fixbot.core.settings import Settings
from fixbot.logs.joblog import FirstFailure
from fixbot.policy.state import RunState
from fixbot.run.agents import Agents
from fixbot.run.eventlog import EventLog
from fixbot.run.request import RunRequest
from fixbot.run.verify import Checker
from fixbot.security.redact import Redactor
from fixbot.ui.progress import Progress


class RunParts(Protocol):
    """One run of the loop over a repository, as the phases see it (`fixbot.run.executor.Run`
    builds and owns it)."""

    settings: Settings
    repo: Path
    state: RunState
    request: RunRequest  # what the run is asked beyond its settings, as the entry point gave it
    first: FirstFailure | None  # the request's failure log when of this commit: no initial check
    agents: Agents
    progress: Progress
    checker: Checker
    redactor: Redactor
    state_dir: Path
    events: EventLog
    deadline: Deadline  # the run's one budget (its launcher's): `elapsed()` is the run's wall time

    def save(self) -> None:
        """Account elapsed time and write the state atomically."""
        ...

    def verify(self, attempt: Attempt, rerun: bool) -> None:
        """Run the check for `attempt` and record the verdict."""
        ...

    def context(self, attempt: Attempt, **extra: Any) -> FixContext:
        """What an agent is told about `attempt` (`extra` overrides fields)."""
        ...
