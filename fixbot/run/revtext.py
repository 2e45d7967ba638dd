"""The text of a file at a commit, read from git's objects (never the work tree, which the
check's processes could have changed): `text(repo, rev, path)`, `blob(repo, name)`, and
`objects(repo, rev)` (each file's blob sha, so that a file the same in two trees is read
once). Shared by `fixbot.run.integrity`, `fixbot.run.checkfiles` and `fixbot.run.runnerconf`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fixbot.process import commits, git


def text(repo: Path, rev: str, path: str) -> str | None:
    """The text of `path` at `rev`, None when it is not there ("" when it is not UTF-8)."""
    listed = git.run(repo, "ls-tree", "--name-only", rev, "--", path, env=commits.LITERAL)
    return blob(repo, f"{rev}:{path}") if listed else None


def blob(repo: Path, name: str) -> str:
    """The text of the blob git names `name` (`rev:path`, a sha), "" when it is not UTF-8 or
    no blob."""
    data = git.run(repo, "cat-file", "blob", name, check=False)
    return data if "\0" not in data else ""


def reader(repo: Path, blobs: dict[str, str]) -> Callable[[str], str]:
    """A reader of the files `blobs` names (path: blob sha, `objects`): a path to its text
    (`blob`)."""
    return lambda path: blob(repo, blobs[path])


def objects(repo: Path, rev: str) -> dict[str, str]:
    """The blob of each file of `rev` (its path, as `git.names` lists it: its sha):
    a file the same in two trees is read once."""
    found = {}
    for line in git.names(repo, "ls-tree", "-r", rev):
        head, _, path = line.partition("\t")
        parts = head.split()
        if len(parts) == 3 and parts[1] == "blob":
            found[path] = parts[2]
    return found
