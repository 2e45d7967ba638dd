"""The tools the model works with, confined to the repository root (`TOOL_SCHEMAS` below).

`TOOL_SCHEMAS` are OpenAI function schemas (litellm translates them for every provider); the
arguments of each call are validated by the pydantic model of its tool (`fixbot.agent.toolargs`).
`Toolbox.call(name, args)` runs one tool and returns the text result for the model: whatever
goes wrong inside a tool (bad arguments, a refused path, an unreadable file, a regular
expression that runs too long) comes back as an `Error: ...` text, never as an exception. Every
write goes through path safety, protected paths and the test-tampering guard, and refused edits
are recorded in `refused` and never written. Results are bounded in size. Files git ignores,
secret files (`.env`, keys) and the state folder are neither read, listed nor searched.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import regex
from pydantic import ValidationError

from fixbot.agent import paths
from fixbot.agent.editblocks import EditError, replace_once
from fixbot.agent.guard import tampering
from fixbot.agent.toolargs import (
    ARGUMENTS,
    MAX_WRITE_BYTES,
    REVIEW_SCHEMA,
    TOOL_NAMES,
    TOOL_SCHEMAS,
    FinishArgs,
    ListArgs,
    ReadArgs,
    ReplaceArgs,
    SearchArgs,
    WriteArgs,
    describe,
)
from fixbot.core.errors import ConfigError
from fixbot.core.secrets import is_secret_file
from fixbot.process import git

__all__ = ["REVIEW_SCHEMA", "TOOL_NAMES", "TOOL_SCHEMAS", "Finish", "Toolbox", "read_text"]

MAX_RESULT_CHARS = 16_000
MAX_READ_LINES = 400
MAX_LIST_ENTRIES = 300
MAX_MATCHES = 80
MAX_FILE_BYTES = 1_000_000
SEARCH_SECONDS = 1.0  # limit for one search_code call (regex measures it loosely under load)
SUGGESTIONS = 3
SKIP_DIRS = {"node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"}


def bound(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """`text` cut to `limit` characters with a note saying how to see the rest."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[truncated at {limit} characters: narrow the request to see more]"


def read_text(path: Path) -> str | None:
    """The text of a file, None when it is missing; `EditError` for binary or huge files."""
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_FILE_BYTES:
        raise EditError(
            f"{path.name} is larger than {MAX_FILE_BYTES} bytes; fixbot does not edit it"
        )
    data = path.read_bytes()
    if b"\0" in data[:4096]:
        raise EditError(f"{path.name} is binary; fixbot edits text files only")
    return data.decode("utf-8", errors="replace")


@dataclass
class Finish:
    """The arguments of the model's `finish` call."""

    summary: str
    diagnosis: str | None = None
    resolved_thread_ids: list[str] = field(default_factory=list)


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """Run a read-only git command in `repo` through fixbot's one hardened git
    (`fixbot.process.git.completed`: no hooks, no fsmonitor, no secret in its environment);
    None when git is missing or slow."""
    try:
        return git.completed(repo, *args, timeout=30)
    except (OSError, subprocess.TimeoutExpired, ConfigError):
        return None


