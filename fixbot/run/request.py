"""What one run is asked to do beyond its settings: `RunRequest`, the data the entry points
(`fixbot run`, `--pr`, `--from-run`, the Action, `/fixbot retry`) hand the engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fixbot.core.models import ReviewThread
from fixbot.logs.joblog import FirstFailure


@dataclass(frozen=True)
class RunRequest:
    """A run's request.

    `hint`: words for the model (untrusted text: the `hint` setting, a `/fixbot retry` comment's
    argument). `threads`: open pull request review threads (untrusted text): once the check is
    green, one attempt addresses them. `tried`: one-line accounts of earlier runs' attempts (a
    `/fixbot retry`), shown to the model as "already tried, do not repeat". `first_failure`: a
    failure log from elsewhere (a failed CI run, `--from-log`): the first failing run, so the
    initial check is skipped; every fix is still verified. `clone_ready`: the entry point (the
    Action) already made fixbot's clone and checked the branch to fix out in it
    (`fixbot.github.action`): the run keeps it, and the workspace's files are only the
    commands' copy (their differences are not the user's work to adopt). `in_action`: the
    Action asked (`fixbot action`): recovery plans name its inputs (`the setup-command input`)
    instead of the CLI's flags; a `fixbot run` in a workflow step is still the CLI's.
    """

    hint: str | None = None
    threads: Sequence[ReviewThread] = ()
    tried: Sequence[str] = ()
    first_failure: FirstFailure | None = None
    clone_ready: bool = False
    in_action: bool = False
    check_origin: str = ""  # where an inferred check came from (said in the commit)


PLAIN = RunRequest()  # fix the check, nothing more asked
