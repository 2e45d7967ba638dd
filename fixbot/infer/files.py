"""The repository's files as the inference reads them: regular files under the root reached
without following a link (`fixbot.process.nofollow`), at most `MAX_BYTES` each, as text.

A link, fifo or folder where a file is expected reads as missing: the inference never reads
outside the work tree, and a planted file cannot make it block or read a secret.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fixbot.process import nofollow

MAX_BYTES = 1024 * 1024  # a workflow or task file larger than this is not a real one
WORKFLOWS = ".github/workflows"


@dataclass(frozen=True)
class Files:
    """Read-only access to the repository at `root`."""

    root: Path

    def text(self, rel: str) -> str | None:
        """The file `rel` (`/`-separated, relative) as UTF-8 text, or None when it is missing,
        not a regular file, reached through a link, too large or not text."""
        try:
            data = nofollow.read_at(self.root, rel)
        except (OSError, nofollow.Planted):
            return None
        if len(data) > MAX_BYTES:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def names(self, folder: str) -> list[str]:
        """The names in `folder` (relative), sorted; empty when it is missing or a link."""
        try:
            with nofollow.parent(self.root, f"{folder}/.", create=False) as fd:
                return sorted(os.listdir(fd))
        except (OSError, nofollow.Planted):
            return []

    def workflows(self) -> dict[str, str]:
        """Every `.github/workflows/*.yml|yaml` file by its relative path, in name order."""
        found: dict[str, str] = {}
        for name in self.names(WORKFLOWS):
            if name.endswith((".yml", ".yaml")):
                text = self.text(f"{WORKFLOWS}/{name}")
                if text is not None:
                    found[f"{WORKFLOWS}/{name}"] = text
        return found
