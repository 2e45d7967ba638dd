"""Comment commands, the run history in the status comment, and the event-to-intent decision.
Pure: no I/O."""

from __future__ import annotations

import pytest

from fixbot.core.failure import ErrorClass
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import Attempt, Outcome, OutcomeKind
from fixbot.github.events.commands.comment import help_reply, parse
from fixbot.github.events.event import parse_event
from fixbot.github.events.intent import IntentKind, authorize, decide
from fixbot.github.events.permission import Level
from fixbot.github.events.threads import REPLY_MARKER
from fixbot.github.publish import memory, render
from tests.fakes.action_env import load_event as payload

ENV = GitHubEnv.read({"GITHUB_REPOSITORY": "Codertocat/Hello-World"})


@pytest.mark.parametrize(
    ("body", "kind", "hint"),
    [
        ("/fixbot retry", "retry", None),
        ("/fixbot retry use the new parser API", "retry", "use the new parser API"),
        ("/FIXBOT Retry  Keep the API  ", "retry", "Keep the API"),
        ("Thanks!\n\n  /fixbot status\n/fixbot retry", "status", None),
        ("/fixbot help", "help", None),
        ("/fixbot", "help", None),
    ],
)
def test_commands_and_hints(body: str, kind: str, hint: str | None) -> None:
    command = parse(body)
    assert command is not None and (command.kind, command.hint) == (kind, hint)


def test_an_unknown_subcommand_gets_the_help_text() -> None:
    command = parse("/fixbot frobnicate now")
    assert command is not None and command.kind == "help"
    assert command.unknown == "frobnicate"
    assert help_reply(command).startswith("fixbot does not know `frobnicate`")
    assert "`/fixbot retry [hint]`" in help_reply(command)


@pytest.mark.parametrize(
    "body",
    [
        "> /fixbot retry",
        "```\n/fixbot retry\n```",
        "~~~~\n/fixbot retry\n~~~\n/fixbot retry\n~~~~",  # a shorter fence does not close it
        "    /fixbot retry",  # indented code
        "please /fixbot retry",  # not at the start of a line
        "`/fixbot retry`",
        "/fixbotretry",
        "",
        # invisible once rendered: an HTML comment, as a block and inside a paragraph
        "<!--\n/fixbot retry\n-->",
        "Thanks <!-- a note\n/fixbot retry\n-->",
        "> I ran it.\n/fixbot retry",  # a block quote's lazy continuation line
        "> > nested\n  /fixbot retry",
        "`a code span\n/fixbot retry`",
        "<details>\n/fixbot retry\n</details>",  # an HTML block
    ],
)
def test_quoted_fenced_and_inline_commands_do_not_count(body: str) -> None:
    assert parse(body) is None


def test_a_command_after_a_closed_comment_quote_or_span_counts() -> None:
    for body in (
        "<!-- note -->\n/fixbot retry now",
        "> quoted\n\n/fixbot retry now",
        "`span\nends` here\n/fixbot retry now",
        "- a list item\n  /fixbot retry now",
        "/fixbot retry now\n===",  # a heading is visible text too
    ):
        command = parse(body)
        assert command is not None and command.hint == "now", body


def test_a_command_after_a_closed_fence_counts() -> None:
    command = parse("```py\n/fixbot help\n```\n/fixbot retry after the fence")
    assert command is not None and command.hint == "after the fence"


def attempt(n: int, sig: str, passed: bool, summary: str = "tried a thing") -> Attempt:
    return Attempt(
        number=n,
        done=True,
        passed=passed,
        signature=sig * 16,
        error_class=ErrorClass.FIXABLE,
        category="assertion",
        summary=f"{summary}\nmore notes",
        files_changed=["app.py"],
    )


