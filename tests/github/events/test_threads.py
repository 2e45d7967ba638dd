"""The review-thread decisions: scope, the intersection rule, the reply, and how the status
comment and the summary list them. Pure: no I/O."""

from __future__ import annotations

from fixbot.core.models import Attempt, Outcome, OutcomeKind, Phase, ReviewThread
from fixbot.github.events import threads
from fixbot.github.events.threads import ThreadNode
from fixbot.github.publish import render

SHA = "0123456789abcdef0123456789abcdef01234567"


def thread(tid: str, path: str, line: int | None = 3) -> ReviewThread:
    return ReviewThread(
        id=tid, path=path, line=line, author="alice", body=f"please fix {tid}", url=f"u/{tid}"
    )


def node(tid: str, resolved: bool = False, outdated: bool = False) -> ThreadNode:
    return ThreadNode(thread=thread(tid, f"{tid}.py"), resolved=resolved, outdated=outdated)


def claim(*ids: str, phase: Phase = Phase.THREADS, **fields: object) -> Attempt:
    values: dict[str, object] = {"passed": True, "done": True, **fields}
    return Attempt(number=2, phase=phase, resolved_thread_ids=list(ids), **values)


A, B, C = thread("A", "app.py"), thread("B", "lib.py"), thread("C", "docs/x.md")


def test_in_scope_drops_resolved_and_outdated_and_keeps_the_order() -> None:
    nodes = [node("1"), node("2", resolved=True), node("3", outdated=True), node("4"), node("5")]
    assert [t.id for t in threads.in_scope(nodes, 10)] == ["1", "4", "5"]


def test_in_scope_keeps_at_most_limit_threads() -> None:
    nodes = [node(str(i)) for i in range(5)]
    assert [t.id for t in threads.in_scope(nodes, 2)] == ["0", "1"]
    assert threads.in_scope(nodes, 0) == []


def test_claimed_touched_and_in_scope_is_resolved() -> None:
    assert threads.resolvable([A, B, C], [claim("A")], {"app.py"}) == [A]


def test_claimed_but_file_untouched_is_not_resolved() -> None:
    assert threads.resolvable([A, B], [claim("A", "B")], {"app.py"}) == [A]


def test_touched_but_unclaimed_is_not_resolved() -> None:
    assert threads.resolvable([A, B], [claim("A")], {"app.py", "lib.py"}) == [A]


def test_claim_of_an_undone_attempt_is_not_resolved() -> None:
    assert threads.resolvable([A], [claim("A", undone=True)], {"app.py"}) == []


def test_claim_of_a_failed_or_unfinished_attempt_is_not_resolved() -> None:
    assert threads.resolvable([A], [claim("A", passed=False)], {"app.py"}) == []
    assert threads.resolvable([A], [claim("A", done=False)], {"app.py"}) == []


def test_claim_outside_the_thread_phase_is_not_resolved() -> None:
    assert threads.resolvable([A], [claim("A", phase=Phase.FIX)], {"app.py"}) == []


def test_out_of_scope_threads_are_never_resolved() -> None:
    nodes = [node("1"), node("O", outdated=True), node("R", resolved=True), node("2"), node("3")]
    scoped = threads.in_scope(nodes, 2)  # "3" is beyond the limit
    every = [n.thread for n in nodes]
    got = threads.resolvable(scoped, [claim("1", "2", "3", "O", "R")], {t.path for t in every})
    assert [t.id for t in got] == ["1", "2"]


def test_a_claim_may_come_from_any_kept_thread_attempt() -> None:
    attempts = [claim("A", undone=True), claim("B")]
    assert threads.resolvable([A, B], attempts, {"app.py", "lib.py"}) == [B]


def test_report_splits_resolved_and_open_in_the_given_order() -> None:
    got = threads.report([A, B, C], [C, A], note="why")
    assert (got.resolved, got.open, got.note) == ([A, C], [B], "why")


def test_reply_names_the_commit_and_links_it() -> None:
    text = threads.reply_text(SHA, "https://github.example/o/r/commit/" + SHA)
    assert f"[`{SHA[:12]}`](https://github.example/o/r/commit/{SHA})" in text
    assert text.startswith(threads.REPLY_MARKER)
    assert f"`{SHA}`" in threads.reply_text(SHA, None)


def report_with_threads() -> render.Report:
    return render.Report(
        outcome=Outcome(outcome=OutcomeKind.FIXED, reason="ok", attempts=1),
        links=render.Links(run_url="https://run"),
        threads=threads.report([A, B, thread("C", "c.py", line=None)], [A], note="a note"),
    )


def test_status_comment_lists_addressed_and_open_threads_without_their_bodies() -> None:
    body = render.status_comment(report_with_threads())
    addressed, left = body.split("Addressed")[1].split("Not addressed")
    assert "[`app.py:3`](u/A) by @alice" in addressed
    assert "[`lib.py:3`](u/B) by @alice" in left and "[`c.py`](u/C)" in left
    assert "> a note" in left
    assert "please fix" not in body  # thread bodies are untrusted: never echoed


def test_summary_lists_the_threads_too() -> None:
    text = render.summary(report_with_threads())
    assert "### Review threads" in text and "(1):\n- [`app.py:3`](u/A)" in text
    assert "left open (2)" in text


def test_no_threads_section_without_threads() -> None:
    data = report_with_threads().model_copy(update={"threads": None})
    assert "Review threads" not in render.status_comment(data) + render.summary(data)


def test_threads_left_out_are_listed_with_their_reason_and_without_their_text() -> None:
    left = [threads.LeftOut(thread=thread("M", "app.py"), reason="author has read access")]
    data = report_with_threads().model_copy(
        update={"threads": threads.report([A], [A], None, left)}
    )
    for text in (render.status_comment(data), render.summary(data)):
        assert "Not given to the model, left open (1):" in text
        assert "[`app.py:3`](u/M) by @alice: author has read access" in text
        assert "please fix M" not in text


def test_only_left_out_threads_still_make_a_section() -> None:
    left = [threads.LeftOut(thread=thread("M", "app.py"), reason="outdated")]
    data = report_with_threads().model_copy(update={"threads": threads.report([], [], None, left)})
    assert "Review threads" in render.summary(data)
