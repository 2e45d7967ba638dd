"""The two trees `fixbot.process.sync.Worlds` keeps equal, and what it shares between its
phases: fixbot's clone F and the workspace W (`Trees`: where they are, who owns W's files, the
bounds of a read-back), what the last sync wrote of each (`Written`, by lstat `Key`), the paths
that are fixbot's own (`.git`, the state folder), and F's files written from its index once
(`Trees.write_files`) where its work tree started unwritten (`fixbot.process.index`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from fixbot.core.secrets import DEFAULT_STATE_DIR
from fixbot.process import git
from fixbot.process.index import LINK, PATHS, REGULAR, UNWRITTEN, Entry, check_out, converted

MAX_READ_BACK_FILES = 2000  # files one fix command may bring back
MAX_READ_BACK_BYTES = 64 * 1024 * 1024  # bytes one fix command may bring back

# (size, mtime_ns, ctime_ns, inode, mode) of an lstat: the ctime because a file's mtime can be
# set back (utime(2), as fixbot's own `repofiles.past_the_second` sets it), its ctime cannot
Key = tuple[int, int, int, int, int]


def stat_key(info: os.stat_result) -> Key:
    """The `Key` of an lstat."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)


def lstat_or_none(path: str) -> os.stat_result | None:
    """`os.lstat(path)`, or None when the path or a folder on it is missing."""
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


@dataclass
class Written:
    """What `Worlds.to_workspace` last made a path: F's and W's lstat keys."""

    fixbot: Key
    workspace: Key


def blob_key(entry: Entry) -> Key:
    """The manifest's key of F's side for an index entry while F's work tree is unwritten: no
    lstat gives a size of -1, so it never matches a file's."""
    return (-1, int(entry.blob[:15], 16), 0, 0, int(entry.mode, 8))