def history(runs: int, attempts: int = 3) -> memory.History:
    found = memory.History()
    for r in range(runs):
        record = memory.RunRecord(run=str(100 + r), at=1_700_000_000 + r, kind="fix")
        tried = [
            Attempt(number=0),
            *(attempt(i, "ab", False, "x" * 150) for i in range(1, attempts + 1)),
        ]
        outcome = Outcome(outcome=OutcomeKind.ESCALATED, reason="stuck")
        found = memory.finish(found, record, outcome, tried)
    return found


def test_the_history_round_trips_through_the_comment_body() -> None:
    kept = history(2)
    data = render.Report(
        outcome=Outcome(outcome=OutcomeKind.FIXED, reason="ok"),
        links=render.Links(run_url="https://run"),
    )
    body = render.status_comment(data, memory.encode(kept))
    assert memory.decode(body) == kept
    assert "<!-- fixbot:memory" in body and body.startswith(render.STATUS_MARKER)
    first = kept.runs[0].attempts[0]
    assert (first.sig, first.cls, first.ok, first.files) == (
        "abababababab",
        "fixable/assertion",
        False,
        ["app.py"],
    )
    assert first.tried == "x" * 150  # the first line of the summary


def test_html_comment_closers_in_a_summary_cannot_end_the_block() -> None:
    run = memory.RunRecord(run="1", at=1, kind="fix")
    tried = [attempt(1, "cd", False, "close --> <!-- it")]
    kept = memory.finish(
        memory.History(), run, Outcome(outcome=OutcomeKind.ESCALATED, reason="x"), tried
    )
    block = memory.encode(kept)
    assert block.count("-->") == 1 and memory.decode(f"a\n{block}\n") == kept


def test_a_long_history_is_squeezed_oldest_attempts_first() -> None:
    kept = history(60)
    block = memory.encode(kept, limit=8_000)
    assert len(block) <= 8_000
    squeezed = memory.decode(block)
    assert squeezed.runs[-1] == kept.runs[-1]  # the newest run keeps its attempts
    assert squeezed.runs[0].attempts == [] and squeezed.runs[0].gist is not None
    assert "3 attempt(s), signatures abababababab" in squeezed.runs[0].gist


@pytest.mark.slow
def test_the_whole_status_comment_stays_within_githubs_limit() -> None:
    data = render.Report(
        outcome=Outcome(outcome=OutcomeKind.ESCALATED, reason="stuck"),
        report="r" * 100_000,
        links=render.Links(run_url="https://run"),
    )
    body = render.status_comment(data, memory.encode(history(400)))
    assert len(body) <= render.BODY_LIMIT
    assert "truncated" in body and memory.decode(body).runs  # the history survives the cut


def test_an_unreadable_or_newer_history_is_an_error() -> None:
    with pytest.raises(ValueError, match="unreadable"):
        memory.decode('<!-- fixbot:memory {"v":1,"runs":"no"} -->')
    with pytest.raises(ValueError, match="newer"):
        memory.decode('<!-- fixbot:memory {"v":99,"runs":[]} -->')
    assert memory.decode("no block here") == memory.History()


def test_running_runs_and_the_daily_count() -> None:
    runs = [
        memory.RunRecord(run="1", at=1_000, kind="fix", out="fixed"),
        memory.RunRecord(run="2", at=90_000, kind="retry"),
        memory.RunRecord(run="3", at=90_100, kind="retry"),
    ]
    kept = memory.History(runs=runs)
    assert memory.running(kept, own_run="9") == runs[2]
    assert memory.running(kept, own_run="3") == runs[1]  # a re-run of itself does not count
    assert memory.runs_since(kept, now=90_200) == 2


def test_a_retry_is_told_what_earlier_runs_tried() -> None:
    lines = memory.already_tried(history(1, attempts=2))
    assert lines[1] == (
        "- run 100 attempt 2 [fixable/assertion abababababab]: "
        + "x" * 150
        + " on app.py -> check still failed"
    )
    squeezed = memory.decode(memory.encode(history(30), limit=3_000))
    assert memory.already_tried(squeezed)[0].startswith("- run ")
    assert memory.already_tried(memory.History()) == []


