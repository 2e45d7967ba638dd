"""fixbot's clone F's index, read by git without F's work tree: the clone made with its work
tree unwritten (`clone_unwritten`, the marker `UNWRITTEN`) and written whole
(`write_unwritten`, `check_out`), the blob id git gives bytes (`blob_id`), the blobs F's files
are (`index_blobs`) and the entries an attribute converts on checkout (`converted`).

Read by `fixbot.process.trees` (F's files written once), `fixbot.process.sync` (the workspace
compared with and synced from F's index) and the Action's checkout; none of it reads a file of
the workspace.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import git

# In F's `.git`: F's work tree is not written yet (`Worlds.write_files`); fixbot's own file
UNWRITTEN = "fixbot-unwritten"
LINK, REGULAR = "120000", ("100644", "100755")  # git's index modes
PATHS = "surrogateescape"  # git's path listings decoded as `os.fsdecode` does (names are bytes)


@dataclass(frozen=True)
class Entry:
    """One entry of F's index: its mode (git's octal text), blob id (hex), size (bytes, -1 for
    a submodule's commit)."""

    mode: str
    blob: str
    size: int


def clone_unwritten(fixbot: Path) -> None:
    """Make F's index HEAD's tree without writing a file (`git read-tree`), every entry
    skip-worktree, so git takes the missing files for HEAD's (status, add -A, diff and the
    attempts' snapshots see no change), and mark F's work tree unwritten (`UNWRITTEN`, read by
    `Worlds`). Run again on a clone killed while `Worlds.write_files` wrote it: the files
    already there are skip-worktree again (git reads none of them) and are written over.
    Raises GitError."""
    (fixbot / ".git" / UNWRITTEN).touch()
    git.run(fixbot, "read-tree", "HEAD")
    names = git.run(fixbot, "ls-files", "-z", errors=PATHS)
    done = git.completed(
        fixbot, "update-index", "-z", "--skip-worktree", "--stdin", stdin=names, errors=PATHS
    )
    if done.returncode != 0:
        raise GitError(f"git update-index failed: {done.stderr.strip()}")


def write_unwritten(fixbot: Path) -> None:
    """Write the whole work tree of a clone `clone_unwritten` left unwritten, as a checkout of
    HEAD would have (every entry's skip-worktree bit cleared, `git checkout-index --force
    --index`), and drop its marker; nothing when it is written. For a clone no `Worlds` has
    compared yet (nothing recorded against its index): the Action's, about to check out a
    commit other than the workspace's. Raises GitError."""
    marker = fixbot / ".git" / UNWRITTEN
    if not marker.exists():
        return
    check_out(fixbot, git.run(fixbot, "ls-files", "-z", errors=PATHS))
    marker.unlink()


def check_out(fixbot: Path, names: str) -> None:
    """Write F's index entries `names` (NUL-separated) into its work tree, as a checkout does:
    their skip-worktree bit cleared, `git checkout-index --force --index` (the repository's
    attributes converting). Raises GitError."""
    for args in (
        ("update-index", "-z", "--no-skip-worktree", "--stdin"),
        ("checkout-index", "-z", "--force", "--index", "--stdin"),
    ):
        done = git.completed(fixbot, *args, stdin=names, errors=PATHS)
        if done.returncode != 0:
            raise GitError(f"git {args[0]} failed: {done.stderr.strip()}")


def index_blobs(fixbot: Path) -> dict[str, str]:
    """The blob id (hex) of each of F's files whose work-tree bytes are its index entry's
    blob: in F's index (`git ls-files --stage`), at stage 0, a regular file, unchanged in
    F's work tree (not in `git diff-files`), and converted by no attribute on checkout
    (`converted`). So W's file can be compared with F's by hashing W's side alone. Raises
    GitError."""
    staged = git.run(fixbot, "ls-files", "-z", "--stage", errors=PATHS)
    changed = git.run(fixbot, "diff-files", "-z", "--name-only", errors=PATHS)
    left_out = set(changed.split("\0"))
    blobs, every = {}, []
    for entry in staged.split("\0"):
        head, _, rel = entry.partition("\t")
        every.append(rel)
        fields = head.split(" ")  # mode, blob id, stage
        if fields[0] in ("100644", "100755") and fields[2:] == ["0"] and rel not in left_out:
            blobs[rel] = fields[1]
    for rel in converted(fixbot, list(blobs), every):
        del blobs[rel]
    return blobs


def converted(fixbot: Path, paths: list[str], every: list[str]) -> set[str]:
    """Those of `paths` whose checkout in F may differ from their blob: an attribute of
    gitattributes(5) that converts content (`text`, `eol`, `crlf`, `ident`,
    `working-tree-encoding`, `filter`) is set on them (`git check-attr` in F; only when F
    has an attributes file among `every` path of its index, whatever its state, or in
    `.git/info`, fixbot's git configuration naming none). Raises GitError."""
    files = [p for p in every if p == ".gitattributes" or p.endswith("/.gitattributes")]
    if not files and not (fixbot / ".git" / "info" / "attributes").exists():
        return set()
    names = ("text", "eol", "crlf", "ident", "working-tree-encoding", "filter")
    done = git.completed(
        fixbot,
        *("check-attr", "-z", "--stdin", *names),
        stdin="\0".join(paths),
        errors=PATHS,
    )
    if done.returncode != 0:
        raise GitError(f"git check-attr failed: {done.stderr.strip()}")
    words = done.stdout.split("\0")
    triples = zip(words[0::3], words[1::3], words[2::3], strict=False)
    return {rel for rel, name, value in triples if _converts(name, value)}


def blob_id(data: bytes, length: int = 40) -> str:
    """The id git gives `data` as a blob (hex): SHA-1 of `blob <size>\\0<data>`, or SHA-256
    when `length` is 64 (a repository of `extensions.objectFormat = sha256`; gitformat-pack(5),
    git's hash-function-transition document)."""
    digest = hashlib.sha256() if length == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _converts(name: str, value: str) -> bool:
    """True when the attribute `name` with `value` (as `git check-attr` prints it) may make a
    checkout differ from the blob: set in any way but `-text` or `-crlf` (binary)."""
    return value != "unspecified" and not (name in ("text", "crlf") and value == "unset")
