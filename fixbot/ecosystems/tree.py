"""A repository's folders, walked once and bounded, without installed packages or build output.

The missing-dependency reading asks an ecosystem whether the repository holds a name
(`base.Ecosystem.holds`); the ecosystem looks through a `Tree` the registry made, which skips
what every ecosystem calls generated (`node_modules`, `.venv`, `target`, ...).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.repofiles import regular_text

MAX_ENTRIES = 50_000  # a bounded walk: a huge tree answers "not found" rather than stall

Folder = tuple[Path, list[str], list[str]]  # (folder, its sub-folders, its files), as os.walk


@dataclass
class Tree:
    """The repository at `root`, its folders walked on first use (none named in `skip`, none
    hidden), at most `MAX_ENTRIES` entries."""

    root: Path
    skip: frozenset[str]
    _folders: list[Folder] | None = field(default=None, repr=False)

    def folders(self) -> list[Folder]:
        """The walked folders, in `os.walk` order with sorted sub-folders (walked once)."""
        if self._folders is None:
            self._folders = self._walk()
        return self._folders

    def _walk(self) -> list[Folder]:
        found: list[Folder] = []
        seen = 0
        for root, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in self.skip and not d.startswith("."))
            found.append((Path(root), dirs, files))
            seen += len(dirs) + len(files)
            if seen > MAX_ENTRIES:
                break
        return found

    def read(self, relative: str | Path) -> str:
        """The text of the file at `relative` under `root` ("" when it is no regular file inside
        `root` or over `repofiles.MAX_TEXT_BYTES`: `repofiles.regular_text`)."""
        return regular_text(self.root, self.root / relative) or ""
