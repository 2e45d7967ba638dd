"""Digest a check result into a `Failure`: condensed log, signature, class, counts, locations."""

from __future__ import annotations

from pathlib import Path

from fixbot.classify import classify
from fixbot.condense import condense_file
from fixbot.models import CheckResult, Failure
from fixbot.signature import (
    failing_tests,
    failure_signature,
    parse_counts,
    parse_locations,
    timeout_signature,
)


def digest(result: CheckResult, repo: Path | None = None) -> Failure:
    """Digest `result` (its log is read from `result.log_path`, streamed and bounded).

    `repo` makes locations repository-relative and removes the repository's absolute path from
    the signature, so the same failure has the same signature in another checkout. A timed-out
    run gets `timeout_signature`. Raises OSError when the log cannot be read.
    """
    condensed = condense_file(result.log_path)
    if result.timed_out:
        signature = timeout_signature(condensed, repo=repo)
    else:
        signature = failure_signature(condensed, repo=repo)
    return Failure(
        condensed=condensed,
        signature=signature,
        classification=classify(condensed, exit_code=result.exit_code, timed_out=result.timed_out),
        counts=parse_counts(condensed),
        locations=parse_locations(condensed, repo),
        failing_tests=failing_tests(condensed),
    )
