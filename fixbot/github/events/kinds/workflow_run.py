"""`workflow_run`: another workflow's run ended; fix its head when it failed (the failed
jobs' logs are the first evidence, `fixbot.github.cifail`)."""

from __future__ import annotations

from fixbot.github.events.data import Event, pull_request_of
from fixbot.github.events.decision import Intent, Options, refuse
from fixbot.github.events.kinds.base import EventKind, Payload, fix

FAILED_CONCLUSIONS = ("failure", "timed_out")


def parse(event: Event, payload: Payload) -> Event:
    """The run's head branch, sha and repository, its id, attempt and actor, and its pull
    request (the first one listed, when the head is in this repository)."""
    run, repository = payload["workflow_run"], event.repository
    head_repo = (run.get("head_repository") or {}).get("full_name") or repository
    pulls = [pull_request_of(raw, repository) for raw in run.get("pull_requests") or []]
    return event.model_copy(
        update={
            "branch": run["head_branch"],
            "sha": run["head_sha"],
            "head_repo": head_repo,
            "run_conclusion": run.get("conclusion"),
            "run_id": run.get("id"),
            "run_attempt": run.get("run_attempt"),
            "run_actor": _actor(run),
            "run_workflow": _workflow(run),
            "pull_request": pulls[0] if pulls and head_repo == repository else None,
        }
    )


def _actor(run: Payload) -> str | None:
    """The login of who started the run (its re-run's trigger first)."""
    return (run.get("triggering_actor") or run.get("actor") or {}).get("login")


def _workflow(run: Payload) -> str | None:
    """The workflow file's name (`ci.yml`) of the run's `path` (`.github/workflows/ci.yml@ref`)."""
    return str(run.get("path") or "").split("@")[0].rsplit("/", 1)[-1] or None


def decide(kind: EventKind, event: Event, options: Options) -> Intent:
    """Fix a failed (or timed out) run's head; any other conclusion has nothing to fix."""
    if event.run_conclusion not in FAILED_CONCLUSIONS:
        return refuse(
            f"the triggering run ended `{event.run_conclusion}`, not failed: nothing to fix"
        )
    return fix(kind, event, options)


def own_commit(event: Event) -> bool:
    """A failed CI run of a pull request may run on fixbot's own commit (often the run fixbot
    dispatched): the pull request's fix budget (`max-fixes-per-pr`, `cifail.prepare`) bounds
    the loop."""
    return event.pull_request is not None


KIND = EventKind(
    name="workflow_run",
    parse=parse,
    decide=decide,
    history=True,
    own_commit=own_commit,
    failed_run=True,
)
