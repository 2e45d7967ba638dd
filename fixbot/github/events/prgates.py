"""Gates on the pull request and the failed run, pure: the guardrails projects used to write by
hand around a coding agent on `workflow_run`.

Bots' pull requests, an opt-out label, an optional opt-in label, drafts, a head that moved past the
failed commit, and a per-pull-request budget counted from fixbot's own commit trailers (so it needs
no stored state). Each returns a `fixbot.github.events.gates.Verdict` with the message shown to the
user. `workflow_run` runs with the base repository's secrets, so refusing bots also keeps those
secrets away from dependency-update code.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from fixbot.github.events.gates import ALLOW, BOT_LOGIN, Verdict, refuse

COMMIT_PREFIX = "fixbot:"
ATTEMPT_TRAILER = "fixbot-attempt"  # written by the engine's commit message


class PullFacts(BaseModel):
    """The pull request as the gates see it: author login, label names, draft, head sha."""

    number: int
    author: str
    labels: list[str] = Field(default_factory=list)
    draft: bool = False
    head_sha: str | None = None


class Policy(BaseModel):
    """The gate settings (Action inputs; see `fixbot.core.settings.Settings`)."""

    allow_bots: bool = False
    skip_label: str | None = "no-fixbot"
    require_label: str | None = None
    allow_drafts: bool = False
    max_fixes_per_pr: int = 3


class FixCommit(BaseModel):
    """A commit fixbot made: its sha, subject and `fixbot-attempt:` trailer value."""

    sha: str
    subject: str
    attempt: str


def is_bot(login: str) -> bool:
    """True for a GitHub App's or a bot account's login (`dependabot[bot]`, `renovate[bot]`)."""
    return login.lower().endswith("[bot]")


def gate_author(pr: PullFacts, policy: Policy) -> Verdict:
    """Refuse fixbot's own pull requests always, and other bots' unless `allow-bots`."""
    if pr.author == BOT_LOGIN:
        return refuse(
            f"pull request #{pr.number} was opened by {pr.author}, fixbot's own identity: it "
            "does not fix its own pull requests (no self-triggered loops)"
        )
    if is_bot(pr.author) and not policy.allow_bots:
        return refuse(
            f"pull request #{pr.number} was opened by the bot {pr.author}: fixbot does not fix "
            "bots' pull requests (on `workflow_run` it holds the repository's secrets); set "
            "`allow-bots: true` to let it"
        )
    return ALLOW


def gate_actor(actor: str | None, policy: Policy) -> Verdict:
    """For a failed run with no pull request: refuse a run a bot started, unless `allow-bots`."""
    if actor and (actor == BOT_LOGIN or (is_bot(actor) and not policy.allow_bots)):
        return refuse(
            f"the failed run was started by the bot {actor}: fixbot does not fix bots' pushes "
            "(set `allow-bots: true` to let it; fixbot's own, never)"
        )
    return ALLOW


def gate_labels(pr: PullFacts, policy: Policy) -> Verdict:
    """Refuse the opt-out label; without the opt-in label (when one is required) refuse too."""
    names = {label.lower() for label in pr.labels}
    if policy.skip_label and policy.skip_label.lower() in names:
        return refuse(
            f"pull request #{pr.number} has the `{policy.skip_label}` label: fixbot leaves it "
            "alone (remove the label to let it fix the check)"
        )
    if policy.require_label and policy.require_label.lower() not in names:
        return refuse(
            f"pull request #{pr.number} lacks the `{policy.require_label}` label that "
            "`require-label` asks for: add the label to let fixbot fix it"
        )
    return ALLOW


def gate_draft(pr: PullFacts, policy: Policy) -> Verdict:
    """Refuse a draft unless `allow-drafts`, or the opt-in label is on it."""
    opted_in = bool(policy.require_label) and (policy.require_label or "").lower() in {
        label.lower() for label in pr.labels
    }
    if pr.draft and not (policy.allow_drafts or opted_in):
        return refuse(
            f"pull request #{pr.number} is a draft: fixbot waits until it is ready for review "
            "(or set `allow-drafts: true`)"
        )
    return ALLOW


def gate_pull_request(pr: PullFacts, policy: Policy) -> Verdict:
    """The author, label and draft gates in that order; the first refusal wins."""
    for gate in (gate_author, gate_labels, gate_draft):
        verdict = gate(pr, policy)
        if not verdict.allowed:
            return verdict
    return ALLOW


def gate_moved_head(failed_sha: str | None, current_sha: str | None) -> Verdict:
    """Refuse when the branch moved past the commit whose run failed."""
    if failed_sha and current_sha and failed_sha != current_sha:
        return refuse(
            f"a newer commit is being checked: the run failed on {failed_sha[:12]}, the branch "
            f"is now at {current_sha[:12]}; fixbot fixes only the latest commit"
        )
    return ALLOW


def fix_commits(log: list[tuple[str, str, str]]) -> list[FixCommit]:
    """fixbot's commits among (sha, subject, `fixbot-attempt` trailer value) triples: subject
    starting `fixbot:` and a non-empty trailer, in the given order."""
    return [
        FixCommit(sha=sha, subject=subject, attempt=trailer.strip())
        for sha, subject, trailer in log
        if subject.startswith(COMMIT_PREFIX) and trailer.strip()
    ]


def gate_budget(number: int, fixes: list[FixCommit], policy: Policy) -> Verdict:
    """Refuse once the pull request holds `max-fixes-per-pr` of fixbot's commits; the reason
    names them."""
    if len(fixes) < policy.max_fixes_per_pr:
        return ALLOW
    named = "; ".join(f"{c.sha[:12]} {c.subject} (attempt {c.attempt})" for c in fixes)
    return refuse(
        f"fixbot already made {len(fixes)} fix commits on pull request #{number}, the "
        f"`max-fixes-per-pr` limit ({policy.max_fixes_per_pr}): {named}. It makes no more; fix "
        "the check by hand, or raise `max-fixes-per-pr`"
    )
