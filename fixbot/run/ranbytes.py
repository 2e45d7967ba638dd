"""The tests' files held to the bytes fixbot put there: each file of the tests' (the check's
files, `helpers`, any test file) whose module code a check's process ran must have run from
the bytes the tree of that check holds for it, as a checkout writes them. fixbot's observers
inside pytest and unittest read each work-tree file's bytes as the import system runs its
module code (`fixbot.observe.modulecode.ran_digest`, at the `exec` audit event) and stream
their SHA-256 (`Observation.ran_bytes`); here each is compared with the SHA-256 of the tree's
blob for that path (`git.blob_bytes`; where that differs, the blob with gitattributes'
conversions, `git.checkout_bytes`). A difference is `original-tests`: the file was rewritten on disk
around its import (round 43's pinned module rewritten on disk: app.py writes checks.py emptied,
imports it and writes the start's bytes back; or leaves it emptied), so the tree fixbot would
commit is not the code that decided the check. A file the tree has no blob for (made by the
run, untracked) is not compared; a file of the tests' named imported with no digest where the
run sent digests (cut by the record's cap) is not verified either."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from fixbot.core.observed import Observation
from fixbot.process import git
from fixbot.tamper.record import Cheat

UNREAD = "-"  # `fixbot.observe.importrecord.UNREAD`: never a tree's digest
REGULAR = ("100644", "100755")  # the modes of a regular file in a git tree


def rewritten(
    repo: Path, tree: str, seen: Observation | None, tests: Callable[[str], bool]
) -> list[Cheat]:
    """`original-tests` where a file `tests(path)` calls the tests' ran (`seen.ran_bytes`)
    from bytes other than tree `tree`'s (a commit or tree sha of `repo`) as a checkout writes
    them; [] where `seen` carried no digests (another runner's check, an older observer).
    Raises GitError where git cannot read `repo`."""
    if seen is None or seen.ran_bytes is None:
        return []
    differ = sorted(_differing(repo, tree, _held(seen.ran_bytes, seen.imported or [], tests)))
    if not differ:
        return []
    evidence = (
        f"{', '.join(differ[:5])}, the tests', ran from bytes other than those fixbot put "
        "there for this check: the file was rewritten on disk around its import"
    )
    return [Cheat("original-tests", None, evidence)]


def _held(ran: dict[str, str], imported: list[str], tests: Callable[[str], bool]) -> dict[str, str]:
    """The digests of `ran` (path: SHA-256 as its code ran) of the files `tests` calls the
    tests', and `UNREAD` for each such file of `imported` with none (cut by the record's cap)."""
    held = {path: digest for path, digest in ran.items() if tests(path)}
    return held | {path: UNREAD for path in imported if tests(path) and path not in held}


def _differing(repo: Path, tree: str, held: dict[str, str]) -> list[str]:
    """The paths of `held` (path: SHA-256 as it ran) whose digest is neither that of tree
    `tree`'s blob nor that of the blob as a checkout writes it; a path that is no regular file
    there (none, a link, a submodule) is left out."""
    names = {f"{tree}:{path}": path for path in _regular(repo, tree, list(held))}
    blobs = git.blob_bytes(repo, list(names))
    differ = []
    for name, data in blobs.items():
        path = names[name]
        if hashlib.sha256(data).hexdigest() == held[path]:
            continue
        written = git.checkout_bytes(repo, name)
        if written is None or hashlib.sha256(written).hexdigest() != held[path]:
            differ.append(path)
    return differ


def _regular(repo: Path, tree: str, paths: list[str]) -> list[str]:
    """Those of `paths` tree `tree` holds as regular files (mode 100644 or 100755): a link's
    blob is its target's name, not the bytes a module read through it ran from."""
    if not paths:
        return []
    listed = git.names(repo, "ls-tree", tree, "--", *paths)
    heads = (line.partition("\t") for line in listed)
    return [path for head, _, path in heads if head.split(" ")[0] in REGULAR]
