"""Memory across workflow runs: the run history, hidden in fixbot's status comment.

Pure. The history is versioned, compact JSON inside an HTML comment at the end of the status
comment (`<!-- fixbot:memory {...} -->`), so it survives the runner that wrote it. Each run
records its run id, start time, kind, outcome and attempts (failure signature, class, what the
attempt tried, files touched, whether the check passed); version 2 adds the CI runs fixbot
re-ran as suspected flakes and what the re-run showed (`Rerun`). The whole comment must stay within
GitHub's 65,536-character body limit: when the history would not fit `MEMORY_LIMIT`, the
oldest runs' attempts are summarised first, then the oldest runs dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, Field, ValidationError

from fixbot.core.models import Attempt, Outcome
from fixbot.github.events.threads import LeftOut

VERSION = 2  # 2: `History.reruns`; a version 1 block reads as version 2 without re-runs
MAX_RERUNS = 20  # re-run records kept
MEMORY_LIMIT = 24_000  # characters of the status comment kept for the history
RUNNING = "running"
DAY_S = 86_400
TRIED_CHARS = 200
_BLOCK = re.compile(r"<!-- fixbot:memory (\{.*?\}) -->", re.S)


class AttemptRecord(BaseModel):
    """One attempt: `n` its number, `sig` the failure signature (12 hex), `cls` class/category,
    `tried` what the fixer did (first line of its summary), `files` touched, `ok` check passed."""

    n: int
    sig: str | None = None
    cls: str | None = None
    tried: str = ""
    files: list[str] = Field(default_factory=list)
    ok: bool | None = None


class RunRecord(BaseModel):
    """One workflow run: `run` its id, `at` its start (Unix seconds), `kind` why it ran (fix,
    threads, retry), `out` its outcome (`running` while it runs), `attempts`, and `gist`, the
    one-line summary that replaces the attempts when the history is squeezed. Usage (version
    2, None when unknown): `secs` the run's wall time from its start to the publish (seconds;
    for a fixed run, its time to green), `tok` model tokens, `usd` model cost (USD), `n` the fix
    attempts made and `classes` their failure classes (kept when the attempts are squeezed)."""

    run: str
    at: int
    kind: str
    out: str = RUNNING
    attempts: list[AttemptRecord] = Field(default_factory=list)
    gist: str | None = None
    secs: int | None = None
    tok: int | None = None
    usd: float | None = None
    n: int | None = None
    classes: list[str] = Field(default_factory=list)


class Verdict(StrEnum):
    """What a re-run of a failed CI run showed: still `pending`; `flaky` (the same commit
    passed on the re-run); `real` (it failed again)."""

    PENDING = "pending"
    FLAKY = "flaky"
    REAL = "real"


class Rerun(BaseModel):
    """A failed CI run fixbot re-ran because its log read as transient: `run` its id, `sha`
    the commit, `why` the transient category (network, runner, ...), `at` when (Unix seconds),
    `suspects` the files the pull request changed that the failing log names, `verdict` and
    `attempt` (the attempt that settled it)."""

    run: int
    sha: str
    why: str
    at: int
    url: str | None = None  # the run's web page; `<url>/attempts/<n>` is one attempt's
    suspects: list[str] = Field(default_factory=list)
    verdict: Verdict = Verdict.PENDING
    attempt: int | None = None


class History(BaseModel):
    """Every recorded run of a pull request, oldest first, and the CI runs fixbot re-ran as
    suspected flakes (`reruns`, at most `MAX_RERUNS`, oldest first); `v` is the format
    version."""

    v: int = VERSION
    runs: list[RunRecord] = Field(default_factory=list)
    reruns: list[Rerun] = Field(default_factory=list)


def record_attempts(attempts: Iterable[Attempt]) -> list[AttemptRecord]:
    """The fix attempts (number >= 1) of a run, compacted."""
    return [
        AttemptRecord(
            n=a.number,
            sig=(a.signature or None) and str(a.signature)[:12],
            cls="/".join(str(x) for x in (a.error_class, a.category) if x) or None,
            tried=(a.summary.splitlines() or [""])[0][:TRIED_CHARS],
            files=a.files_changed[:20],
            ok=a.passed,
        )
        for a in attempts
        if a.number >= 1
    ]


def failure_classes(attempts: Iterable[Attempt], limit: int = 10) -> list[str]:
    """The failure classes (`class/category`) the run's checks saw, the initial check's first,
    each once, at most `limit`."""
    found = ["/".join(str(x) for x in (a.error_class, a.category) if x) for a in attempts]
    return list(dict.fromkeys(c for c in found if c))[:limit]


def finish(
    history: History,
    run: RunRecord,
    outcome: Outcome,
    attempts: list[Attempt],
    *,
    secs: float | None = None,
    tokens: int | None = None,
) -> History:
    """`history` with `run` (replacing a record of the same run id) marked with `outcome`, its
    wall time `secs` (seconds) and model `tokens`; the cost is `outcome.cost_usd`."""
    records = record_attempts(attempts)
    done = run.model_copy(
        update={
            "out": outcome.outcome.value,
            "attempts": records,
            "secs": None if secs is None else round(secs),
            "tok": tokens,
            "usd": outcome.cost_usd,
            "n": outcome.attempts,
            "classes": failure_classes(attempts),
        }
    )
    return add(history, done)


def add(history: History, run: RunRecord) -> History:
    """`history` with `run` appended, or put in place of the record with the same run id."""
    runs = [r for r in history.runs if r.run != run.run]
    return history.model_copy(update={"runs": [*runs, run]})


def add_rerun(history: History, rerun: Rerun) -> History:
    """`history` with `rerun` recorded (replacing a record of the same CI run), keeping the
    newest `MAX_RERUNS`."""
    kept = [r for r in history.reruns if r.run != rerun.run]
    return history.model_copy(update={"reruns": [*kept, rerun][-MAX_RERUNS:]})


def settle(history: History, run: int, passed: bool, attempt: int) -> Rerun | None:
    """The pending re-run of CI run `run` with its verdict: `flaky` when the re-run `passed`
    (same commit), `real` when it failed again; None when fixbot did not re-run it."""
    found = next((r for r in history.reruns if r.run == run), None)
    if found is None or found.verdict is not Verdict.PENDING:
        return None
    verdict = Verdict.FLAKY if passed else Verdict.REAL
    return found.model_copy(update={"verdict": verdict, "attempt": attempt})


def _encode(history: History) -> str:
    text = json.dumps(history.model_dump(exclude_defaults=False), separators=(",", ":"))
    # `>` only occurs inside JSON strings: escaping it keeps `-->` out of the HTML comment.
    return "<!-- fixbot:memory " + text.replace(">", "\\u003e") + " -->"


def _gist(run: RunRecord) -> RunRecord:
    sigs = sorted({a.sig for a in run.attempts if a.sig})
    gist = f"{len(run.attempts)} attempt(s), signatures {', '.join(sigs) or 'none'}"
    return run.model_copy(update={"attempts": [], "gist": gist})


def _squeeze(history: History) -> History | None:
    """One step smaller: summarise the oldest earlier run that still lists attempts; then drop
    the oldest run; the newest run is summarised last. None when nothing is left to cut."""
    runs = list(history.runs)
    for i, run in enumerate(runs[:-1]):
        if run.attempts:
            runs[i] = _gist(run)
            return history.model_copy(update={"runs": runs})
    if len(runs) > 1:
        return history.model_copy(update={"runs": runs[1:]})
    if runs and runs[0].attempts:
        return history.model_copy(update={"runs": [_gist(runs[0])]})
    if history.reruns:
        return history.model_copy(update={"reruns": history.reruns[1:]})
    return None


def encode(history: History, limit: int = MEMORY_LIMIT) -> str:
    """The hidden block for the status comment, at most `limit` characters."""
    current: History | None = history
    while current is not None:
        block = _encode(current)
        if len(block) <= limit:
            return block
        current = _squeeze(current)
    raise ValueError(f"an empty history does not fit in {limit} characters")


def decode(body: str) -> History:
    """The history in a status comment `body` (empty when it has none).

    Raises ValueError when the block is unreadable or from a newer fixbot.
    """
    found = _BLOCK.search(body)
    if found is None:
        return History()
    try:
        history = History.model_validate_json(found.group(1))
    except ValidationError as exc:
        raise ValueError(f"the run history in the status comment is unreadable ({exc})") from exc
    if history.v > VERSION:
        raise ValueError(f"the run history is format v{history.v}, newer than this fixbot's")
    return history.model_copy(update={"v": VERSION})  # an older block reads as this version


def strip(body: str) -> str:
    """`body` without its history block."""
    return _BLOCK.sub("", body).rstrip() + "\n"


def running(history: History, own_run: str) -> RunRecord | None:
    """The latest run recorded as still running, other than `own_run` (a re-run of itself)."""
    for run in reversed(history.runs):
        if run.out == RUNNING and run.run != own_run:
            return run
    return None


def runs_since(history: History, now: float, window_s: int = DAY_S) -> int:
    """How many recorded runs started within `window_s` seconds before `now`."""
    return sum(1 for run in history.runs if now - run.at < window_s)


def already_tried(history: History) -> list[str]:
    """One line per earlier attempt (or squeezed run), oldest first: what a retry tells the
    model not to repeat (`RunRequest.tried`)."""
    lines: list[str] = []
    for run in history.runs:
        if run.gist:
            lines.append(f"- run {run.run} ({run.out}): {run.gist}")
        for a in run.attempts:
            where = f" on {', '.join(a.files)}" if a.files else ""
            result = {True: "check passed", False: "check still failed", None: "not verified"}
            failure = f" [{a.cls} {a.sig}]" if a.sig else ""
            lines.append(
                f"- run {run.run} attempt {a.n}{failure}: {a.tried or 'no summary'}{where}"
                f" -> {result[a.ok]}"
            )
    return lines


@dataclass
class Conversation:
    """The pull request's side of a run: the history read from the status comment, this run's
    record in it, and the review threads left out of scope (with reasons)."""

    history: History = field(default_factory=History)
    record: RunRecord | None = None
    left_out: list[LeftOut] = field(default_factory=list)
