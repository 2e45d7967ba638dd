"""The run's state as data: every attempt, set-up run, review and total so far (`RunState`).

Where a run goes next is a pure function of it (`fixbot.policy.rules.next_step`); saving and
loading it (`<state folder>/state.json`, atomically, after every step) is `fixbot.run.store`'s.
"""

from __future__ import annotations

import os
import time

from pydantic import BaseModel, Field

from fixbot import __version__
from fixbot.core.diagnosis import RecoveryPlan
from fixbot.core.models import Attempt, BreakerState, Finding, Outcome, Phase, ReviewRound
from fixbot.policy.manifests import SetupRun

STATE_VERSION = 2  # 2: the loop's position is derived (`fixbot.policy.rules`), no phase flags


def new_run_id() -> str:
    """A run id: UTC start time and 4 random hex digits, e.g. `20261123-142930-a1b2`."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(2).hex()


class RunState(BaseModel):
    """Everything a run has done so far; where it goes next is `policy.rules.next_step` of it.

    `started_at` is a Unix time in seconds; `elapsed_s` accumulates wall time across resumed
    processes; `tokens` and `cost_usd` total the model usage (cost None where a price is unknown).
    `reviews` are the self-reviews in order; `minor_findings` are reported, not fixed.
    `run_id` names the run in the event log (`log.jsonl`; a resumed run keeps it); `recovery` is
    the deterministic plan for a failure code cannot fix; `kept` says which tree an escalated
    run left in the working directory. `setups` are the runs of the set-up command in order
    (`fixbot.run.setup`).
    """

    version: int = STATE_VERSION
    fixbot_version: str = __version__
    run_id: str = Field(default_factory=new_run_id)  # names runs/<run_id>/ in the state folder
    settings_digest: str
    check: str
    start_sha: str
    branch: str | None = None
    started_at: float = Field(default_factory=time.time)
    elapsed_s: float = 0.0
    attempts: list[Attempt] = Field(default_factory=list)
    setups: list[SetupRun] = Field(default_factory=list)
    breaker: BreakerState = BreakerState.CLOSED
    breaker_reason: str | None = None
    reviews: list[ReviewRound] = Field(default_factory=list)
    minor_findings: list[Finding] = Field(default_factory=list)
    tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    analysis: str | None = None
    rechecked: bool = False  # a run from a failure log ran the check once before giving up
    recovery: RecoveryPlan | None = None
    notes: list[str] = Field(default_factory=list)
    best_snapshot: str | None = None
    kept: str | None = None
    outcome: Outcome | None = None

    def add_usage(self, tokens: int, cost_usd: float | None, known: bool) -> None:
        """Add model usage (tokens, USD; `known` False once a price is unknown) to the totals."""
        self.tokens += tokens
        self.cost_usd += cost_usd or 0.0
        self.cost_known = self.cost_known and known

    @property
    def fix_attempts(self) -> list[Attempt]:
        """The fix attempts made (`Attempt.is_fix`): what "attempts" counts everywhere."""
        return [a for a in self.attempts if a.is_fix]

    @property
    def review_rounds(self) -> int:
        """How many review fix attempts were made (bounded by `max_review_rounds`)."""
        return sum(1 for a in self.attempts if a.phase is Phase.REVIEW)
