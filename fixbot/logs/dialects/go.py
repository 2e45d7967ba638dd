"""go test (1.19-1.2x): `--- FAIL: TestX (0.00s)` per test (subtests indented), then
`FAIL`/`ok` per package. go prints no count line: the counts are the tally of the per-test
`--- PASS:`, `--- FAIL:` and `--- SKIP:` lines (`testing/testing.go`); without `-v` only the
failing and skipped tests have one, so `passed` is then unknown. A package whose tests do not
compile has no such line but `FAIL  example.com/x [build failed]` (or `[setup failed]`): one
error each, or a red run whose other packages pass would read as "0 failing".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import Dialect

TALLY = r"--- (?P<outcome>FAIL|PASS|SKIP): "
TALLY_RE = re.compile(rf"^[ \t]*{TALLY}", re.MULTILINE)
BROKEN = r"FAIL[ \t]+\S+ \[(?:build|setup) failed\]"
BROKEN_RE = re.compile(rf"^{BROKEN}", re.MULTILINE)


def tallied(outcomes: Mapping[str, int]) -> Counts:
    """The counts of `outcomes` (FAIL, PASS, SKIP -> how many lines); failed is always known
    once any line was seen, passed and skipped only when some line reported them."""
    return Counts(
        failed=outcomes.get("FAIL", 0),
        passed=outcomes.get("PASS") or None,
        skipped=outcomes.get("SKIP") or None,
    )


def counts(text: str) -> list[Counts]:
    """The tally of every per-test result line in `text`, and one error per package that did
    not build (none when there is neither)."""
    found: dict[str, int] = {}
    for outcome in TALLY_RE.findall(text):
        found[outcome] = found.get(outcome, 0) + 1
    broken = len(BROKEN_RE.findall(text))
    return ([tallied(found)] if found else []) + ([Counts(errors=broken)] if broken else [])


DIALECT = Dialect(
    name="go",
    source="go test of go 1.19.8",
    summary=(BROKEN,),
    counts=counts,
    test_ids=(r"--- FAIL: (?P<test>\S+)",),
    id_forms=(r"(?<=--- FAIL: )\S+",),
    heads=(r"--- FAIL: (?P<test>\S+)",),
    ends=(
        r"(?:FAIL|ok)(?:[ \t]+\S+)?[ \t]*$|(?:FAIL|ok)[ \t]+\S+[ \t]+[\d.]+s",  # a package
        r"=== RUN ",
        r"--- (?:PASS|SKIP): ",
    ),
    tally=TALLY,
    tallied=tallied,
    errors=(r"--- FAIL: ",),
    diagnostics=(r"(?<=\.go):\d+(?::\d+)?: ",),  # go build, go vet, t.Error in go test
    failing=(r"--- FAIL",),
)
