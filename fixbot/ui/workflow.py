"""Workflow commands and files of a GitHub Actions step: outputs, summary, annotations, masks.

Source: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
(`GITHUB_OUTPUT` with a heredoc delimiter for multiline values, `GITHUB_STEP_SUMMARY` limited to
1 MiB per step, `::error file=,line=::`, `::add-mask::`, `::group::`).

The runner reads every line of a step's stdout and stderr that starts with `::` (after
whitespace) as a command, so untrusted text (file names, check output, model summaries) is
never printed raw: command data and properties are escaped (`%25`, `%0D`, `%0A`; `%3A`, `%2C`
in properties) and a plain log line goes through `plain_line` (line breaks shown as `\n`, a
leading `::` defused). fixbot never copies the check's output to the log (it goes to a file).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel

from fixbot.core.errors import ConfigError

SUMMARY_LIMIT_BYTES = 1024 * 1024  # GitHub refuses a step summary over 1 MiB
SUMMARY_MARGIN_BYTES = 4096  # room for the truncation note
MAX_ANNOTATIONS = 10  # GitHub shows at most 10 error annotations per step
_LOCATION = re.compile(r"^(?P<path>[\w./-]+\.\w+):(?P<line>\d+)(?::(?P<col>\d+))?:?\s*(?P<msg>.*)$")


class Annotation(BaseModel):
    """An `::error::` annotation; `path` is relative to the repository root."""

    path: str
    line: int
    column: int | None = None
    message: str


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


# Where .NET's `ReadLine` (the runner) or Python's `splitlines` may start a new line.
_BREAKS = {ord(c): c.encode("unicode_escape").decode("ascii") for c in "\r\n\v\f\x1c\x1d\x1e\x85"}
_BREAKS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


def plain_line(text: str) -> str:
    """`text` as one log line the runner never reads as a workflow command.

    Line breaks become visible escapes (`\\n`); a line that would start with `::` gets `> `.
    """
    flat = text.translate(_BREAKS)
    return "> " + flat if flat.lstrip().startswith("::") else flat


def mask(value: str, out: TextIO) -> None:
    """Ask the runner to hide `value` in every later log line (`::add-mask::`).

    A multi-line value is masked line by line, as GitHub advises (the log is matched per line).
    """
    for line in dict.fromkeys([value, *value.splitlines()]):
        if line.strip():
            out.write(f"::add-mask::{_escape_data(line)}\n")


def error(message: str, out: TextIO, title: str | None = None) -> None:
    """Write an `::error::` annotation without a location."""
    prop = f" title={_escape_property(title)}" if title else ""
    out.write(f"::error{prop}::{_escape_data(message)}\n")


def warning(message: str, out: TextIO, title: str | None = None) -> None:
    """Write a `::warning::` annotation without a location."""
    prop = f" title={_escape_property(title)}" if title else ""
    out.write(f"::warning{prop}::{_escape_data(message)}\n")


def annotate(annotation: Annotation, out: TextIO) -> None:
    """Write an `::error file=,line=[,col=]::` annotation."""
    props = f"file={_escape_property(annotation.path)},line={annotation.line}"
    if annotation.column is not None:
        props += f",col={annotation.column}"
    out.write(f"::error {props}::{_escape_data(annotation.message)}\n")


def group(title: str, out: TextIO) -> None:
    """Open a collapsible log group (`::group::`); close it with `endgroup`."""
    out.write(f"::group::{_escape_data(title)}\n")


def endgroup(out: TextIO) -> None:
    """Close the log group opened by `group`."""
    out.write("::endgroup::\n")


def format_outputs(values: Mapping[str, str]) -> str:
    """Render outputs for `GITHUB_OUTPUT`, each as `name<<DELIM ... DELIM` (multiline-safe).

    The delimiter is random and checked not to occur in the value, as GitHub advises.
    """
    parts: list[str] = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
        while delimiter in value:  # pragma: no cover - 64 random bits
            delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
        parts.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(parts)


def open_step_file(path: Path) -> TextIO:
    """Open the runner's step file at `path` (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`) to append,
    never through a link the project's commands put in its place (a link to /etc/passwd would
    be written as root).

    The file is opened with `O_NOFOLLOW` (open(2): a symlink in the last component fails with
    ELOOP) and kept only when it is a regular file with one link (a hard link to a file of
    root's is refused too), owned by fixbot's uid, root, or the owner of its folder (the
    runner's user, who created it). Raises `ConfigError` saying which check failed.
    """
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(
                [f"{path} is a symbolic link: fixbot does not write through it"]
            ) from None
        raise
    info = os.fstat(fd)
    try:
        folder_owner = path.parent.stat().st_uid
    except OSError:
        folder_owner = os.geteuid()
    problem = (
        "is not a regular file"
        if not stat.S_ISREG(info.st_mode)
        else "has more than one link"
        if info.st_nlink != 1
        else "belongs to another user"
        if info.st_uid not in {os.geteuid(), 0, folder_owner}
        else ""
    )
    if problem:
        os.close(fd)
        raise ConfigError([f"{path} {problem}: fixbot does not write to it"])
    return os.fdopen(fd, "a", encoding="utf-8")


def write_outputs(path: Path, values: Mapping[str, str]) -> None:
    """Append the outputs to the `GITHUB_OUTPUT` file at `path` (see `open_step_file`)."""
    with open_step_file(path) as handle:
        handle.write(format_outputs(values))


def bound_summary(markdown: str, pointer: str, limit: int = SUMMARY_LIMIT_BYTES) -> str:
    """Cut `markdown` so that it fits `limit` bytes (UTF-8), ending with `pointer` when cut."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    keep = data[: limit - SUMMARY_MARGIN_BYTES].decode("utf-8", errors="ignore")
    return keep + f"\n\n**[truncated: the summary is limited to 1 MiB]** {pointer}\n"


def write_summary(path: Path, markdown: str, pointer: str) -> None:
    """Append `markdown` to the `GITHUB_STEP_SUMMARY` file at `path`, bounded to 1 MiB in all."""
    used = path.lstat().st_size if path.exists() else 0
    text = bound_summary(
        markdown, pointer, max(SUMMARY_MARGIN_BYTES * 2, SUMMARY_LIMIT_BYTES - used)
    )
    with open_step_file(path) as handle:
        handle.write(text)


def find_annotations(
    log: str, known_paths: Iterable[str], limit: int = MAX_ANNOTATIONS
) -> list[Annotation]:
    """Annotations for lines of a check log that start with `path:line[:col]:`.

    Only paths in `known_paths` (repository-relative, e.g. `git ls-files`) are kept, so a path
    inside a virtualenv or the standard library never becomes an annotation. Duplicates are
    dropped; at most `limit` are returned.
    """
    known = set(known_paths)
    found: list[Annotation] = []
    seen: set[tuple[str, int]] = set()
    for raw in log.splitlines():
        match = _LOCATION.match(raw.strip())
        if not match or match["path"].removeprefix("./") not in known:
            continue
        key = (match["path"].removeprefix("./"), int(match["line"]))
        if key in seen:
            continue
        seen.add(key)
        col = int(match["col"]) if match["col"] else None
        found.append(Annotation(path=key[0], line=key[1], column=col, message=match["msg"] or raw))
        if len(found) >= limit:
            break
    return found
