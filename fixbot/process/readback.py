"""The read-back after a fix command: the regular files a fix command changed or made in the
workspace W brought into fixbot's clone F as bytes (`ReadingBack.read_back`), the workspace's
own changes adopted (`adopt`), the new files taken before a command (`untracked`) and those a
process left behind wrote while none ran (`stirred`), and what a command created for F's
exclude file (`created`).

Never a link, a special file, a protected path, `.git` at any depth nor more than the bounds:
each is refused, with why (`ReadBack`). Every path of W is reached without following a link
(`fixbot.process.nofollow`); F's git decides what is ignored.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import git
from fixbot.process.index import PATHS
from fixbot.process.nofollow import (
    Planted,
    TooLarge,
    executable,
    place,
    read_at,
    remove_path,
    stat_at,
)
from fixbot.process.trees import Key, Trees, lstat_or_none, stat_key


@dataclass
class ReadBack:
    """The outcome of `Worlds.read_back`: the paths brought into F, and those refused (with why)."""

    changed: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


class ReadingBack(Trees):
    """The read-back, as `fixbot.process.sync.Worlds` inherits it: `Trees` that bring a fix
    command's changes in W back into F."""

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
            info = lstat_or_none(os.path.join(self.workspace, rel))
            if info is not None:
                found[rel] = stat_key(info)
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
            now = lstat_or_none(os.path.join(self.workspace, rel))
            if now is not None and stat_key(now) == was.workspace:
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
        old = lstat_or_none(os.path.join(self.fixbot, rel))
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


def _ignores_all(text: str) -> bool:
    """True when a `.gitignore`'s `text` has a line `*`."""
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
