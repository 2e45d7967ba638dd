"""Path safety: every path a model names is resolved against the repository root.

Refused, for reading and writing: absolute paths (`/x`, `~`, `C:`), `..`, NUL bytes and line
breaks (a file name must not carry a log line), anything that resolves outside the repository
(through a symlink, or a symlink loop), `.git/`, the state folder (the configured `state-dir`
and the default `.fixbot`) and secret files (`.env*`, keys, `.netrc`, `.npmrc`, ...:
`fixbot.core.secrets.is_secret_file`). Refused for writing only: the `protected-paths` globs.
Folder names and globs are compared case-insensitively: on a case-insensitive file system
(macOS, Windows) `.GIT/hooks` is `.git/hooks`. Refusals raise `PathRefused` with a message the
model can act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path, PurePosixPath

from fixbot.core.secrets import DEFAULT_STATE_DIR, is_secret_file

GIT_DIR = ".git"
CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


class PathRefused(ValueError):
    """The model named a path it may not use; the message says what to do instead."""


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a gitignore-like glob: `**` spans folders, `*` and `?` stay within one.

    Matching ignores case (a protected `.github/workflows/**` also covers `.GitHub/Workflows`).
    """
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
    return re.compile("".join(out) + r"\Z", re.IGNORECASE | re.DOTALL)


def is_protected(rel: str, patterns: Sequence[str]) -> str | None:
    """The first pattern of `patterns` matching the repository-relative POSIX path `rel`."""
    return next((p for p in patterns if glob_regex(p).match(rel)), None)


def private_dirs(state_dir: str | None = None) -> tuple[str, ...]:
    """The repository-relative folders fixbot never reads or edits, lower-cased.

    `.git`, the default state folder `.fixbot` and the configured `state_dir` (a path relative
    to the repository, e.g. `.cache/fixbot`; an absolute one outside the repository adds
    nothing, the resolve check keeps the model inside the repository anyway).
    """
    dirs = [GIT_DIR, DEFAULT_STATE_DIR]
    if state_dir:
        clean = PurePosixPath(state_dir.replace("\\", "/").strip())
        if not clean.is_absolute() and ".." not in clean.parts and clean.parts:
            dirs.append(clean.as_posix().removeprefix("./"))
    return tuple(dict.fromkeys(d.lower() for d in dirs))


def private_part(rel: PurePosixPath, dirs: Iterable[str]) -> str | None:
    """The private folder (`.git`, the state folder) that `rel` is inside, or None."""
    lowered = [part.lower() for part in rel.parts]
    for private in dirs:
        parts = private.split("/")
        if len(parts) == 1 and parts[0] in lowered:
            return private
        if lowered[: len(parts)] == parts:
            return private
    return None


def _lexical(raw: str) -> PurePosixPath:
    if "\0" in raw:
        raise PathRefused("the path contains a NUL byte: give a plain relative path")
    if CONTROL.search(raw):
        raise PathRefused(
            "the path contains a line break or control character: give a plain relative path"
        )
    text = raw.strip().replace("\\", "/")
    if not text or text in (".", "./"):
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


def _check_private(rel: PurePosixPath, raw: str, dirs: Sequence[str]) -> None:
    private = private_part(rel, dirs)
    if private:
        raise PathRefused(f"'{raw}' is inside {private}/, which fixbot never reads or edits")
    if is_secret_file(rel.name):
        raise PathRefused(
            f"'{raw}' looks like a secret file (keys, passwords, .env): fixbot never reads or "
            "edits it; work from the code that uses it instead"
        )


def resolve(
    repo: Path,
    raw: str,
    protected: Sequence[str] = (),
    *,
    write: bool = False,
    state_dir: str | None = None,
) -> Path:
    """The absolute path of the repository-relative `raw`, or `PathRefused` with the reason.

    `state_dir` is the configured state folder (repository-relative), refused like `.git/`.
    """
    dirs = private_dirs(state_dir)
    rel = _lexical(raw)
    _check_private(rel, raw, dirs)
    root = repo.resolve()
    try:
        target = (root / rel).resolve()
    except (RuntimeError, OSError) as exc:  # a symlink loop (RuntimeError before Python 3.13)
        raise PathRefused(f"'{raw}' cannot be resolved ({exc}): use another path") from exc
    if not target.is_relative_to(root):
        raise PathRefused(
            f"'{raw}' leads outside the repository (through a symbolic link); "
            "edit the files inside the repository instead"
        )
    real_rel = PurePosixPath(target.relative_to(root).as_posix())
    _check_private(real_rel, raw, dirs)
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