def comment_event(body: str, login: str = "alice", action: str = "created", on_pr: bool = True):  # type: ignore[no-untyped-def]
    raw = payload("issue_comment.created")
    raw["action"] = action
    raw["comment"]["body"] = body
    raw["comment"]["user"]["login"] = login
    raw["comment"]["user"]["type"] = "Bot" if login.endswith("[bot]") else "User"
    if on_pr:
        raw["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    return parse_event("issue_comment", raw, ENV)


def test_a_command_on_a_pull_request_asks_for_the_commenters_permission() -> None:
    intent = decide(comment_event("/fixbot retry try harder"), allow_forks=False)
    assert intent.kind is IntentKind.COMMAND and intent.ask_permission == "alice"
    assert intent.command is not None and intent.command.hint == "try harder"
    for level in (Level.WRITE, Level.MAINTAIN, Level.ADMIN):
        assert authorize(intent, "alice", level, Level.WRITE).kind is IntentKind.COMMAND
    for level in (Level.TRIAGE, Level.READ, Level.NONE):
        refused = authorize(intent, "alice", level, Level.WRITE)
        assert refused.kind is IntentKind.REFUSE and refused.reply and not refused.quiet


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (comment_event("/fixbot retry", on_pr=False), "not a pull request"),
        (comment_event("/fixbot retry", action="edited"), "edited"),
        (comment_event("/fixbot retry", action="deleted"), "deleted"),
        (comment_event("/fixbot retry", login="fixbot-app[bot]"), "bot"),
        (comment_event("LGTM"), "no `/fixbot` command"),
    ],
)
def test_comments_that_are_not_commands_are_ignored_quietly(event, why: str) -> None:  # type: ignore[no-untyped-def]
    intent = decide(event, allow_forks=False)
    assert intent.kind is IntentKind.REFUSE and intent.quiet and why in intent.reason
    assert intent.ask_permission is None  # no request is made for them


def test_the_vendored_edited_and_deleted_payloads_are_ignored() -> None:
    for name in ("issue_comment.edited", "issue_comment.deleted"):
        event = parse_event("issue_comment", payload(name), ENV)
        assert decide(event, allow_forks=False).quiet


def review_event(state: str = "changes_requested", login: str = "alice", body: str = "fix it"):  # type: ignore[no-untyped-def]
    raw = payload("pull_request_review.submitted")
    raw["review"].update({"state": state, "body": body})
    raw["review"]["user"].update({"login": login, "type": "Bot" if "[bot]" in login else "User"})
    return parse_event("pull_request_review", raw, ENV)


def test_review_events_address_threads_after_the_reviewers_permission() -> None:
    event = review_event()
    assert event.branch == "changes" and event.comment is not None
    intent = decide(event, allow_forks=False)
    assert intent.kind is IntentKind.THREADS and intent.ask_permission == "alice"
    refused = authorize(intent, "alice", Level.READ, Level.WRITE)
    assert refused.kind is IntentKind.REFUSE and not refused.reply  # no reply to a reviewer
    comment = parse_event(
        "pull_request_review_comment", payload("pull_request_review_comment.created"), ENV
    )
    assert decide(comment, allow_forks=False).kind is IntentKind.THREADS


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (review_event(state="approved"), "approved"),
        (review_event(login="lint[bot]"), "bot not listed"),
        (review_event(body=f"{REPLY_MARKER}\nfixbot addressed this"), "fixbot's own reply"),
    ],
)
def test_reviews_that_ask_nothing_are_ignored(event, why: str) -> None:  # type: ignore[no-untyped-def]
    intent = decide(event, allow_forks=False)
    assert intent.kind is IntentKind.REFUSE and why in intent.reason


def test_a_listed_review_bot_is_heard() -> None:
    intent = decide(review_event(login="lint[bot]"), allow_forks=False, bots=["lint"])
    assert intent.kind is IntentKind.THREADS
