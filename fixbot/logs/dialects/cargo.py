"""cargo test (cargo 1.95): `test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0
filtered out; finished in 0.12s`, `test tests::x ... FAILED`, `---- tests::x stdout ----`; and
a build that fails, `error: could not compile `x` (lib) due to 2 previous errors`."""

from __future__ import annotations

import re

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import Dialect

RESULT_RE = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE
)
BUILD_RE = re.compile(r"^error: could not compile .* due to (\d+) previous errors?", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """One `Counts` per test binary's result line (ignored tests count as skipped) and per
    crate that did not compile (its errors)."""
    found = [
        Counts(passed=int(p), failed=int(f), skipped=int(i)) for p, f, i in RESULT_RE.findall(text)
    ]
    return found + [Counts(errors=int(n)) for n in BUILD_RE.findall(text)]


DIALECT = Dialect(
    name="cargo",
    source="cargo 1.95.0 (libtest)",
    summary=(r"test result: [^\n]*", r"error: could not compile [^\n]* due to \d+ previous[^\n]*"),
    counts=counts,
    test_ids=(r"test (?P<test>\S+) \.\.\. FAILED",),
    heads=(r"---- (?P<test>\S+) stdout ----",),
    ends=(r"failures:[ \t]*$", r"test result: "),
    errors=(r"test \S+ \.\.\. FAILED",),
    markers=(r"--> \S+:\d+", r"failures:$"),  # rustc's (and ruff's) `--> src/x.rs:3:5`
    failing=(r"test result: FAILED",),
)
