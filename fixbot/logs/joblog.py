"""Clean a CI job log into the failing step's output: the first failing run of a loop seeded
from a log (`fixbot run --from-log FILE`, `--from-run`, and the Action on `workflow_run`).

Pure functions over text, but `read_log` (it reads the file or standard input). GitHub Actions
job logs (the REST API's `GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs`, the web UI's
raw log) prefix every line with an ISO 8601 timestamp (`2024-03-01T10:00:12.1234567Z `), mark
steps and folds with workflow commands (`##[group]Run pytest -q`, `##[endgroup]`, `##[error]...`,
`##[warning]...`) and end with post-job clean-up steps; the GitHub CLI's failed-jobs log adds
a `job<TAB>step<TAB>` prefix (https://cli.github.com/manual/gh_run_view). `clean_log` keeps the
failing step's own output without that noise; a log from anywhere else (a terminal, another CI)
passes through unchanged but for trailing whitespace.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import IO, TextIO

from pydantic import BaseModel

from fixbot.core.errors import ConfigError
from fixbot.core.failure import Classification
from fixbot.logs.classify import classify
from fixbot.logs.condense import condense_text

TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?")
GH_PREFIX_RE = re.compile(r"^([^\t\n]*)\t([^\t\n]*)\t(?=\d{4}-\d{2}-\d{2}T)")
MARKER_RE = re.compile(r"^##\[(group|endgroup|error|warning|notice|debug|command|section)\]")
EXIT_RE = re.compile(r"^Process completed with exit code (-?\d+)\.?$")
# A job log's failure is near its end (the failed step, then "Process completed with exit code");
# a `--from-log` file larger than this keeps only its last bytes, so no log fills the memory.
MAX_LOG_BYTES = 64 * 1024 * 1024
CHUNK_BYTES = 1024 * 1024
STEP_HEADER = "Run "
POST_STEP = "Post job cleanup."
ORPHANS = "Cleaning up orphan processes"


class CleanLog(BaseModel):
    """A job log cleaned to the failing step's output.

    `text` has no timestamps or `##[...]` markers; `job` and `step` are the names the log itself
    carries (the GitHub CLI's failed-jobs log columns), `command` the failing step's `Run ...`
    header, `exit_code` the runner's "Process completed with exit code N"; None where absent.
    `dropped_lines` counts the lines left out (set-up, earlier steps, markers, clean-up).
    """

    text: str
    job: str | None = None
    step: str | None = None
    command: str | None = None
    exit_code: int | None = None
    dropped_lines: int = 0


class _Line(BaseModel):
    text: str
    marker: str | None = None
    job: str | None = None
    step: str | None = None


def _parse_line(raw: str) -> _Line:
    text = raw.lstrip("\ufeff").rstrip()
    job = step = None
    if found := GH_PREFIX_RE.match(text):
        job, step = found[1] or None, found[2] or None
        text = text[found.end() :]
    text = TIMESTAMP_RE.sub("", text, count=1)
    marker = MARKER_RE.match(text)
    if marker is None:
        return _Line(text=text, job=job, step=step)
    return _Line(text=text[marker.end() :], marker=marker[1], job=job, step=step)


def _failing_span(lines: list[_Line]) -> tuple[int, int]:
    """[start, end) of the failing step: from the `Run ...` group before the first error to
    the post-job clean-up after the last one; the whole log when it marks no error."""
    errors = [i for i, line in enumerate(lines) if line.marker == "error"]
    if not errors:
        return 0, len(lines)
    headers = [
        i
        for i, line in enumerate(lines[: errors[0]])
        if line.marker == "group" and line.text.startswith(STEP_HEADER)
    ]
    start = headers[-1] if headers else 0
    end = next(
        (i for i in range(errors[-1] + 1, len(lines)) if lines[i].text in (POST_STEP, ORPHANS)),
        len(lines),
    )
    return start, end


def _exit_code(lines: list[_Line]) -> int | None:
    codes = [EXIT_RE.match(line.text) for line in lines if line.marker == "error"]
    found = [int(code[1]) for code in codes if code]
    return found[-1] if found else None


def clean_log(raw: str) -> CleanLog:
    """Clean a job log (see the module docstring); `raw` may be any text, even empty.

    Kept: the failing step's lines without timestamps, with `##[error]`/`##[warning]` prefixes
    removed (their messages are the tool's own words). Dropped: `##[endgroup]`/`##[debug]`
    lines, the runner's "Process completed with exit code N." (its N is `exit_code`), the
    set-up and earlier steps' output, and the post-job clean-up.
    """
    lines = [_parse_line(raw_line) for raw_line in raw.splitlines()]
    start, end = _failing_span(lines)
    span = lines[start:end]
    kept = [line.text for line in span if _kept(line)]
    while kept and not kept[-1].strip():
        kept.pop()
    job, step = _names(span)
    return CleanLog(
        text="\n".join(kept),
        job=job,
        step=step,
        command=_step_command(span),
        exit_code=_exit_code(span),
        dropped_lines=len(lines) - len(kept),
    )


def _names(span: list[_Line]) -> tuple[str | None, str | None]:
    """The job and step named by the first line of `span` that names either."""
    named = next((line for line in span if line.job or line.step), None)
    return (named.job, named.step) if named else (None, None)


def _kept(line: _Line) -> bool:
    """Not a group's end, a debug line, or the runner's "Process completed with exit code N."."""
    if line.marker in ("endgroup", "debug"):
        return False
    return not (line.marker == "error" and EXIT_RE.match(line.text))


def _step_command(span: list[_Line]) -> str | None:
    """The command the step's header (its opening group line) names, if it names one."""
    header = span[0] if span and span[0].marker == "group" else None
    if header is None or not header.text.startswith(STEP_HEADER):
        return None
    return header.text.removeprefix(STEP_HEADER).strip()


class FirstFailure(BaseModel):
    """A failure log from elsewhere, used as the loop's first failing run (no initial check).

    `text` is the cleaned log (the engine writes it as attempt 0's check log and digests it);
    `source` says where it came from, for the report ("job `test`, step `Run pytest` of run
    123"); `job` and `step` are shown in the summary and the report when known.
    """

    text: str
    source: str
    job: str | None = None
    step: str | None = None
    exit_code: int | None = None
    commit: str | None = None  # the commit the log was made at (hex, maybe abbreviated)


# actions/checkout prints the commit it checked out: `HEAD is now at 1a2b3c4 title` (git's own
# words) and the sha under its `git log -1 --format=%H` (quoted in older versions)
CHECKED_OUT_RES = (
    re.compile(
        r"git log -1 --format=['\"]?%H['\"]?[ \t]*\n[^\n]*?'?\b(?P<sha>[0-9a-f]{40})'?[ \t]*$", re.M
    ),
    re.compile(r"\bHEAD is now at (?P<sha>[0-9a-f]{7,40})\b"),
)


def logged_commit(raw: str) -> str | None:
    """The commit a CI job log says it checked out (the last one it names), or None."""
    for pattern in CHECKED_OUT_RES:
        found = [m["sha"] for m in pattern.finditer(raw)]
        if found:
            return found[-1]
    return None


def same_commit(logged: str | None, sha: str) -> bool:
    """True when the log's commit `logged` (7 to 40 hex digits) is `sha`; False when unknown."""
    return (
        bool(logged) and len(logged or "") >= 7 and sha.lower().startswith((logged or "").lower())
    )


def from_text(raw: str, source: str) -> FirstFailure:
    """The `FirstFailure` of a log given as text (`--from-log`), cleaned by `clean_log`, with
    the commit the log names (`logged_commit`)."""
    log = clean_log(raw)
    return FirstFailure(
        text=log.text,
        source=source,
        job=log.job,
        step=log.step,
        exit_code=log.exit_code,
        commit=logged_commit(raw),
    )


def tail_bytes(stream: IO[bytes] | IO[str], limit: int = MAX_LOG_BYTES) -> bytes:
    """The last `limit` bytes of `stream` (text streams are encoded as UTF-8), read in chunks."""
    kept = bytearray()
    while chunk := stream.read(CHUNK_BYTES):
        kept += chunk.encode("utf-8") if isinstance(chunk, str) else chunk
        if len(kept) > limit:
            del kept[: len(kept) - limit]
    return bytes(kept)


def read_log(path: str, stdin: TextIO | None = None) -> FirstFailure:
    """The `FirstFailure` of `--from-log PATH` (`-`: standard input). Raises `ConfigError`.

    Read streamed: only the last `MAX_LOG_BYTES` bytes are kept.
    """
    try:
        if path == "-":
            source = stdin or sys.stdin
            raw = tail_bytes(getattr(source, "buffer", None) or source).decode("utf-8", "replace")
        else:
            with Path(path).open("rb") as stream:
                raw = tail_bytes(stream).decode("utf-8", "replace")
    except OSError as exc:
        raise ConfigError(
            [f"--from-log {path}: cannot read the log ({exc.strerror or exc})"]
        ) from exc
    first = from_text(raw, "standard input" if path == "-" else f"`{path}`")
    if not first.text.strip():
        raise ConfigError([f"--from-log {path}: the log is empty; pass the failed run's output"])
    return first


def classify_first(first: FirstFailure) -> Classification:
    """Classify a given failure log like a check's (`fixbot.logs.condense`,
    `fixbot.logs.classify`)."""
    return classify(condense_text(first.text), exit_code=first.exit_code, timed_out=False)
