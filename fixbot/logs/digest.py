"""Digest a check result into a `Failure`: condensed log, signature, class, counts, locations,
and the structure of the whole log (summary lines, failing tests, distinct failures)."""

from __future__ import annotations

from pathlib import Path

from fixbot.core.failure import CheckResult, Counts, Failure, Location
from fixbot.logs.classify import classify
from fixbot.logs.condense import condense_file
from fixbot.logs.facts import LogFacts, collect_file
from fixbot.logs.missing import refine
from fixbot.logs.signature import (
    failing_tests,
    failure_signature,
    parse_counts,
    parse_locations,
    timeout_signature,
)

MAX_LOCATIONS = 60


def digest(result: CheckResult, repo: Path | None = None) -> Failure:
    """Digest `result` (its log is read from `result.log_path` twice, streamed and bounded: once
    condensed, once for its facts, see `fixbot.logs.facts`).

    `repo` makes locations repository-relative and removes the repository's absolute path from
    the signature, so the same failure has the same signature in another checkout, and tells
    a missing dependency from a missing module of the code (`fixbot.logs.missing.refine`).
    A timed-out run gets `timeout_signature`. Raises OSError when the log cannot be read.
    """
    facts = LogFacts()
    condensed = condense_file(result.log_path, on_diagnostic=facts.add_diagnostic)
    collect_file(result.log_path, facts)
    return from_facts(result, condensed, facts, repo)


def from_facts(
    result: CheckResult, condensed: str, facts: LogFacts, repo: Path | None = None
) -> Failure:
    """The `Failure` of `result` from its condensed log and the facts of its whole log."""
    tests = facts.failing_tests() or failing_tests(condensed)
    if result.timed_out:
        signature = timeout_signature(condensed, repo=repo)
    else:
        signature = failure_signature(condensed, repo=repo, tests=tests)
    classification = classify(condensed, exit_code=result.exit_code, timed_out=result.timed_out)
    if repo is not None:  # a missing package or a missing module of the code: the files tell
        classification = refine(classification, condensed, repo, exit_code=result.exit_code)
    return Failure(
        condensed=condensed,
        signature=signature,
        classification=classification,
        counts=_counts(facts, condensed, failed=result.exit_code != 0 or result.timed_out),
        locations=_locations(facts, condensed, repo),
        failing_tests=tests,
        summary=list(facts.summary),
        failing_total=max(facts.tests_total, len(tests)),
        diagnostics=list(facts.diagnostics),
        diagnostics_total=facts.diagnostics_total,
        groups=list(facts.groups.values()),
        other_groups=facts.other_groups + facts.unanalysed,
    )


def passed_counts(result: CheckResult) -> Counts:
    """The counts of a green run's whole log (every summary and per-test line, streamed as
    `digest` reads a failed run's), the tail's when the log holds none or cannot be read.

    The whole log, not its tail: the first failing run's counts come from its whole log, and a
    runner that reports per test (go test -json: one line per test, no total) would otherwise
    count only the tests whose lines reached the tail, fewer than the failing run counted."""
    facts = LogFacts()
    try:
        collect_file(result.log_path, facts)
    except OSError:
        return parse_counts(result.tail)
    counts = facts.counts()
    return counts if counts.model_dump(exclude_none=True) else parse_counts(result.tail)


def _counts(facts: LogFacts, condensed: str, *, failed: bool) -> Counts:
    """The whole log's counts; the condensed log's when the facts found no summary.

    A check that `failed` whose summaries add up to no failed test and no error (`ruff check
    . && pytest` where ruff passed and pytest crashed before its summary) did not say what
    failed: its failures are unknown, never 0, so no broken tree reads as the best one.
    """
    counts = facts.counts()
    counts = counts if counts.model_dump(exclude_none=True) else parse_counts(condensed)
    return of_failed_check(counts) if failed else counts


def of_failed_check(counts: Counts) -> Counts:
    """`counts` of a check that failed: failed and errors unknown (None) when they add up to
    0, since the summaries found then did not say what failed."""
    if counts.problems == 0:
        return counts.model_copy(update={"failed": None, "errors": None})
    return counts


def _locations(facts: LogFacts, condensed: str, repo: Path | None) -> list[Location]:
    """Repository frames recurring most across failures first, then the condensed log's."""
    found = {(loc.path, loc.line): loc for loc in facts.locations(repo)}
    for loc in parse_locations(condensed, repo):
        found.setdefault((loc.path, loc.line), loc)
    return list(found.values())[:MAX_LOCATIONS]
