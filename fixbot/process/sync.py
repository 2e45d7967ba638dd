"""The workspace's files kept equal to fixbot's clone: `Worlds` makes the workspace's tracked
files equal to fixbot's clone before each project command, and reads back what a fix command
changed (`fixbot.process.worlds` has the design: fixbot's clone, its private folder and git
configuration).

Every path is reached without following a link (`fixbot.process.nofollow`): a link, file or
fifo the commands planted on the way is replaced (writing) or refused (reading), never followed.

fixbot's clone may start with its work tree unwritten (`clone_unwritten`, the marker
`UNWRITTEN`): every index entry skip-worktree, so git takes a missing file for HEAD's. `Worlds`
then compares W with the index's blobs (W's files hashed, at most each blob's size read; links
by their target) and writes F's files (`Worlds.write_files`) the first time that cannot answer:
an entry an attribute converts, a submodule, a tracked path W lacks or changed, a command's
changes to bring back. The run's steps other than the set-up, the check and a green ending
write them first too (`fixbot.run.executor`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeGuard

from fixbot.core.errors import GitError
from fixbot.core.secrets import DEFAULT_STATE_DIR
from fixbot.process import git
from fixbot.process.nofollow import (
    Folders,
    Planted,
    TooLarge,
    executable,
    place,
    read_at,
    read_in,
    remove_path,
    stat_at,
    stat_in,
)

# In F's `.git`: F's work tree is not written yet (`Worlds.write_files`); fixbot's own file
UNWRITTEN = "fixbot-unwritten"
LINK, REGULAR = "120000", ("100644", "100755")  # git's index modes
MAX_READ_BACK_FILES = 2000  # files one fix command may bring back
MAX_READ_BACK_BYTES = 64 * 1024 * 1024  # bytes one fix command may bring back
PATHS = "surrogateescape"  # git's path listings decoded as `os.fsdecode` does (names are bytes)

# (size, mtime_ns, ctime_ns, inode, mode) of an lstat: the ctime because a file's mtime can be
# set back (utime(2), as fixbot's own `past_the_second` sets it), its ctime cannot
Key = tuple[int, int, int, int, int]


def _key(info: os.stat_result) -> Key:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


@dataclass
class Written:
    """What `Worlds.to_workspace` last made a path: F's and W's lstat keys."""

    fixbot: Key
    workspace: Key


@dataclass
class ReadBack:
    """The outcome of `Worlds.read_back`: the paths brought into F, and those refused (with why)."""

    changed: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Worlds:
    """fixbot's clone `fixbot` (F) and the workspace `workspace` (W) the commands run in.

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

    def to_workspace(self) -> int:
        """Make W's tracked files equal to F's work tree; return how many paths were written or
        deleted. While F's work tree is unwritten, W already holding every blob of F's index
        (`_synced_unwritten`) writes nothing anywhere; otherwise F's files are written first
        (`write_files`). Raises GitError and OSError."""
        if self.unwritten and self._synced_unwritten():
            return 0
        self.write_files()
        wanted: set[str] = set()
        done = 0
        fixbot, workspace = f"{self.fixbot}/", f"{self.workspace}/"  # str joins: 20,000 a sync
        with Folders(self.workspace) as folders:
            for rel in self.tracked():
                source = _lstat(fixbot + rel)
                if not _file_or_link(source):
                    continue
                wanted.add(rel)
                target = _reached(folders, rel)  # a linked folder's file is never as synced
                if self._as_synced(rel, source, target):
                    continue
                if not self._same(rel, source, target):
                    content = self._content(rel, source)
                    place(
                        self.workspace, rel, content, source.st_mode, self.owner, source.st_mtime_ns
                    )
                    done += 1
                written = _lstat(workspace + rel)
                assert written is not None
                self.manifest[rel] = Written(_key(source), _key(written))
        for rel in sorted(set(self.manifest) - wanted):
            remove_path(self.workspace, rel)
            del self.manifest[rel]
            done += 1
        return done

    def _as_synced(self, rel: str, source: os.stat_result, target: os.stat_result | None) -> bool:
        """True when F's `source` and W's `target` lstat as the last sync of `rel` left them."""
        before = self.manifest.get(rel)
        return bool(
            before and target and before.fixbot == _key(source) and before.workspace == _key(target)
        )

    def _content(self, rel: str, source: os.stat_result) -> bytes | str:
        path = os.path.join(self.fixbot, rel)
        if stat.S_ISLNK(source.st_mode):
            return os.readlink(path)
        return read_at(self.fixbot, rel)

    def _same(self, rel: str, source: os.stat_result, target: os.stat_result | None) -> bool:
        """True when W's path already holds F's content and exec bit (compared as bytes)."""
        if target is None or stat.S_IFMT(source.st_mode) != stat.S_IFMT(target.st_mode):
            return False
        if stat.S_ISLNK(source.st_mode):
            return os.readlink(os.path.join(self.workspace, rel)) == self._content(rel, source)
        if source.st_size != target.st_size or executable(source.st_mode) != executable(
            target.st_mode
        ):
            return False
        try:
            mine = read_at(self.fixbot, rel)
            return read_at(self.workspace, rel, len(mine)) == mine
        except (OSError, Planted):  # a link or file planted as a folder on W's path
            return False

    def touched(self) -> list[str]:
        """The tracked paths the last command changed in W (what the next sync puts back): their
        lstat differs from what the last sync wrote and their content or kind from F's (from
        F's index while its work tree is unwritten)."""
        entries = self._comparable_entries if self.unwritten else None
        if self.unwritten and entries is None:
            self.write_files()
        found = []
        with Folders(self.workspace) as folders:
            for rel, before in sorted(self.manifest.items()):
                now = _lstat(os.path.join(self.workspace, rel))
                if now is not None and _key(now) == before.workspace:
                    continue
                if entries is not None:
                    entry = entries.get(rel)
                    if now is None or entry is None or not self._holds(rel, entry, now, folders):
                        found.append(rel)
                    continue
                source = _lstat(os.path.join(self.fixbot, rel))
                if source is None or not self._same(rel, source, now):
                    found.append(rel)
        return found

    def differing(self) -> list[str]:
        """The paths F has whose content or kind differs in W: the workspace's own uncommitted
        changes before the first sync. A path found the same is recorded in the manifest (its
        lstat keys, as a sync records what it wrote), so the first sync does not read both
        files again. While F's work tree is unwritten, W is compared with F's index alone
        (`_differing_unwritten`) when every entry can be; otherwise F's files are written first.
        Raises GitError."""
        if self.unwritten:
            found = self._differing_unwritten()
            if found is not None:
                return found
            self.write_files()
        blobs = self._index_blobs()
        with Folders(self.workspace) as folders:
            return self._compare(blobs, folders)

    def _compare(self, blobs: Mapping[str, str], folders: Folders) -> list[str]:
        """`differing`'s comparison, W's files read through `folders`."""
        found = []
        for rel in self.tracked():
            source = _lstat(os.path.join(self.fixbot, rel))
            if not _file_or_link(source):
                continue  # a submodule's folder: not fixbot's to compare
            try:  # through the folders the file is read in: the lstat recorded is that file's
                target = stat_in(folders, rel)
            except (OSError, Planted):  # a link or file planted as a folder, an unreadable one
                found.append(rel)
                continue
            if target is not None and not self._same_as_blob(rel, source, target, blobs, folders):
                found.append(rel)
            elif target is not None:
                self.manifest[rel] = Written(_key(source), _key(target))
        return found

    def _index_blobs(self) -> dict[str, str]:
        """The blob id (hex) of each of F's files whose work-tree bytes are its index entry's
        blob: in F's index (`git ls-files --stage`), at stage 0, a regular file, unchanged in
        F's work tree (not in `git diff-files`), and converted by no attribute on checkout
        (`_converted`). So W's file can be compared with F's by hashing W's side alone. Raises
        GitError."""
        staged = git.run(self.fixbot, "ls-files", "-z", "--stage", errors=PATHS)
        changed = git.run(self.fixbot, "diff-files", "-z", "--name-only", errors=PATHS)
        left_out = set(changed.split("\0"))
        blobs, every = {}, []
        for entry in staged.split("\0"):
            head, _, rel = entry.partition("\t")
            every.append(rel)
            fields = head.split(" ")  # mode, blob id, stage
            if fields[0] in ("100644", "100755") and fields[2:] == ["0"] and rel not in left_out:
                blobs[rel] = fields[1]
        for rel in self._converted(list(blobs), every):
            del blobs[rel]
        return blobs

    def _converted(self, paths: list[str], every: list[str]) -> set[str]:
        """Those of `paths` whose checkout in F may differ from their blob: an attribute of
        gitattributes(5) that converts content (`text`, `eol`, `crlf`, `ident`,
        `working-tree-encoding`, `filter`) is set on them (`git check-attr` in F; only when F
        has an attributes file among `every` path of its index, whatever its state, or in
        `.git/info`, fixbot's git configuration naming none). Raises GitError."""
        files = [p for p in every if p == ".gitattributes" or p.endswith("/.gitattributes")]
        if not files and not (self.fixbot / ".git" / "info" / "attributes").exists():
            return set()
        names = ("text", "eol", "crlf", "ident", "working-tree-encoding", "filter")
        done = git.completed(
            self.fixbot,
            *("check-attr", "-z", "--stdin", *names),
            stdin="\0".join(paths),
            errors=PATHS,
        )
        if done.returncode != 0:
            raise GitError(f"git check-attr failed: {done.stderr.strip()}")
        words = done.stdout.split("\0")
        triples = zip(words[0::3], words[1::3], words[2::3], strict=False)
        return {rel for rel, name, value in triples if _converts(name, value)}

    def _same_as_blob(
        self,
        rel: str,
        source: os.stat_result,
        target: os.stat_result,
        blobs: Mapping[str, str],
        folders: Folders,
    ) -> bool:
        """`_same`, with W's regular file hashed as a git blob and compared with F's blob id
        (`_index_blobs`) instead of reading F's file too, where F's bytes are that blob."""
        blob = blobs.get(rel)
        if blob is None or not (stat.S_ISREG(source.st_mode) and stat.S_ISREG(target.st_mode)):
            return self._same(rel, source, target)
        if source.st_size != target.st_size or executable(source.st_mode) != executable(
            target.st_mode
        ):
            return False
        try:
            data = read_in(folders, rel, source.st_size)
        except (OSError, Planted):
            return False
        return blob_id(data, len(blob)) == blob

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
    def _unwritten_names(self) -> frozenset[str]:
        """F's tracked paths and the folders above them (no trailing `/`), for `_has`."""
        names = set()
        for rel in self._unwritten_entries:
            names.add(rel)
            while "/" in rel:
                rel = rel.rpartition("/")[0]
                if rel in names:
                    break
                names.add(rel)
        return frozenset(names)

    def _has(self, rel: str) -> bool:
        """True when F has `rel` (a folder's ending in `/`): on disk, or in its index while its
        work tree is unwritten."""
        if self.unwritten and rel.rstrip("/") in self._unwritten_names:
            return True
        return os.path.lexists(os.path.join(self.fixbot, rel))

    @cached_property
    def _comparable_entries(self) -> dict[str, Entry] | None:
        """`_unwritten_entries`, or None when one of them cannot be compared with W without F's
        file: a kind other than a regular file or a link (a submodule: git asks nothing of
        paths inside it of an index that has it, and fixbot's check-ignore must), or a regular
        file an attribute converts on checkout (`_converted`: F's file would not be its blob).
        Raises GitError."""
        entries = self._unwritten_entries
        if any(e.mode not in (*REGULAR, LINK) for e in entries.values()):
            return None
        regular = [rel for rel, e in entries.items() if e.mode in REGULAR]
        return None if self._converted(regular, list(entries)) else entries

    def _holds(self, rel: str, entry: Entry, target: os.stat_result, folders: Folders) -> bool:
        """True when W's `rel` (lstat `target`, read through `folders`) is F's index `entry`:
        a link whose target is the blob's bytes, or a regular file of the blob's size, exec
        bit and id (its bytes hashed; at most the blob's size read)."""
        folder, _, name = rel.rpartition("/")
        if entry.mode == LINK:
            if not stat.S_ISLNK(target.st_mode):
                return False
            try:
                text = os.readlink(name, dir_fd=folders.fd(folder))
            except (OSError, Planted):
                return False
            return blob_id(os.fsencode(text), len(entry.blob)) == entry.blob
        if not stat.S_ISREG(target.st_mode) or target.st_size != entry.size:
            return False
        if executable(target.st_mode) != (entry.mode == "100755"):
            return False
        try:
            data = read_in(folders, rel, entry.size)
        except (OSError, Planted):
            return False
        return blob_id(data, len(entry.blob)) == entry.blob

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
            _check_out(self.fixbot, "\0".join(names))

    def _differing_unwritten(self) -> list[str] | None:
        """`differing` against F's index while F's work tree is unwritten: the paths whose
        content or kind differs in W (a folder on the way planted, unreadable), each path found
        the same recorded in the manifest; None when some entry cannot be compared so
        (`_comparable_entries`). Raises GitError."""
        entries = self._comparable_entries
        if entries is None:
            return None
        found = []
        with Folders(self.workspace) as folders:
            for rel, entry in entries.items():
                try:
                    target = stat_in(folders, rel)
                except (OSError, Planted):
                    found.append(rel)
                    continue
                if target is None:
                    continue  # W lacks it: the first sync writes it
                if self._holds(rel, entry, target, folders):
                    self.manifest[rel] = Written(_blob_key(entry), _key(target))
                else:
                    found.append(rel)
        return found

    def _synced_unwritten(self) -> bool:
        """True when W holds every entry of F's index (unwritten work tree): as the manifest
        recorded it, or found so now (recorded); False as soon as one is missing or differs,
        or some entry cannot be compared without F's file. Raises GitError."""
        entries = self._comparable_entries
        if entries is None:
            return False
        with Folders(self.workspace) as folders:
            for rel, entry in entries.items():
                target = _reached(folders, rel)
                if target is None:
                    return False
                before, key = self.manifest.get(rel), _blob_key(entry)
                if before and before.fixbot == key and before.workspace == _key(target):
                    continue
                if not self._holds(rel, entry, target, folders):
                    return False
                self.manifest[rel] = Written(key, _key(target))
        return True

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
            if comparable is not None and entry is not None and written.fixbot == _blob_key(entry):
                source = _lstat(os.path.join(self.fixbot, rel))
                if source is not None:
                    written.fixbot = _key(source)
        (self.fixbot / ".git" / UNWRITTEN).unlink(missing_ok=True)
        self.unwritten = False

    def adopt(self, paths: list[str]) -> ReadBack:
        """Bring `paths` of W into F as `read_back` would (the workspace's own changes, with
        `--allow-dirty`); F's files are written first (`write_files`)."""
        self.write_files()
        result = ReadBack()
        budget = [self.max_files, self.max_bytes]
        for rel in paths:
            self._take(rel, result, budget)
        return result

    def untracked(self) -> dict[str, Key]:
        """W's files F neither has nor ignores, with their lstat keys: taken before a fix command
        so `read_back` brings back only the new files it made or changed."""
        found = {}
        for rel in self._new_files():
            info = _lstat(os.path.join(self.workspace, rel))
            if info is not None:
                found[rel] = _key(info)
        return found

    def stirred(self, before: Mapping[str, Key]) -> set[str]:
        """The new files of `before` (`untracked`, taken as a fix command starts) that appeared
        or changed since the last command ended (`settled`): no command of fixbot's ran then, so
        a process one left behind (where no PID namespace ends it) wrote them."""
        if self.settled is None:
            return set()
        return {rel for rel, key in before.items() if self.settled.get(rel) != key}

    def read_back(
        self, before: Mapping[str, Key] | None = None, stirred: set[str] | None = None
    ) -> ReadBack:
        """Bring the regular files a fix command changed in W into F, as bytes; return what came
        back and what was refused (a link, a special file, a protected path, `.git` at any
        depth, over the bounds).

        Tracked paths W deleted are deleted in F; new files count only when F's git does not
        ignore them and they are not in `before` as they are now (`untracked`, taken before the
        command), so what a check or the set-up left behind stays in W; none of `stirred`
        (`stirred`: written while no command ran) comes back. F's files are written first
        (`write_files`). Raises GitError and OSError (F).
        """
        self.write_files()
        result = ReadBack()
        budget = [self.max_files, self.max_bytes]
        for rel, was in sorted(self.manifest.items()):
            now = _lstat(os.path.join(self.workspace, rel))
            if now is not None and _key(now) == was.workspace:
                continue
            self._take(rel, result, budget)
        earlier, left = before or {}, stirred or set()
        for rel, key in self.untracked().items():
            if rel in left:
                result.refused.append((rel, "written while no fix command ran (a process left)"))
            elif earlier.get(rel) != key:
                self._take(rel, result, budget)
        return result

    def created(self) -> list[str]:
        """What the last command created in W that F neither has nor ignores: new folders as
        one entry ending in `/`, new files; for F's `.git/info/exclude`, so the set-up's
        `.venv` or `build/` never comes back nor gets committed. Raises GitError."""
        return self._new_files(folders=True)

    def _take(self, rel: str, result: ReadBack, budget: list[int]) -> None:
        """Bring W's `rel` into F within `budget` ([files, bytes] left, lowered by what is read),
        or record in `result` why not."""
        why = self.refuse(rel) if not self._private(rel) else "fixbot's own folder"
        if why:
            result.refused.append((rel, f"protected ({why})"))
            return
        try:
            info = stat_at(self.workspace, rel)
        except Planted:
            result.refused.append((rel, "a folder on its path is a link or not a folder"))
            return
        if info is None:
            if rel in self.manifest:
                remove_path(self.fixbot, rel)
                result.changed.append(rel)
            return
        data = self._read_within(rel, info, budget, result)
        if data is None or self._fixbot_holds(rel, info, data):
            return
        place(self.fixbot, rel, data, info.st_mode, None)
        result.changed.append(rel)

    def _read_within(
        self, rel: str, info: os.stat_result, budget: list[int], result: ReadBack
    ) -> bytes | None:
        """W's regular file `rel` (lstat `info`) as bytes, taken from `budget`; None, with the
        reason recorded in `result`, for another kind of file or one over the bounds or
        unreadable."""
        if not stat.S_ISREG(info.st_mode):
            result.refused.append((rel, "not a regular file (a link, a folder or a device)"))
            return None
        if budget[0] <= 0 or info.st_size > budget[1]:
            result.refused.append((rel, "over the read-back bounds"))
            return None
        try:  # the bound holds while reading: a file that grows after the lstat is cut off
            data = read_at(self.workspace, rel, budget[1], self.owner)
        except TooLarge:
            result.refused.append((rel, "over the read-back bounds"))
            return None
        except (Planted, PermissionError, OSError) as exc:
            result.refused.append((rel, f"not read ({exc})"))
            return None
        budget[0] -= 1
        budget[1] -= len(data)
        return data

    def _fixbot_holds(self, rel: str, info: os.stat_result, data: bytes) -> bool:
        """True when F's `rel` is already a regular file with `data` and `info`'s exec bit."""
        old = _lstat(os.path.join(self.fixbot, rel))
        if (
            old is None
            or not stat.S_ISREG(old.st_mode)
            or executable(old.st_mode) != executable(info.st_mode)
        ):
            return False
        with suppress(OSError):
            return read_at(self.fixbot, rel) == data
        return False

    def _ignores_itself(self, folder: str) -> bool:
        """True for a folder of W that F does not have whose own `.gitignore` says `*`, as the
        caches of ruff, pytest and mypy and a virtual environment write (git would ignore it in
        W; F's git cannot see that file)."""
        if self._has(folder):
            return False
        try:
            text = read_at(self.workspace, folder + ".gitignore", 4096, self.owner)
            return _ignores_all(text.decode(errors="replace"))
        except (OSError, Planted):
            return False

    def _new_files(self, folders: bool = False) -> list[str]:
        """Regular files in W that F neither has nor ignores (F's `.gitignore` rules, asked of
        F's git), walked without following links, pruning ignored folders level by level; with
        `folders`, a folder F does not have is one entry (`name/`), not walked."""
        found: list[str] = []
        level = [""]
        known = set(self.manifest)
        while level and len(found) <= self.max_files:
            entries = self._entries(level)
            ignored = self._ignored_entries(entries)
            if folders:
                fresh = self._fresh_folders(entries, ignored)
                found += fresh
                entries = [(rel, is_dir) for rel, is_dir in entries if rel not in fresh]
            level = [rel for rel, is_dir in entries if is_dir and rel not in ignored]
            found += self._fresh_files(entries, ignored, known)
        return found[: self.max_files + 1]

    def _entries(self, level: list[str]) -> list[tuple[str, bool]]:
        """The entries of W's `level` folders as (path, is a folder), a folder's path ending in
        `/`, links not followed, `.git` and the state folder left out; an unreadable folder
        gives none."""
        entries: list[tuple[str, bool]] = []
        for folder in level:
            with suppress(OSError), os.scandir(os.path.join(self.workspace, folder)) as it:
                for entry in it:
                    rel = f"{folder}{entry.name}"
                    if self._private(rel):
                        continue
                    is_dir = entry.is_dir(follow_symlinks=False)
                    entries.append((rel + "/" if is_dir else rel, is_dir))
        return entries

    def _ignored_entries(self, entries: list[tuple[str, bool]]) -> set[str]:
        """Those of `entries` F's git ignores, and the folders that ignore themselves."""
        if self.unwritten:
            self._write_ignore_files()
        ignored = _ignored(self.fixbot, [rel for rel, _ in entries])
        return ignored | {rel for rel, is_dir in entries if is_dir and self._ignores_itself(rel)}

    def _fresh_folders(self, entries: list[tuple[str, bool]], ignored: set[str]) -> list[str]:
        """The folders of `entries` neither ignored nor present in F."""
        return [
            rel for rel, is_dir in entries if is_dir and rel not in ignored and not self._has(rel)
        ]

    def _fresh_files(
        self, entries: list[tuple[str, bool]], ignored: set[str], known: set[str]
    ) -> list[str]:
        """The files of `entries` neither ignored, nor in the manifest (`known`), nor in F."""
        return [
            rel
            for rel, is_dir in entries
            if not is_dir and rel not in ignored and rel not in known and not self._has(rel)
        ]


