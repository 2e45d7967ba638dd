"""What every event kind is (`EventKind`): how its payload is read, the decision it comes to,
and every rule that differs between events; and the decision most events share (`fix`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fixbot.core.values import OnSuccess
from fixbot.github.events.data import Event
from fixbot.github.events.decision import Intent, IntentKind, Options, refuse
from fixbot.github.events.gates import Verdict, gate_event

Payload = Mapping[str, Any]


def unchanged(event: Event, _payload: Payload) -> Event:
    """The `parse` of an event whose payload adds nothing to the common fields."""
    return event


def never(_event: Event) -> bool:
    """The `own_commit` of an event that never runs on fixbot's own head commit."""
    return False


def push_to_pull_request(event: Event) -> OnSuccess:
    """The `publish` most events share: push to a pull request's head branch, else open a pull
    request into the branch."""
    return OnSuccess.PUSH if event.pull_request else OnSuccess.PULL_REQUEST


def fix(kind: EventKind, event: Event, options: Options) -> Intent:
    """Fix the check on the event's branch, when the gates allow it."""
    verdict = kind.gate(event, options)
    if not verdict.allowed:
        return refuse(verdict.reason)
    return Intent(kind=IntentKind.FIX, patch_only=verdict.patch_only)


@dataclass(frozen=True)
class EventKind:
    """One workflow event, and every rule that is the event's own.

    `name`: `GITHUB_EVENT_NAME`. `parse`: the `Event` with the common fields (repository,
    `ref`'s branch, `after` or `GITHUB_SHA`) and the webhook payload -> the `Event` with this
    event's own fields; a missing field raises `KeyError`, a mis-shaped one `TypeError` or
    `ValueError` (reported as a `ConfigError` by `event.parse_event`). `decide`: this kind, the
    event and the workflow's `Options` -> its `Intent` (`fix` gates and fixes).

    The rules: `threads`: the event is about a pull request whose review threads the run may
    use. `history`: the pull request's run history (the status comment's memory, with
    `max-runs-per-day`) is kept. `asked`: a person asked for the run, so it runs even when the
    head commit is fixbot's own; `own_commit`: the event -> whether it may run on fixbot's own
    head commit all the same (a failed CI run of a pull request, bounded by
    `max-fixes-per-pr`). `fork_safe`: GitHub gives a fork's run of this event no secret and a
    read-only token ("With the exception of GITHUB_TOKEN, secrets are not passed to the runner
    when a workflow is triggered from a forked repository", docs.github.com/en/actions/
    reference/workflows-and-actions/events-that-trigger-workflows), so a fork's code may run
    in it (`allow-forks`); every other event runs with this repository's token and secrets.
    `failed_run`: the event reports another workflow's run, whose failed jobs' logs are the
    first evidence (`fixbot.github.cifail`: the moved-head gate, the logs, the flake record).
    `publish`: the event -> what `on-success: auto` does with a verified fix.
    """

    name: str
    parse: Callable[[Event, Payload], Event] = unchanged
    decide: Callable[[EventKind, Event, Options], Intent] = fix
    threads: bool = False
    history: bool = False
    asked: bool = False
    own_commit: Callable[[Event], bool] = never
    fork_safe: bool = False
    failed_run: bool = False
    publish: Callable[[Event], OnSuccess] = push_to_pull_request

    def gate(self, event: Event, options: Options) -> Verdict:
        """The gates every event passes (`gates.gate_event`), with this kind's fork rule."""
        return gate_event(event, options.allow_forks, fork_safe=self.fork_safe)

    def intent(self, event: Event, options: Options) -> Intent:
        """The intent of `event`, a payload of this kind."""
        return self.decide(self, event, options)

    def may_follow_own_commit(self, event: Event) -> bool:
        """True when a run for `event` may start on fixbot's own head commit (see `asked` and
        `own_commit`); fixbot's own push must not start another run."""
        return self.asked or self.own_commit(event)
