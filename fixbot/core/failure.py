"""What one check said, digested: its result (`CheckResult`), the failure read from its log
(`Failure`: counts, locations, failing tests, groups) and how to handle it (`Classification`,
`ErrorClass`: transient, fixable, permanent).

Pure data: `fixbot.logs` makes these from a check's log; the policy and the agents read them.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, Field


class ErrorClass(StrEnum):
    """How a failing check should be handled."""

    TRANSIENT = "transient"  # re-run after backoff, no fixer
    FIXABLE = "fixable"  # a code change can fix it
    PERMANENT = "permanent"  # no code change can fix it: escalate at once


class CheckResult(BaseModel):
    """One run of the check command.

    `duration_s` is wall time in seconds; `output_bytes` counts every byte the command wrote to
    stdout and stderr (merged, in order) into `log_path`; `tail` is the decoded last bytes of the
    output (bounded, see `fixbot.process.spawn`).
    """

    command: str
    exit_code: int | None  # None when killed on timeout or by a signal before exiting
    timed_out: bool = False
    duration_s: float
    log_path: Path
    output_bytes: int
    tail: str = ""

    @property
    def passed(self) -> bool:
        """True when the command exited 0 within its timeout."""
        return self.exit_code == 0 and not self.timed_out

    def cut(self, max_log_bytes: int) -> bool:
        """True when the command wrote more than a log of `max_log_bytes` bytes keeps: the log
        holds its first and last part and the middle is dropped (`fixbot.process.spawn`)."""
        return self.output_bytes > max_log_bytes


class Counts(BaseModel):
    """Test/diagnostic counts the runner reported in its summary line; None where not reported."""

    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None

    @property
    def problems(self) -> int | None:
        """Failed plus errors, or None when the runner reported neither."""
        if self.failed is None and self.errors is None:
            return None
        return (self.failed or 0) + (self.errors or 0)


class Location(BaseModel):
    """A `path:line[:column]` the failure output points at (path as printed, maybe relative)."""

    path: str
    line: int
    column: int | None = None


class MissingDependency(BaseModel):
    """A package the check imports that is neither in the repository nor installed
    (`fixbot.logs.missing`): `ecosystem` names one of `fixbot.ecosystems`; `name` the
    top-level module, package, module path or crate as the log names it; `manifest` the
    repository-relative file where the project declares such dependencies (None: none found)
    and `declared` whether it names `name` already (then the set-up did not install it).
    `ecosystem` `program` is a program the tests run that is not on the check's PATH;
    `provides` says what the log missed when that is not the package itself (`the fixture
    `mocker``: a pytest plugin's fixture)."""

    ecosystem: str
    name: str
    manifest: str | None = None
    declared: bool = False
    provides: str = ""


class Classification(BaseModel):
    """The class and category of a failure, the name of the rule that decided it, and a note
    when a rule that matched was overruled (see `fixbot.logs.classify`); `missing` names the
    dependency of a `missing_dependency` failure."""

    error_class: ErrorClass
    category: str
    rule: str
    note: str = ""  # why, when the decision is not the first rule that matched
    missing: MissingDependency | None = None


class FailureGroup(BaseModel):
    """Failures with the same normalised error lines (see `fixbot.logs.facts.group_key`).

    `text` is the first one's failure block, bounded (its header, repository frames, error
    lines, compared values and captured output, cuts marked); `tests` names the failing tests
    in the group, bounded (`count` is the full number).
    """

    test: str
    text: str
    count: int = 1
    tests: list[str] = Field(default_factory=list)


class Failure(BaseModel):
    """A failing check, digested: what the fixer and the breaker look at.

    `condensed` is bounded (see `fixbot.logs.condense.MAX_CONDENSED_BYTES`); `signature` is a hex
    SHA-256 of the normalized failure (see `fixbot.logs.signature`).
    """

    condensed: str
    signature: str
    classification: Classification
    counts: Counts = Field(default_factory=Counts)
    locations: list[Location] = Field(default_factory=list)
    failing_tests: list[str] = Field(default_factory=list)
    # Facts from the whole log (`fixbot.logs.facts`), not only from `condensed`:
    summary: list[str] = Field(default_factory=list)  # the runners' summary lines, last ones
    failing_total: int = 0  # distinct failing test ids in the whole log (`failing_tests` is
    # bounded)
    diagnostics: list[str] = Field(default_factory=list)  # compiler/linter `path:line`, bounded
    diagnostics_total: int = 0
    groups: list[FailureGroup] = Field(default_factory=list)  # distinct failures, in order
    other_groups: int = 0  # failures of further distinct kinds, not kept
