"""The workspace's files kept equal to fixbot's clone: `Worlds` makes the workspace's tracked
files equal to fixbot's clone before each project command, and reads back what a fix command
changed (`fixbot.process.worlds` has the design: fixbot's clone, its private folder and git
configuration).

Every path is reached without following a link (`fixbot.process.nofollow`): a link, file or
fifo the commands planted on the way is replaced (writing) or refused (reading), never followed.

fixbot's clone may start with its work tree unwritten (`index.clone_unwritten`, the marker
`index.UNWRITTEN`): every index entry skip-worktree, so git takes a missing file for HEAD's.
`Worlds` then compares W with the index's blobs (W's files hashed, at most each blob's size
read; links by their target) and writes F's files (`Worlds.write_files`) the first time that
cannot answer: an entry an attribute converts, a submodule, a tracked path W lacks or changed,
a command's changes to bring back. The run's steps other than the set-up, the check and a green
ending write them first too (`fixbot.run.executor`).

This module is the first comparison (`Worlds.differing`: the workspace's own changes, W's files
hashed against F's index) and the sync before each command (`Worlds.to_workspace`, `touched`);
the read-back after a fix command is `fixbot.process.readback`, the state they share and F's
files written once `fixbot.process.trees`, F's index `fixbot.process.index`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import TypeGuard

from fixbot.process.index import LINK, Entry, blob_id, index_blobs
from fixbot.process.nofollow import (
    Folders,
    Planted,
    executable,
    place,
    read_at,
    read_in,
    remove_path,
    stat_in,
)
from fixbot.process.readback import ReadingBack
from fixbot.process.trees import Written, blob_key, lstat_or_none, stat_key


class Worlds(ReadingBack):
    """fixbot's clone F and the workspace W the commands run in, kept equal: made with
    `Trees`' fields (where the two are, who owns W's files, what may not come back, the
    read-back's bounds), read back by `ReadingBack`, compared and synced here."""

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
                source = lstat_or_none(fixbot + rel)
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
                written = lstat_or_none(workspace + rel)
                assert written is not None
                self.manifest[rel] = Written(stat_key(source), stat_key(written))
        for rel in sorted(set(self.manifest) - wanted):
            remove_path(self.workspace, rel)
            del self.manifest[rel]
            done += 1
        return done

    def _as_synced(self, rel: str, source: os.stat_result, target: os.stat_result | None) -> bool:
        """True when F's `source` and W's `target` lstat as the last sync of `rel` left them."""
        before = self.manifest.get(rel)
        return bool(
            before
            and target
            and before.fixbot == stat_key(source)
            and before.workspace == stat_key(target)
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
                now = lstat_or_none(os.path.join(self.workspace, rel))
                if now is not None and stat_key(now) == before.workspace:
                    continue
                if entries is not None:
                    entry = entries.get(rel)
                    if now is None or entry is None or not self._holds(rel, entry, now, folders):
                        found.append(rel)
                    continue
                source = lstat_or_none(os.path.join(self.fixbot, rel))
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
        blobs = index_blobs(self.fixbot)
        with Folders(self.workspace) as folders:
            return self._compare(blobs, folders)

    def _compare(self, blobs: Mapping[str, str], folders: Folders) -> list[str]:
        """`differing`'s comparison, W's files read through `folders`."""
        found = []
        for rel in self.tracked():
            source = lstat_or_none(os.path.join(self.fixbot, rel))
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
                self.manifest[rel] = Written(stat_key(source), stat_key(target))
        return found

    def _same_as_blob(
        self,
        rel: str,
        source: os.stat_result,
        target: os.stat_result,
        blobs: Mapping[str, str],
        folders: Folders,
    ) -> bool:
        """`_same`, with W's regular file hashed as a git blob and compared with F's blob id
        (`index.index_blobs`) instead of reading F's file too, where F's bytes are that blob."""
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

    # F's work tree unwritten (`trees.Trees`): W compared with and kept equal to F's index

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
                    self.manifest[rel] = Written(blob_key(entry), stat_key(target))
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
                before, key = self.manifest.get(rel), blob_key(entry)
                if before and before.fixbot == key and before.workspace == stat_key(target):
                    continue
                if not self._holds(rel, entry, target, folders):
                    return False
                self.manifest[rel] = Written(key, stat_key(target))
        return True


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