@dataclass
class Toolbox:
    """Runs tools in `repo`; records `changed` paths, `refused` reasons and the `finished` call.

    `state_dir` is the configured state folder (repository-relative), private like `.git/`;
    `check_files` the repository-relative files the check command names (`check.sh`), which
    the tampering guard keeps as they are; `modules` the project's module names, against which
    the guard judges a warning filter (`fixbot.tamper.filters`); `start` the start's run's
    per-test report (`{id: outcome}`), by which the guard lets a test every item of which it
    reported xfailed be removed (`fixbot.tamper.xfailed`).
    """

    repo: Path
    protected: Sequence[str] = (".github/**",)
    allow_test_edits: bool = False
    state_dir: str | None = None
    check_files: frozenset[str] = frozenset()
    modules: frozenset[str] = frozenset()
    start: dict[str, str] | None = None
    changed: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    finished: Finish | None = None

    def call(self, name: str, args: Any) -> str:
        """Run tool `name`; the result text (an error text the model can act on on failure)."""
        model = ARGUMENTS.get(name)
        if model is None:
            return f"Error: unknown tool '{name}'. Use one of: {', '.join(TOOL_NAMES)}."
        try:
            parsed = model.model_validate(args if args is not None else {})
            return bound(str(getattr(self, f"tool_{name}")(parsed)))
        except ValidationError as exc:
            return f"Error: bad arguments for {name}: {describe(exc)}; see the tool's parameters."
        except (paths.PathRefused, EditError, regex.error) as exc:
            return f"Error: {exc}"
        except TimeoutError:
            return (
                f"Error: the pattern ran longer than {SEARCH_SECONDS} s (catastrophic "
                "backtracking?): use a simpler pattern, e.g. a plain word"
            )
        except Exception as exc:  # the tool boundary: the model reads the error, the run goes on
            return f"Error: {name} failed ({type(exc).__name__}: {exc}); try other arguments."

    def resolve(self, path: str, *, write: bool = False) -> Path:
        """`paths.resolve` with this toolbox's protection; git-ignored files are refused too."""
        target = paths.resolve(
            self.repo, path, self.protected, write=write, state_dir=self.state_dir
        )
        if not write and target.exists() and self.ignored(target):
            raise paths.PathRefused(
                f"'{path}' is ignored by git (.gitignore): fixbot does not read ignored files, "
                "which may hold secrets or build output; read the tracked sources instead"
            )
        return target

    def ignored(self, target: Path) -> bool:
        """True when git ignores `target` (`git check-ignore`; tracked files never are)."""
        done = _git(self.repo, "check-ignore", "-q", "--", paths.relative(self.repo, target))
        return done is not None and done.returncode == 0

    def tracked(self) -> list[str]:
        """Repository-relative files git knows or would add (tracked, untracked not ignored)."""
        done = _git(self.repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        if done is None or done.returncode != 0:
            return [paths.relative(self.repo, p) for p in _walk(self.repo.resolve())]
        return sorted({name for name in done.stdout.split("\0") if name})

    def visible(self, under: Path) -> list[Path]:
        """The files under `under` the model may see: not ignored, private, secret or linked."""
        root = self.repo.resolve()
        dirs = paths.private_dirs(self.state_dir)
        found = []
        for rel in self.tracked():
            pure = PurePosixPath(rel)
            if paths.private_part(pure, dirs) or is_secret_file(pure.name):
                continue
            if SKIP_DIRS.intersection(pure.parts[:-1]):
                continue
            path = root / rel
            if path.is_relative_to(under) and path.is_file() and not path.is_symlink():
                found.append(path)
        return found

    def missing(self, path: str, hint: str) -> str:
        """The answer for a path that does not exist: the closest existing paths, if any."""
        known = [paths.relative(self.repo, p) for p in self.visible(self.repo.resolve())]
        name = PurePosixPath(path.replace("\\", "/")).name
        same_name = [k for k in known if PurePosixPath(k).name == name]
        close = difflib.get_close_matches(path, known, n=SUGGESTIONS, cutoff=0.5)
        hits = list(dict.fromkeys([*same_name, *close]))[:SUGGESTIONS]
        if hits:
            return f"Error: {path} does not exist. Did you mean: {', '.join(hits)}?"
        return f"Error: {path} does not exist; {hint}"

    def tool_read_file(self, args: ReadArgs) -> str:
        content = read_text(self.resolve(args.path))
        if content is None:
            return self.missing(args.path, "use list_files or search_code to find the file")
        lines = content.splitlines()
        start = max(1, args.start_line or 1)
        last = start + MAX_READ_LINES - 1
        end = min(len(lines), args.end_line if args.end_line is not None else last)
        body = "\n".join(f"{n:>5}| {lines[n - 1]}" for n in range(start, end + 1))
        more = f"\n[lines {end + 1}-{len(lines)} not shown]" if end < len(lines) else ""
        return f"{args.path} ({len(lines)} lines)\n{body}{more}"

    def _root(self, path: str) -> Path:
        return self.repo.resolve() if path in ("", ".", "./") else self.resolve(path)

    def tool_list_files(self, args: ListArgs) -> str:
        root = self._root(args.path)
        if root.is_file():
            return f"Error: {args.path} is a file, not a folder: read it with read_file"
        if not root.is_dir():
            return self.missing(args.path, "list_files takes a folder; try '.'")
        entries = [paths.relative(self.repo, p) for p in self.visible(root)]
        extra = (
            f"\n[{len(entries) - MAX_LIST_ENTRIES} more]" if len(entries) > MAX_LIST_ENTRIES else ""
        )
        return "\n".join(entries[:MAX_LIST_ENTRIES]) + extra or "(empty)"

    def tool_search_code(self, args: SearchArgs) -> str:
        pattern = regex.compile(args.pattern)
        root = self._root(args.path)
        if not root.exists():
            return self.missing(args.path, "search the whole repository with path '.'")
        files = self.visible(root) if root.is_dir() else [root]
        deadline = time.monotonic() + SEARCH_SECONDS
        hits: list[str] = []
        for file in files:
            hits.extend(_grep(self.repo, file, pattern, MAX_MATCHES - len(hits), deadline))
            if len(hits) >= MAX_MATCHES:
                hits.append(f"[stopped at {MAX_MATCHES} matches: narrow the pattern or path]")
                break
        return "\n".join(hits) or f"no match for /{args.pattern}/"

    def tool_replace_in_file(self, args: ReplaceArgs) -> str:
        try:
            target = self.resolve(args.path, write=True)
        except paths.PathRefused as exc:
            return self.refuse(str(exc))
        content = read_text(target)
        if content is None:
            return self.missing(args.path, "use write_file to create it")
        return self.write(args.path, replace_once(content, args.old, args.new, args.path))

    def tool_write_file(self, args: WriteArgs) -> str:
        return self.write(args.path, args.content)

    def tool_finish(self, args: FinishArgs) -> str:
        self.finished = Finish(args.summary, args.diagnosis, list(args.resolved_thread_ids))
        return "finished"

    def write(self, path: str, new: str) -> str:
        """Write `new` to `path` after every safety check; refusals are recorded, not written."""
        try:
            target = self.resolve(path, write=True)
        except paths.PathRefused as exc:
            return self.refuse(str(exc))
        size = len(new.encode("utf-8", errors="surrogatepass"))
        if size > MAX_WRITE_BYTES:
            return self.refuse(
                f"the new content of {path} is {size} bytes, over the limit of "
                f"{MAX_WRITE_BYTES} bytes: write smaller files."
            )
        if "\0" in new:
            return self.refuse(
                f"the new content of {path} holds NUL bytes: fixbot writes text files only."
            )
        old = read_text(target)
        rel = paths.relative(self.repo, target)
        reason = (
            None
            if self.allow_test_edits
            else tampering(rel, old, new, self.check_files, self.modules, self.start)
        )
        if reason:
            return self.refuse(reason)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(new, encoding="utf-8")
        self.changed.add(rel)
        return f"ok: {rel} written ({len(new.splitlines())} lines)"

    def refuse(self, reason: str) -> str:
        """Record `reason` as a refused edit; the error text for the model."""
        self.refused.append(reason)
        return f"Error: {reason} Nothing was written."


def _walk(root: Path) -> list[Path]:
    """Every regular file under `root` (used where git cannot list the files)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and d.lower() != paths.GIT_DIR)
        found.extend(Path(folder) / f for f in sorted(files))
    return [p for p in found if not p.is_symlink()]


def _grep(repo: Path, file: Path, pattern: Any, room: int, deadline: float) -> list[str]:
    """Matching lines of `file` as `path:line: text`; `TimeoutError` past `deadline`."""
    try:
        text = read_text(file) or ""
    except EditError:
        return []
    rel = paths.relative(repo, file)
    hits = []
    for n, line in enumerate(text.splitlines(), 1):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if pattern.search(line, timeout=left):
            hits.append(f"{rel}:{n}: {line.strip()[:200]}")
            if len(hits) >= room:
                break
    return hits
