"""The figures of `fixbot stats`, aggregated from parsed records. Pure.

Sources (collected by `fixbot.github.stats.source`): the run histories in fixbot's status
comments (`fixbot.github.publish.memory`: one `RunRecord` per run on a pull request, and the
CI runs re-run as suspected flakes), fixbot's pull requests and escalation issues (label
`fixbot`; a run that already has a history record is not counted twice, matched by run id),
and the `fixbot-attempt:` trailers of fixbot's commits.

Definitions: a run's *time to green* is its wall time from fixbot's start to the verified fix
(`RunRecord.secs` of a `fixed` run); *per fix* figures divide the totals of the fixed runs by
their count; the *fix rate* is fixed / (fixed + escalated); *flaky* counts CI runs whose re-run
passed on the same commit.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from fixbot.github.publish.memory import History, RunRecord, Verdict

OUTCOMES = ("fixed", "escalated", "refused", "passed", "error")
TOP_CLASSES = 5
SINCE_RE = re.compile(r"^(\d+)([hdw])$")
UNIT_S = {"h": 3600, "d": 86_400, "w": 604_800}


class Published(BaseModel):
    """A pull request or issue fixbot opened: `kind` fixed (a fix pull request) or escalated
    (a draft pull request or an issue), `run` the workflow run id named in its body, `at` when
    it was opened (Unix seconds)."""

    kind: str
    run: str | None = None
    at: int


class Records(BaseModel):
    """Everything read for one repository: the pull requests' histories, what fixbot opened,
    and its commits (Unix seconds of each)."""

    histories: list[History] = Field(default_factory=list)
    published: list[Published] = Field(default_factory=list)
    commits: list[int] = Field(default_factory=list)


class Stats(BaseModel):
    """The figures for `repo` since `since` (Unix seconds). Times in seconds, cost in USD;
    None where no run carried the figure."""

    repo: str
    since: int
    runs: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    flaky: int = 0
    real: int = 0
    fix_rate: float | None = None
    median_time_to_green_s: float | None = None
    attempts_per_fix: float | None = None
    tokens_per_fix: float | None = None
    usd_per_fix: float | None = None
    usd_total: float | None = None
    fix_commits: int = 0
    classes: list[tuple[str, int]] = Field(default_factory=list)


def parse_since(value: str, now: float) -> int:
    """The Unix time of `--since`: `30d`, `12h`, `4w`. Raises ValueError saying what to write."""
    found = SINCE_RE.match(value.strip())
    if not found:
        raise ValueError(f"--since {value!r}: write a count and a unit, like 30d, 12h or 4w")
    return int(now - int(found[1]) * UNIT_S[found[2]])


def _per_fix(values: Iterable[float | int | None], fixes: int) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / fixes if known and fixes else None


def aggregate(repo: str, records: Records, since: int) -> Stats:
    """The figures of `records` for runs that started at or after `since`."""
    runs = _runs(records, since)
    outcomes = _outcomes(runs, records.published, since)
    verdicts = _verdicts(records, since)
    stats = Stats(
        repo=repo,
        since=since,
        runs=sum(outcomes.values()),
        outcomes={k: outcomes[k] for k in OUTCOMES if outcomes[k]},
        flaky=verdicts.count(Verdict.FLAKY),
        real=verdicts.count(Verdict.REAL),
        fix_rate=_fix_rate(outcomes),
        usd_total=_usd_total(runs),
        fix_commits=sum(1 for at in records.commits if at >= since),
        classes=Counter(c for r in runs for c in r.classes).most_common(TOP_CLASSES),
    )
    _add_per_fix(stats, [r for r in runs if r.out == "fixed"])
    return stats


def _runs(records: Records, since: int) -> list[RunRecord]:
    """The finished runs of the histories that started at or after `since`."""
    return [r for h in records.histories for r in h.runs if r.at >= since and r.out != "running"]


def _outcomes(runs: list[RunRecord], published: list[Published], since: int) -> Counter[str]:
    """The runs counted by outcome, with what fixbot opened since `since` for a run no
    history records."""
    seen = {r.run for r in runs}
    outcomes = Counter(r.out for r in runs)
    for item in published:
        if item.at >= since and (item.run is None or item.run not in seen):
            outcomes[item.kind] += 1
    return outcomes


def _verdicts(records: Records, since: int) -> list[Verdict]:
    """The verdicts on the CI runs re-run as suspected flakes since `since`."""
    return [x.verdict for h in records.histories for x in h.reruns if x.at >= since]


def _usd_total(runs: list[RunRecord]) -> float | None:
    """What the runs cost in USD; None when none carried a cost."""
    costs = [r.usd for r in runs if r.usd is not None]
    return sum(costs) if costs else None


def _fix_rate(outcomes: Counter[str]) -> float | None:
    """fixed / (fixed + escalated); None when neither happened."""
    decided = outcomes["fixed"] + outcomes["escalated"]
    return outcomes["fixed"] / decided if decided else None


def _add_per_fix(stats: Stats, fixed: list[RunRecord]) -> None:
    """Set `stats`' time to green and per-fix figures from the `fixed` runs."""
    times = [r.secs for r in fixed if r.secs is not None]
    stats.median_time_to_green_s = statistics.median(times) if times else None
    stats.attempts_per_fix = _per_fix(
        (r.n if r.n is not None else len(r.attempts) for r in fixed), len(fixed)
    )
    stats.tokens_per_fix = _per_fix((r.tok for r in fixed), len(fixed))
    stats.usd_per_fix = _per_fix((r.usd for r in fixed), len(fixed))
