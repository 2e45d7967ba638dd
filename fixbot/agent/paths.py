"""Path safety: every path a model names is resolved against the repository root.

Refused, for reading and writing: absolute paths, `..`, anything that resolves outside the
repository (through a symlink), `.git/` and `.fixbot/`. Refused for writing only: the
`protected-paths` globs (default `.github/workflows/**`). Refusals raise `PathRefused` with a
message the model can act on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

PRIVATE_DIRS = (".git", ".fixbot")


class PathRefused(ValueError):
    """The model named a path it may not use; the message says what to do instead."""


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a gitignore-like glob: `**` spans folders, `*` and `?` stay within one."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            out.append({"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)))
            i += 1
    return re.compile("".join(out) + r"\Z")


def is_protected(rel: str, patterns: Sequence[str]) -> str | None:
    """The first pattern of `patterns` matching the repository-relative POSIX path `rel`."""
    return next((p for p in patterns if glob_regex(p).match(rel)), None)


def _lexical(raw: str) -> PurePosixPath:
    text = raw.strip().replace("\\", "/")
    if not text:
        raise PathRefused(
            "empty path: give a path relative to the repository root, e.g. src/app.py"
        )
    path = PurePosixPath(text)
    if path.is_absolute() or text.startswith("~") or re.match(r"^[A-Za-z]:", text):
        raise PathRefused(
            f"'{raw}' is absolute: only files inside the repository can be used; "
            "give a path relative to the repository root, e.g. src/app.py"
        )
    if ".." in path.parts:
        raise PathRefused(f"'{raw}' contains '..': give a path inside the repository root")
    return path


def _check_private(rel: PurePosixPath, raw: str) -> None:
    for part in rel.parts:
        if part in PRIVATE_DIRS:
            raise PathRefused(f"'{raw}' is inside {part}/, which fixbot never reads or edits")


def resolve(repo: Path, raw: str, protected: Sequence[str] = (), *, write: bool = False) -> Path:
    """The absolute path of the repository-relative `raw`, or `PathRefused` with the reason."""
    rel = _lexical(raw)
    _check_private(rel, raw)
    root = repo.resolve()
    target = (root / rel).resolve()
    if not target.is_relative_to(root):
        raise PathRefused(
            f"'{raw}' leads outside the repository (through a symbolic link); "
            "edit the files inside the repository instead"
        )
    real_rel = PurePosixPath(target.relative_to(root).as_posix())
    _check_private(real_rel, raw)
    if write:
        for name in {rel.as_posix(), real_rel.as_posix()}:
            pattern = is_protected(name, protected)
            if pattern:
                raise PathRefused(
                    f"'{raw}' is protected (matches '{pattern}'): fixbot may not edit it; "
                    "fix the code instead, or describe the change needed in your summary"
                )
    return target


def relative(repo: Path, path: Path) -> str:
    """The repository-relative POSIX form of an absolute path under `repo`."""
    return path.relative_to(repo.resolve()).as_posix()
