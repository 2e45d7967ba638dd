"""unittest (CPython 3.11-3.13): `Ran 9 tests in 0.01s`, `FAILED (failures=2, errors=1)`,
`FAIL: test_y (tests.test_x.TestX.test_y)` (3.11+) or `FAIL: test_y (tests.test_x.TestX)`.

The result line's words come from `unittest/runner.py` (`TextTestRunner.run`): failures,
errors, skipped, expected failures, unexpected successes; 3.12+ prints `NO TESTS RAN` when
none ran. An unexpected success fails the run, so it counts as failed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

RAN_RE = re.compile(r"^Ran (\d+) tests? in ", re.MULTILINE)
RESULT_RE = re.compile(r"^(?:FAILED|OK|NO TESTS RAN)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
HEAD = r"(?:FAIL|ERROR): (?P<test>\w+) \((?P<where>[\w.]+)\)"


def counts(text: str) -> list[Counts]:
    """The counts of a `Ran N tests` line and the result line after it, when both are found.
    Tests, as `Ran N tests` counts them: unittest's result line counts each failing (or
    skipped) subtest of a `subTest` as a failure (a skip) of its own (`Ran 1 test`,
    `FAILED (failures=2)`), so failures, then errors, then skips are counted up to `N` alone
    (round 22: a fix of a test with two failing subtests was `fewer-tests`, 2 tests at the
    start and 1 after)."""
    ran, result = RAN_RE.search(text), RESULT_RE.search(text)
    if ran is None or result is None:
        return []
    fields = {k: int(v) for k, v in re.findall(r"(\w[\w ]*)=(\d+)", result.group(1) or "")}
    left = int(ran.group(1))
    failed = min(fields.get("failures", 0) + fields.get("unexpected successes", 0), left)
    errors = min(fields.get("errors", 0), left - failed)
    skipped = min(
        fields.get("skipped", 0) + fields.get("expected failures", 0), left - failed - errors
    )
    passed = left - failed - errors - skipped
    return [Counts(passed=passed, failed=failed, errors=errors, skipped=skipped)]


def test_id(groups: Mapping[str, str]) -> str:
    """`tests.test_x.TestX.test_y` from both the 3.11+ and the older `(module.Class)` forms."""
    method, where = groups["test"], groups["where"]
    return where if where.endswith(f".{method}") else f"{where}.{method}"


def file_of(test: str) -> str | None:
    """The module `tests.test_x` of `tests.test_x.TestX.test_y`."""
    parts = test.split(".")
    if len(parts) >= 3 and " " not in test and all(p.isidentifier() for p in parts):
        return ".".join(parts[:-2])
    return None


DIALECT = Dialect(
    name="unittest",
    source="unittest of CPython 3.11.7 and 3.13.0",
    summary=(
        r"Ran \d+ tests? in [^\n]*",
        r"(?:FAILED|OK)(?: \([^)\n]*\))?[ \t]*$",
        r"NO TESTS RAN\b",
    ),
    counts=counts,
    test_ids=(HEAD,),
    test_id=test_id,
    id_forms=(r"\w+ \([\w.]+\)",),
    heads=(HEAD,),
    ends=(r"Ran \d+ tests? in ",),
    failing=(r"^(?:FAILED|FAIL)\b",),
    file_of=file_of,
)
