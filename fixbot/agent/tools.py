"""The tools the model works with, confined to the repository root (see DESIGN.md).

`TOOL_SCHEMAS` are OpenAI function schemas (litellm translates them for every provider).
`Toolbox.call(name, args)` runs one tool and returns the text result for the model; every write
goes through path safety, protected paths and the test-tampering guard, and refused edits are
recorded in `refused` and never written. Results are bounded in size.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixbot.agent import paths
from fixbot.agent.editblocks import EditError, replace_once
from fixbot.agent.guard import tampering

MAX_RESULT_CHARS = 16_000
MAX_READ_LINES = 400
MAX_LIST_ENTRIES = 300
MAX_MATCHES = 80
MAX_FILE_BYTES = 1_000_000
SKIP_DIRS = {
    ".git",
    ".fixbot",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".mypy_cache",
    ".tox",
}


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


STR = {"type": "string"}
INT = {"type": "integer"}
TOOL_SCHEMAS = [
    _fn(
        "read_file",
        "Read a file with line numbers.",
        {"path": STR, "start_line": INT, "end_line": INT},
        ["path"],
    ),
    _fn("list_files", "List files under a folder (default: the root).", {"path": STR}, []),
    _fn(
        "search_code",
        "Regex search: lines 'path:line: text'.",
        {"pattern": STR, "path": STR},
        ["pattern"],
    ),
    _fn(
        "replace_in_file",
        "Replace `old` (must occur exactly once, copied exactly) by `new` in a file.",
        {"path": STR, "old": STR, "new": STR},
        ["path", "old", "new"],
    ),
    _fn(
        "write_file",
        "Create or overwrite a file with `content`.",
        {"path": STR, "content": STR},
        ["path", "content"],
    ),
    _fn(
        "finish",
        "End the attempt. `diagnosis`: your root-cause hypothesis.",
        {"summary": STR, "diagnosis": STR, "resolved_thread_ids": {"type": "array", "items": STR}},
        ["summary"],
    ),
]
REVIEW_SCHEMA = _fn(
    "submit_review",
    "Submit the review; an empty list means clean.",
    {
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": STR,
                    "line": INT,
                    "severity": {"type": "string", "enum": ["blocker", "major", "minor"]},
                    "message": STR,
                },
                "required": ["path", "severity", "message"],
            },
        }
    },
    ["findings"],
)


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


@dataclass
class Toolbox:
    """Runs tools in `repo`; records `changed` paths, `refused` reasons and the `finished` call."""

    repo: Path
    protected: Sequence[str] = (".github/workflows/**",)
    allow_test_edits: bool = False
    changed: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    finished: Finish | None = None

    def call(self, name: str, args: dict[str, Any]) -> str:
        """Run tool `name`; the result text (an error text the model can act on on failure)."""
        handler = getattr(self, f"tool_{name}", None)
        if handler is None:
            return f"Error: unknown tool '{name}'. Use one of: {', '.join(TOOL_NAMES)}."
        try:
            return bound(str(handler(**args)))
        except TypeError as exc:
            return f"Error: bad arguments for {name} ({exc}); see the tool's parameters."
        except (paths.PathRefused, EditError, re.error, OSError) as exc:
            return f"Error: {exc}"

    def tool_read_file(self, path: str, start_line: int = 1, end_line: int | None = None) -> str:
        content = read_text(paths.resolve(self.repo, path))
        if content is None:
            return f"Error: {path} does not exist; use list_files or search_code to find the file"
        lines = content.splitlines()
        start = max(1, int(start_line))
        end = min(len(lines), int(end_line) if end_line else start + MAX_READ_LINES - 1)
        body = "\n".join(f"{n:>5}| {lines[n - 1]}" for n in range(start, end + 1))
        more = f"\n[lines {end + 1}-{len(lines)} not shown]" if end < len(lines) else ""
        return f"{path} ({len(lines)} lines)\n{body}{more}"

    def tool_list_files(self, path: str = ".") -> str:
        root = self.repo.resolve() if path in ("", ".") else paths.resolve(self.repo, path)
        if not root.is_dir():
            return f"Error: {path} is not a folder"
        entries = [paths.relative(self.repo, p) for p in _walk(root)]
        extra = (
            f"\n[{len(entries) - MAX_LIST_ENTRIES} more]" if len(entries) > MAX_LIST_ENTRIES else ""
        )
        return "\n".join(entries[:MAX_LIST_ENTRIES]) + extra or "(empty)"

    def tool_search_code(self, pattern: str, path: str = ".") -> str:
        regex = re.compile(pattern)
        root = self.repo.resolve() if path in ("", ".") else paths.resolve(self.repo, path)
        hits: list[str] = []
        for file in _walk(root) if root.is_dir() else [root]:
            hits.extend(_grep(self.repo, file, regex, MAX_MATCHES - len(hits)))
            if len(hits) >= MAX_MATCHES:
                hits.append(f"[stopped at {MAX_MATCHES} matches: narrow the pattern or path]")
                break
        return "\n".join(hits) or f"no match for /{pattern}/"

    def tool_replace_in_file(self, path: str, old: str, new: str) -> str:
        target = paths.resolve(self.repo, path, self.protected, write=True)
        content = read_text(target)
        if content is None:
            return f"Error: {path} does not exist; use write_file to create it"
        return self.write(path, replace_once(content, old, new, path))

    def tool_write_file(self, path: str, content: str) -> str:
        return self.write(path, content)

    def tool_finish(
        self,
        summary: str = "",
        diagnosis: str | None = None,
        resolved_thread_ids: list[str] | None = None,
    ) -> str:
        self.finished = Finish(summary, diagnosis, list(resolved_thread_ids or []))
        return "finished"

    def write(self, path: str, new: str) -> str:
        """Write `new` to `path` after every safety check; refusals are recorded, not written."""
        try:
            target = paths.resolve(self.repo, path, self.protected, write=True)
        except paths.PathRefused as exc:
            return self.refuse(str(exc))
        old = read_text(target)
        rel = paths.relative(self.repo, target)
        reason = None if self.allow_test_edits else tampering(rel, old, new)
        if reason:
            return self.refuse(reason)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(new, encoding="utf-8")
        self.changed.add(rel)
        return f"ok: {rel} written ({len(new.splitlines())} lines)"

    def refuse(self, reason: str) -> str:
        self.refused.append(reason)
        return f"Error: {reason} Nothing was written."


TOOL_NAMES = [s["function"]["name"] for s in TOOL_SCHEMAS]


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found.extend(Path(folder) / f for f in sorted(files))
    return [p for p in found if not p.is_symlink()]


def _grep(repo: Path, file: Path, regex: re.Pattern[str], room: int) -> list[str]:
    try:
        text = read_text(file) or ""
    except EditError:
        return []
    rel = paths.relative(repo, file)
    hits = [
        f"{rel}:{n}: {line.strip()[:200]}"
        for n, line in enumerate(text.splitlines(), 1)
        if regex.search(line)
    ]
    return hits[:room]
