"""`on-success: suggest`: the plan, and the review built from real `git diff` hunks, checked
against GitHub's suggestion syntax and the lines a review comment may sit on."""

from __future__ import annotations

import re
from pathlib import Path

from fixbot.core.models import OutcomeKind
from fixbot.core.values import OnSuccess
from fixbot.github.publish.hunks import changes
from fixbot.github.publish.plan import make_plan
from fixbot.github.publish.suggest import BODY_LIMIT, commentable, review, suggestion
from tests.fakes.action_env import load_event as payload
from tests.github.events.test_event import _plan
from tests.github.publish.test_hunks import LINES, diff_of

# GitHub's suggestion block: a fence of 3+ backticks with the info string `suggestion`, the
# replacement lines, the same fence closing it.
SUGGESTION = re.compile(r"^(`{3,})suggestion\n(.*?)\1$", re.S | re.M)


def test_suggest_on_a_pull_request_pushes_nothing() -> None:
    pr = payload("pull_request.opened")
    plan = make_plan(_plan("pull_request", pr, OutcomeKind.FIXED, on_success=OnSuccess.SUGGEST))
    assert (plan.suggest_pr, plan.comment_pr) == (2, 2)
    assert (plan.source, plan.push_branch, plan.new_branch, plan.pull_request) == (
        None,
        None,
        None,
        None,
    )


def test_suggest_without_a_pull_request_opens_one() -> None:
    plan = make_plan(
        _plan("push", payload("push"), OutcomeKind.FIXED, on_success=OnSuccess.SUGGEST)
    )
    assert plan.suggest_pr is None and plan.pull_request is not None
    assert "needs a pull request" in plan.notes[0]


def test_a_fork_still_gets_a_patch() -> None:
    pr = payload("pull_request.opened")
    plan = make_plan(
        _plan("pull_request", pr, OutcomeKind.FIXED, on_success=OnSuccess.SUGGEST, patch_only=True)
    )
    assert plan.patch and plan.suggest_pr is None


def test_commentable_reads_the_pull_request_files_patches() -> None:
    files = [
        ("a.py", "@@ -1,3 +1,4 @@\n line 1\n+new\n line 2\n line 3\n@@ -10,2 +11,2 @@\n x\n-y\n+z"),
        ("big.bin", None),
    ]
    assert commentable(files) == {"a.py": [(1, 4), (11, 12)]}


def test_each_commentable_hunk_is_one_suggestion_the_rest_a_patch(tmp_path: Path) -> None:
    after = LINES.replace("line 3\n", "three\n").replace("line 15\nline 16\n", "fifteen\n")
    diff = diff_of(tmp_path, {"a.py": LINES}, {"a.py": after, "new.py": "x = 1\n"})
    found = changes(diff)
    ranges = {"a.py": [(1, 8)]}  # the pull request changed lines 1-8 only
    done = review(found, ranges, "fixbot fixed the check.", "https://run")

    [only] = done.comments
    assert only.payload() == {"path": "a.py", "body": only.body, "line": 3, "side": "RIGHT"}
    [block] = SUGGESTION.findall(only.body)
    assert block[1] == "three\n"
    assert [c.path for c in done.in_body] == ["a.py", "new.py"]  # lines 15-16, a new file
    assert "fall outside the lines GitHub lets a review comment on" in done.body
    assert "--- a/a.py\n+++ b/a.py\n@@ -12," in done.body and "+++ b/new.py" in done.body
    assert "**Commit suggestions**" in done.body


def test_a_multi_line_suggestion_has_a_start_line(tmp_path: Path) -> None:
    after = LINES.replace("line 4\nline 5\nline 6\n", "four to six\n")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    comment = suggestion(change)
    assert (comment.start_line, comment.line, comment.start_side) == (4, 6, "RIGHT")
    assert SUGGESTION.findall(comment.body)[0][1] == "four to six\n"


def test_a_deletion_is_an_empty_suggestion(tmp_path: Path) -> None:
    after = LINES.replace("line 9\n", "")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert SUGGESTION.findall(suggestion(change).body)[0][1] == ""


def test_backticks_in_the_code_lengthen_the_fence(tmp_path: Path) -> None:
    after = LINES.replace("line 2\n", 'doc = """```py"""\n')
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    [block] = SUGGESTION.findall(suggestion(change).body)
    assert block == ("````", 'doc = """```py"""\n')


def test_the_body_stays_within_githubs_limit(tmp_path: Path) -> None:
    big = "".join(f"value_{n} = {n}\n" for n in range(8000))
    found = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": LINES, "big.py": big}))
    done = review(found, {}, "summary", "https://run")
    assert len(done.body) <= BODY_LIMIT and "job summary" in done.body
