"""go test (1.19-1.2x): `--- FAIL: TestX (0.00s)` per test (subtests indented), then
`FAIL`/`ok` per package. go prints no count line: the counts are the tally of the per-test
`--- PASS:`, `--- FAIL:` and `--- SKIP:` lines (`testing/testing.go`); without `-v` only the
failing and skipped tests have one, so `passed` is then unknown. A package whose tests do not
compile has no such line but `FAIL  example.com/x [build failed]` (or `[setup failed]`): one
error each, or a red run whose other packages pass would read as "0 failing".
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect, Report, worse

TALLY = r"--- (?P<outcome>FAIL|PASS|SKIP): "
TALLY_RE = re.compile(rf"^[ \t]*{TALLY}", re.MULTILINE)
BROKEN = r"FAIL[ \t]+\S+ \[(?:build|setup) failed\]"
BROKEN_RE = re.compile(rf"^{BROKEN}", re.MULTILINE)
BROKEN_PACKAGE_RE = re.compile(r"^FAIL[ \t]+(\S+) \[(?:build|setup) failed\]", re.MULTILINE)


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


# test2json's per-test actions (https://pkg.go.dev/cmd/test2json#hdr-Output_Format): the
# others (run, pause, cont, output, bench, start) say nothing of a verdict.
ACTIONS = {"pass": "passed", "fail": "failed", "skip": "skipped"}


def runs(words: Sequence[str]) -> bool:
    """The command runs `go test` once."""
    pairs = itertools.pairwise(words)
    return sum(a.rsplit("/", 1)[-1] == "go" and b == "test" for a, b in pairs) == 1


def argv(words: list[str], path: str) -> list[str] | None:
    """`go test ...` with `-json` right after `test` (before any `-args`, whose words go to the
    test binaries), when the check is that one command; None otherwise. `path` is unused: go
    writes its report to standard output (`plain` gives the log its text back).

    Not through `GOFLAGS`: it applies `-json` to every go command that knows the flag
    (https://pkg.go.dev/cmd/go#hdr-Environment_variables), such as a `go vet` in the same
    check or a `go list` a test runs, whose output would change under them."""
    if len(words) < 2 or words[0].rsplit("/", 1)[-1] != "go" or words[1] != "test":
        return None
    return words if "-json" in words else [*words[:2], "-json", *words[2:]]


MODULE_RE = re.compile(r"^module[ \t]+\"?([^\s\"]+)", re.MULTILINE)


def module_path(go_mod: str) -> str | None:
    """The module's path a go.mod declares (`module example.com/app`), None when none: the
    first part of its packages' import paths, which go test -json names tests by."""
    found = MODULE_RE.search(go_mod)
    return found.group(1) if found else None


PACKAGE_RE = re.compile(r"^(?:FAIL|ok)[ \t]+(\S+)", re.MULTILINE)


def package_folders(text: str, module: str) -> list[str]:
    """The folders, relative to the module's root, of the packages whose `FAIL <import path>` or
    `ok <import path>` lines `text` holds, failed ones first: go test prints a test file's
    lines relative to its package's folder (`parse_test.go:12`, not `pkg/parse_test.go:12`)."""
    found = [m.group(1) for m in PACKAGE_RE.finditer(text)]
    failed = [m.group(1) for m in re.finditer(r"^FAIL[ \t]+(\S+)", text, re.MULTILINE)]
    inside = [path for path in [*failed, *found] if path.startswith(module + "/")]
    return list(dict.fromkeys(path.removeprefix(module + "/") for path in inside))


def event(line: str) -> dict[str, object] | None:
    """The test2json event a line of output is, None for any other line."""
    if not line.startswith("{"):
        return None
    try:
        found = json.loads(line)
    except json.JSONDecodeError:
        return None
    return found if isinstance(found, dict) and isinstance(found.get("Action"), str) else None


def outcomes(output: str) -> dict[str, str]:
    """The per-test outcomes of `go test -json`'s output (go 1.19.8): ids `<package>::<test>`
    (a subtest `TestX/case` is its own id); a package that failed without a test verdict is one
    failed id, the package (one that did not build has no event at all in go 1.19, only its
    plain `FAIL <package> [build failed]` line). Raises ValueError when there is no event.

    go 1.19's test2json gives a test that was running when its binary exited 0 the package's
    `pass` (seen here: the tests after it then have no verdict at all, so fewer are collected)."""
    found: dict[str, str] = {}
    failed: set[str] = set()
    seen = [e for line in output.splitlines() if (e := event(line)) is not None]
    if not seen:
        raise ValueError("no go test -json event in the output")
    for item in seen:
        outcome, package = ACTIONS.get(str(item["Action"])), str(item.get("Package", ""))
        if outcome is None:
            continue
        if test := item.get("Test"):
            key = f"{package}::{test}"
            found[key] = worse(found.get(key), outcome)
        elif outcome == "failed":
            failed.add(package)
    failed.update(BROKEN_PACKAGE_RE.findall(plain(output)))
    tested = {test.split("::", 1)[0] for test in found}
    return found | dict.fromkeys(sorted(failed - tested), "failed")


def plain(output: str) -> str:
    """`go test -json`'s output as `go test -v` prints it: each event's `Output`, and every other
    line (the compiler's errors, a line cut by the bounded log) as it was."""
    return "".join(
        line if (found := event(line)) is None else str(found.get("Output", ""))
        for line in output.splitlines(keepends=True)
    )


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
    report=Report(file_name="", runs=runs, read=outcomes, argv=argv, plain=plain),
)
