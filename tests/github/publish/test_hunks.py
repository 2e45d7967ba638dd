"""The hunks of real `git diff` output, trimmed to the lines they replace."""

from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixbot.github.publish.hunks import changes, fence, nearest, shown
from tests.fakes.repo import git, make_repo, write_files

LINES = "".join(f"line {n}\n" for n in range(1, 21))


def diff_of(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> str:
    repo = make_repo(tmp_path / "repo", before)
    for rel in set(before) - set(after):
        (repo / rel).unlink()
    write_files(repo, after)
    git(repo, "add", "-A")
    done = subprocess.run(
        ["git", "diff", "--cached", "--no-color", "--no-ext-diff"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_changed_line_replaces_exactly_that_line(tmp_path: Path) -> None:
    after = LINES.replace("line 7\n", "line seven\n")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert (change.path, change.old_start, change.old_end) == ("a.py", 7, 7)
    assert change.new_lines == ["line seven"] and not change.whole_file
    assert change.text.startswith("@@ -4,7 +4,7 @@")


def test_nearby_changes_are_one_hunk_spanning_the_context_between(tmp_path: Path) -> None:
    after = LINES.replace("line 7\n", "seven\n").replace("line 9\n", "nine\nnine and a half\n")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert (change.old_start, change.old_end) == (7, 9)
    assert change.new_lines == ["seven", "line 8", "nine", "nine and a half"]


def test_a_pure_insertion_is_anchored_on_the_line_before(tmp_path: Path) -> None:
    after = LINES.replace("line 10\n", "line 10\ninserted\n")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert (change.old_start, change.old_end) == (10, 10)
    assert change.new_lines == ["line 10", "inserted"]


def test_an_insertion_at_the_top_is_anchored_on_the_line_after(tmp_path: Path) -> None:
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": "first\n" + LINES}))
    assert (change.old_start, change.old_end) == (1, 1)
    assert change.new_lines == ["first", "line 1"]


def test_a_deletion_replaces_the_lines_with_nothing(tmp_path: Path) -> None:
    after = LINES.replace("line 3\nline 4\n", "")
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert (change.old_start, change.old_end, change.new_lines) == (3, 4, [])


def test_a_new_file_is_a_whole_file_change(tmp_path: Path) -> None:
    found = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": LINES, "b.py": "x = 1\n"}))
    assert [(c.path, c.whole_file) for c in found] == [("b.py", True)]


def test_separate_hunks_and_the_nearest_one(tmp_path: Path) -> None:
    after = LINES.replace("line 2\n", "two\n").replace("line 18\n", "eighteen\n")
    found = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    assert [(c.old_start, c.old_end) for c in found] == [(2, 2), (18, 18)]
    assert nearest(found, "a.py", 17) == found[1]
    assert nearest(found, "a.py", 2) == found[0]
    assert nearest(found, "a.py", None) == found[0]
    assert nearest(found, "b.py", 2) is None


def test_not_a_diff_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not a unified diff"):
        changes("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-only one line\n")


def test_fence_outlasts_any_backtick_run() -> None:
    assert fence("a ``` b", "diff") == "````diff\na ``` b\n````"
    assert fence("plain") == "```\nplain\n```"


def test_shown_bounds_a_long_hunk(tmp_path: Path) -> None:
    after = "".join(f"new {n}\n" for n in range(1, 21))
    [change] = changes(diff_of(tmp_path, {"a.py": LINES}, {"a.py": after}))
    text = shown(change, limit=10)
    assert len(text.splitlines()) == 11 and text.endswith("more line(s) in the commit")


def _diff(old: list[str], new: list[str]) -> str:
    lines = difflib.unified_diff(
        [f"{x}\n" for x in old], [f"{x}\n" for x in new], "a/f.py", "b/f.py", n=3
    )
    return "".join(lines)


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a", "b", "c", "d", "e", ""]), min_size=1, max_size=30),
    new=st.lists(st.sampled_from(["a", "b", "c", "x", "y", ""]), min_size=1, max_size=30),
)
def test_applying_every_change_gives_the_new_file(old: list[str], new: list[str]) -> None:
    """Each change replaces old lines `old_start..old_end` by `new_lines`: applied bottom-up
    to the old file they give the new one (what "Commit suggestions" does, hunk by hunk)."""
    result = list(old)
    for change in sorted(changes(_diff(old, new)), key=lambda c: c.old_start, reverse=True):
        assert change.old_start >= 1 and change.old_end >= change.old_start  # a line to sit on
        result[change.old_start - 1 : change.old_end] = change.new_lines
    assert result == new