@dataclass
class Trees:
    """fixbot's clone `fixbot` (F) and the workspace `workspace` (W) the commands run in: the
    state `fixbot.process.sync.Worlds` is made of. Its phases subclass it: the read-back after
    a fix command (`fixbot.process.readback.ReadingBack`), then the first comparison and the
    sync before each command (`Worlds`, which callers construct with these fields).

    `state_dir` is the state folder's name (relative), never synced nor read back; `owner`
    (uid, gid) is given every file written into W when fixbot is root (None: leave as
    written); `refuse` names why a path may not come back (a protected path), or None.
    `manifest` is what the last sync wrote (path -> `Written`).
    """

    fixbot: Path
    workspace: Path
    state_dir: str = DEFAULT_STATE_DIR
    owner: tuple[int, int] | None = None
    refuse: Callable[[str], str | None] = lambda _rel: None
    max_files: int = MAX_READ_BACK_FILES
    max_bytes: int = MAX_READ_BACK_BYTES
    manifest: dict[str, Written] = field(default_factory=dict)
    settled: dict[str, Key] | None = None  # `untracked` as the last command ended
    unwritten: bool = field(init=False)  # F's work tree not written yet (`write_files`)
    _ignore_files_written: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.unwritten = (self.fixbot / ".git" / UNWRITTEN).is_file()

    def in_workspace(self, path: Path) -> Path:
        """`path` inside F mapped to the same place in W (other paths unchanged)."""
        try:
            return self.workspace / path.relative_to(self.fixbot)
        except ValueError:
            return path

    @cached_property
    def _state_top(self) -> str:
        """The first component of the state folder's name (computed once: `_private` asks for
        every file of every sync)."""
        return Path(self.state_dir).parts[0]

    def _private(self, rel: str) -> bool:
        """`.git` at any depth (a nested repository), or the state folder."""
        top = self._state_top
        if ".git" not in rel.lower() and not rel.startswith(top):  # the common case, fast
            return False
        parts = rel.rstrip("/").split("/")
        return ".git" in (p.lower() for p in parts) or parts[0] == top

    def tracked(self) -> list[str]:
        """F's files the workspace gets: tracked plus new not-ignored ones, not the state
        folder. Raises GitError."""
        listing = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        out = git.run(self.fixbot, *listing, errors=PATHS)
        return [p for p in dict.fromkeys(out.split("\0")) if p and not self._private(p)]

    # F's work tree unwritten: `clone_unwritten` made F's index from HEAD, every entry
    # skip-worktree, and wrote no file; a green run never needs them, so W is compared with and
    # kept equal to F's index, and F's files are written (`write_files`) only where a run
    # needs them: a command's changes to bring back, a tracked path W lacks or changed, an
    # entry whose checkout is not its blob.

    @cached_property
    def _unwritten_entries(self) -> dict[str, Entry]:
        """F's tracked paths (none of `_private`) with their (mode, blob id, size in bytes),
        from `git ls-tree -r -l HEAD`: F's index while its work tree is unwritten. Raises
        GitError."""
        listing = git.run(
            self.fixbot, "ls-tree", "-r", "-l", "-z", "--full-tree", "HEAD", errors=PATHS
        )
        found = {}
        for line in listing.split("\0"):
            head, _, rel = line.partition("\t")
            fields = head.split()  # mode, type, id, size ("-" for a submodule's commit)
            if rel and len(fields) == 4 and not self._private(rel):
                size = int(fields[3]) if fields[3].isdigit() else -1
                found[rel] = Entry(fields[0], fields[2], size)
        return found

    @cached_property
    def _comparable_entries(self) -> dict[str, Entry] | None:
        """`_unwritten_entries`, or None when one of them cannot be compared with W without F's
        file: a kind other than a regular file or a link (a submodule: git asks nothing of
        paths inside it of an index that has it, and fixbot's check-ignore must), or a regular
        file an attribute converts on checkout (`index.converted`: F's file would not be its
        blob).
        Raises GitError."""
        entries = self._unwritten_entries
        if any(e.mode not in (*REGULAR, LINK) for e in entries.values()):
            return None
        regular = [rel for rel, e in entries.items() if e.mode in REGULAR]
        return None if converted(self.fixbot, regular, list(entries)) else entries

    def _write_ignore_files(self) -> None:
        """Write F's tracked `.gitignore` files (none of `_private`), once, while the rest of
        its work tree stays unwritten: `git check-ignore --no-index` reads them from disk only
        (asked with F's index instead, git matches every path asked against every entry: 1 s
        for 10,000 files). Raises GitError."""
        if self._ignore_files_written:
            return
        names = [rel for rel in self._unwritten_entries if rel.rpartition("/")[2] == ".gitignore"]
        self._check_out(names)
        self._ignore_files_written = True

    def _check_out(self, names: list[str]) -> None:
        """Write F's index entries `names` into its work tree, as a checkout does: their
        skip-worktree bit cleared, `git checkout-index --force --index` (the repository's
        attributes converting). Raises GitError."""
        if names:
            check_out(self.fixbot, "\0".join(names))

    def write_files(self) -> None:
        """Write F's work tree from its index, once (nothing when it is written): every entry
        but `_private`'s (the state folder's name stays fixbot's own, never checked out) loses
        its skip-worktree bit and is checked out (`git checkout-index --force --index`, the
        repository's attributes converting as a checkout does); the manifest's entries
        recorded against the index then name F's new files, where F's file is the blob. Then
        the marker `UNWRITTEN` goes. Raises GitError."""
        if not self.unwritten:
            return
        entries = self._unwritten_entries
        comparable = self._comparable_entries
        self._check_out(list(entries))
        for rel, written in self.manifest.items():
            entry = entries.get(rel)
            if comparable is not None and entry is not None and written.fixbot == blob_key(entry):
                source = lstat_or_none(os.path.join(self.fixbot, rel))
                if source is not None:
                    written.fixbot = stat_key(source)
        (self.fixbot / ".git" / UNWRITTEN).unlink(missing_ok=True)
        self.unwritten = False
