"""cargo test (cargo 1.95): `test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0
filtered out; finished in 0.12s`, `test tests::x ... FAILED`, `---- tests::x stdout ----`; and
a build that fails, `error: could not compile `x` (lib) due to 2 previous errors`.

Its per-test report is libtest's JSON (`-Z unstable-options --format json` after `--`), which
only a nightly toolchain accepts: fixbot asks for it when the check names one (`cargo +nightly
test`), and reads it from the output, as go test's. A stable toolchain refuses the flag ("the
option `Z` is only accepted on the nightly compiler"), so `cargo test` is verified by exit code
only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect, Report, worse

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


# `     Running unittests src/lib.rs (target/debug/deps/app-3ba2ec4b1bd32ef9)`, `   Doc-tests app`:
# the test binary whose events follow (cargo's own lines, on standard error).
BINARY_RE = re.compile(r"^\s*(?:Running (?:unittests )?(\S+) \(|Doc-tests (\S+))")
LIBTEST = {"ok": "passed", "failed": "failed", "ignored": "skipped"}
JSON_FLAGS = ["-Z", "unstable-options", "--format", "json"]


def runs(words: Sequence[str]) -> bool:
    """The command runs `cargo test` (or `cargo +toolchain test`) once."""
    found = 0
    for at, word in enumerate(words):
        if word.rsplit("/", 1)[-1] == "cargo":
            rest = [w for w in words[at + 1 : at + 3] if not w.startswith("+")]
            found += rest[:1] == ["test"]
    return found == 1


def argv(words: list[str], path: str) -> list[str] | None:
    """`cargo +nightly test ...` with libtest's JSON asked after `--` (the test binaries' own
    words: https://doc.rust-lang.org/cargo/commands/cargo-test.html); None for any other
    command, a stable toolchain's above all (its libtest refuses `-Z`). `path` is unused: libtest
    writes its report to standard output (`plain` gives the log libtest's text back)."""
    nightly = words[1:2] and words[1].startswith("+nightly")
    if words[:1] != ["cargo"] or not nightly or words[2:3] != ["test"] or "--format" in words:
        return None
    if "--" not in words:
        return [*words, "--", *JSON_FLAGS]
    at = words.index("--") + 1
    return [*words[:at], *JSON_FLAGS, *words[at:]]


def events(output: str) -> Iterator[tuple[str, str, dict[str, object] | None]]:
    """Each line of `output` with the test binary it belongs to and its libtest event (None for
    any other line)."""
    binary = ""
    for line in output.splitlines(keepends=True):
        if found := BINARY_RE.match(line):
            binary = found.group(1) or f"{found.group(2)} (doc)"
        event = None
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                event = None
        yield binary, line, event if isinstance(event, dict) and "type" in event else None


def outcomes(output: str) -> dict[str, str]:
    """The per-test outcomes of libtest's JSON events in cargo's output (nightly 2026-05-15):
    ids `<binary's source>::<test>` (`src/lib.rs::tests::adds`, `tests/outside.rs::it`,
    `app (doc)::src/lib.rs - add (line 3)`). A test that started and never ended has none.
    Raises ValueError when there is no test event."""
    found: dict[str, str] = {}
    seen = False
    for binary, _, event in events(output):
        if event is None or event.get("type") != "test":
            continue
        seen = True
        if (outcome := LIBTEST.get(str(event.get("event")))) is not None:
            test = f"{binary}::{event.get('name', '')}"
            found[test] = worse(found.get(test), outcome)
    if not seen:
        raise ValueError("no libtest JSON event in the output")
    return found


def plain(output: str) -> str:
    """cargo's output with libtest's JSON events written back as its plain format prints them
    (`test x ... FAILED`, the `failures:` block with each failing test's output, `test result:
    ...`), which this dialect reads; every other line as it was."""
    lines: list[str] = []
    failures: list[tuple[str, str]] = []
    for _, line, event in events(output):
        if event is None:
            lines.append(line)
            continue
        lines += _plain_event(event, failures)
    return "".join(lines)


def _plain_event(event: dict[str, object], failures: list[tuple[str, str]]) -> list[str]:
    """The plain lines of one libtest event; a failed test's output is kept in `failures` until
    its binary's result."""
    kind, what, name = event.get("type"), str(event.get("event")), str(event.get("name", ""))
    if kind == "test" and what in LIBTEST:
        if what == "failed":
            failures.append((name, str(event.get("stdout", ""))))
        return [f"test {name} ... {'FAILED' if what == 'failed' else what}\n"]
    if kind != "suite":
        return []
    if what == "started":
        count = event.get("test_count", 0)
        return [f"\nrunning {count} test{'' if count == 1 else 's'}\n"]
    return [*_failures_block(failures), _suite_result(event, what)]


def _failures_block(failures: list[tuple[str, str]]) -> list[str]:
    """libtest's `failures:` sections for the failed tests kept so far (then forgotten)."""
    if not failures:
        return []
    found = ["\nfailures:\n\n"]
    found += [f"---- {n} stdout ----\n{text}\n" for n, text in failures]
    found.append("\nfailures:\n" + "".join(f"    {n}\n" for n, _ in failures))
    failures.clear()
    return found


def _suite_result(event: dict[str, object], what: str) -> str:
    """libtest's `test result: ...` line for a suite's end event."""
    numbers = "; ".join(
        f"{event.get(key, 0)} {key.replace('_', ' ')}"
        for key in ("passed", "failed", "ignored", "measured", "filtered_out")
    )
    verdict = "ok" if what == "ok" else "FAILED"
    try:
        seconds = float(str(event.get("exec_time", 0.0)))
    except ValueError:  # the output is the project's process's: no field is trusted to parse
        seconds = 0.0
    return f"\ntest result: {verdict}. {numbers}; finished in {seconds:.2f}s\n\n"


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
    report=Report(file_name="", runs=runs, read=outcomes, argv=argv, plain=plain),
)