@dataclass(frozen=True)
class Entry:
    """One entry of F's index: its mode (git's octal text), blob id (hex), size (bytes, -1 for
    a submodule's commit)."""

    mode: str
    blob: str
    size: int


def _blob_key(entry: Entry) -> Key:
    """The manifest's key of F's side for an index entry while F's work tree is unwritten: no
    lstat gives a size of -1, so it never matches a file's."""
    return (-1, int(entry.blob[:15], 16), 0, 0, int(entry.mode, 8))


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
    _check_out(fixbot, git.run(fixbot, "ls-files", "-z", errors=PATHS))
    marker.unlink()


def _check_out(fixbot: Path, names: str) -> None:
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


def _reached(folders: Folders, rel: str) -> os.stat_result | None:
    """The lstat of W's `rel` reached through `folders` without following a link (`stat_in`),
    or None when it is missing or a folder on its path is a link, a file or unreadable."""
    try:
        return stat_in(folders, rel)
    except (OSError, Planted):
        return None


def _file_or_link(info: os.stat_result | None) -> TypeGuard[os.stat_result]:
    """True for the lstat of a regular file or a symbolic link (not a submodule's folder)."""
    return info is not None and (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode))


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


def _ignores_all(text: str) -> bool:
    return "*" in {line.strip() for line in text.splitlines()}


def _ignored(repo: Path, paths: list[str]) -> set[str]:
    """Those of `paths` F's git ignores (`git check-ignore --stdin`)."""
    if not paths:
        return set()
    done = git.completed(
        repo, "check-ignore", "-z", "--stdin", "--no-index", stdin="\0".join(paths), errors=PATHS
    )
    if done.returncode not in (0, 1):
        raise GitError(f"git check-ignore failed: {done.stderr.strip()}")
    return {p for p in done.stdout.split("\0") if p}
