"""Verified means verified: the adapters around a green check before it may become `fixed`.

- `cheats(repo, start, verified, first, last)` reads the final diff from git and asks the pure
  detector (`fixbot.tamper.cheats.detect`) whether the green was bought by weakening the tests.
- `drift(repo, verified, now)` names the paths whose content differs between the tree the
  verifying check saw and a later one (a process of the check that edited a fixed file after the
  check passed, or text the check wrote into the fixer's files): such a tree is never committed.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from fixbot.core.models import Counts
from fixbot.process import git
from fixbot.tamper.cheats import Change, Cheat, detect


def _text(repo: Path, rev: str, path: str) -> str | None:
    """The text of `path` at `rev`, None when it is not there ("" when it is not UTF-8)."""
    listed = git.run(repo, "ls-tree", "--name-only", rev, "--", path, env=git.LITERAL)
    if not listed:
        return None
    data = git.run(repo, "cat-file", "blob", f"{rev}:{path}", check=False)
    return data if "\0" not in data else ""


def changes(repo: Path, start: str, verified: str) -> list[Change]:
    """The files that differ from commit `start` to `verified` (a commit or tree sha), with their
    old and new text. Raises `fixbot.core.errors` git errors when a sha is unknown."""
    names = git.changed_files(repo, start, verified)
    return [Change(p, _text(repo, start, p), _text(repo, verified, p)) for p in names]


def packages(repo: Path, verified: str) -> list[str]:
    """The folders of `verified` that hold an `__init__.py` ("." for the root)."""
    listed = git.run(repo, "ls-tree", "-r", "--name-only", verified).splitlines()
    return [str(PurePosixPath(p).parent) for p in listed if PurePosixPath(p).name == "__init__.py"]


def cheats(
    repo: Path, start: str, verified: str, first: Counts | None, last: Counts | None
) -> list[Cheat]:
    """The suspected cheats of the diff from `start` to the `verified` tree and of the counts of
    the first failing (`first`) and verifying (`last`) runs (`fixbot.tamper.cheats.detect`)."""
    found = changes(repo, start, verified)
    return detect(found, first, last, packages(repo, verified))


def drift(repo: Path, verified: str, now: str) -> list[str]:
    """The paths whose content differs between tree `verified` and tree `now` ([] when equal)."""
    if verified == now:
        return []
    out = git.run(repo, "diff-tree", "-r", "-z", "--name-only", "--no-renames", verified, now)
    return [p for p in out.split("\0") if p]


def committed_drift(repo: Path, verified: str) -> list[str]:
    """The paths whose content differs between tree `verified` and the commit at HEAD."""
    return drift(repo, verified, git.run(repo, "rev-parse", "HEAD^{tree}"))


def allowed_note(cheats: list[str]) -> str:
    """The report's and commit message's line about a fix that changed the tests, published
    because the workflow allows test edits."""
    return "suspected test tampering, published because allow-test-edits is set: " + "; ".join(
        cheats
    )
