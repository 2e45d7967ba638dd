"""The pull request gates, as tables: bots, labels, drafts, a moved head, the budget."""

from __future__ import annotations

import pytest

from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.events.prgates import (
    Policy,
    PullFacts,
    fix_commits,
    gate_actor,
    gate_budget,
    gate_moved_head,
    gate_pull_request,
    is_bot,
)


def pr(author: str = "octocat", labels: tuple[str, ...] = (), draft: bool = False) -> PullFacts:
    return PullFacts(number=5, author=author, labels=list(labels), draft=draft)


@pytest.mark.parametrize(
    ("facts", "policy", "refused_with"),
    [
        (pr(), Policy(), None),
        (pr("dependabot[bot]"), Policy(), "the bot dependabot[bot]"),
        (pr("renovate[bot]"), Policy(), "`allow-bots: true`"),
        (pr("my-app[bot]"), Policy(), "the bot my-app[bot]"),
        (pr("dependabot[bot]"), Policy(allow_bots=True), None),
        (pr(BOT_LOGIN), Policy(allow_bots=True), "fixbot's own identity"),
        (pr("robot"), Policy(), None),  # a login with "bot" in it is a person
        (pr(labels=("no-fixbot",)), Policy(), "has the `no-fixbot` label"),
        (pr(labels=("No-Fixbot",)), Policy(), "has the `no-fixbot` label"),
        (pr(labels=("hold",)), Policy(skip_label="hold"), "has the `hold` label"),
        (pr(labels=("no-fixbot",)), Policy(skip_label="hold"), None),
        (pr(), Policy(require_label="fixbot-ok"), "lacks the `fixbot-ok` label"),
        (pr(labels=("fixbot-ok",)), Policy(require_label="fixbot-ok"), None),
        (
            pr(labels=("fixbot-ok", "no-fixbot")),
            Policy(require_label="fixbot-ok"),
            "has the `no-fixbot` label",  # opting out beats opting in
        ),
        (pr(draft=True), Policy(), "is a draft"),
        (pr(draft=True), Policy(allow_drafts=True), None),
        (pr(labels=("fixbot-ok",), draft=True), Policy(require_label="fixbot-ok"), None),
        (pr("dependabot[bot]", draft=True), Policy(), "the bot"),  # the first refusal wins
    ],
)
def test_pull_request_gates(facts: PullFacts, policy: Policy, refused_with: str | None) -> None:
    verdict = gate_pull_request(facts, policy)
    assert verdict.allowed is (refused_with is None)
    if refused_with:
        assert refused_with in verdict.reason and "#5" in verdict.reason


def test_is_bot_is_the_login_suffix() -> None:
    assert is_bot("dependabot[bot]") and is_bot("Renovate[BOT]") and not is_bot("bot-user")


@pytest.mark.parametrize(
    ("failed", "current", "allowed"),
    [("a" * 40, "a" * 40, True), ("a" * 40, "b" * 40, False), ("a" * 40, None, True)],
)
def test_a_moved_head_is_refused(failed: str, current: str | None, allowed: bool) -> None:
    verdict = gate_moved_head(failed, current)
    assert verdict.allowed is allowed
    if not allowed:
        assert "a newer commit is being checked" in verdict.reason
        assert "aaaaaaaaaaaa" in verdict.reason and "bbbbbbbbbbbb" in verdict.reason


LOG = [
    ("1" * 40, "fixbot: add the missing import", "1"),
    ("2" * 40, "Merge branch 'main'", ""),
    ("3" * 40, "fixbot: mentioned in a subject only", ""),  # no trailer: not fixbot's
    ("4" * 40, "fix: fixbot-attempt: 2 in a human commit", "2"),  # not fixbot's subject
    ("5" * 40, "fixbot: handle None", "2"),
]


def test_fix_commits_are_the_ones_with_subject_and_trailer() -> None:
    found = fix_commits(LOG)
    assert [(c.sha[0], c.attempt) for c in found] == [("1", "1"), ("5", "2")]


@pytest.mark.parametrize(("limit", "allowed"), [(3, True), (2, False), (1, False)])
def test_the_budget_counts_fixbots_commits(limit: int, allowed: bool) -> None:
    verdict = gate_budget(5, fix_commits(LOG), Policy(max_fixes_per_pr=limit))
    assert verdict.allowed is allowed
    if not allowed:
        assert f"`max-fixes-per-pr` limit ({limit})" in verdict.reason
        assert "111111111111 fixbot: add the missing import (attempt 1)" in verdict.reason
        assert "555555555555 fixbot: handle None (attempt 2)" in verdict.reason


@pytest.mark.parametrize(
    ("actor", "policy", "allowed"),
    [
        (None, Policy(), True),
        ("octocat", Policy(), True),
        ("renovate[bot]", Policy(), False),
        ("renovate[bot]", Policy(allow_bots=True), True),
        (BOT_LOGIN, Policy(allow_bots=True), False),
    ],
)
def test_a_run_without_a_pull_request_is_gated_on_its_actor(
    actor: str | None, policy: Policy, allowed: bool
) -> None:
    verdict = gate_actor(actor, policy)
    assert verdict.allowed is allowed
    if not allowed:
        assert f"started by the bot {actor}" in verdict.reason
