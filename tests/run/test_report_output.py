"""A per-test report that is the runner's own output (`go test -json`): read from the check's
log, which gets the runner's plain text back, byte for byte where the output was not JSON."""

from __future__ import annotations

from pathlib import Path

from fixbot.core.failure import CheckResult
from fixbot.logs.dialects import go
from fixbot.run.checkrun import from_output, relative

REPORTS = Path(__file__).parent.parent / "data" / "reports"


def result_of(log: Path, data: bytes) -> CheckResult:
    log.write_bytes(data)
    tail = data[-200:].decode("utf-8", errors="replace")
    return CheckResult(
        command="go test ./...",
        exit_code=1,
        duration_s=0.1,
        log_path=log,
        output_bytes=len(data),
        tail=tail,
    )


def test_the_log_gets_gos_text_back_and_the_report_is_read(tmp_path: Path) -> None:
    report = go.DIALECT.report
    assert report is not None
    data = (REPORTS / "go-test.log").read_bytes() + b"not utf-8: \xff\n"
    result, tests = from_output(report, result_of(tmp_path / "check.log", data), len(data))
    assert tests is not None and tests["example.com/app::TestAdd"] == "failed"
    text = (tmp_path / "check.log").read_bytes()
    assert b"--- FAIL: TestAdd" in text and b'"Action"' not in text
    assert text.endswith(b"not utf-8: \xff\n")  # passed through unchanged
    assert '"Action"' not in result.tail


def test_an_output_longer_than_the_log_keeps_has_no_report(tmp_path: Path) -> None:
    """The bounded log dropped its middle: the verdicts there are unknown, so none is read."""
    report = go.DIALECT.report
    assert report is not None
    data = (REPORTS / "go-test.log").read_bytes()
    _, tests = from_output(report, result_of(tmp_path / "check.log", data), len(data) - 1)
    assert tests is None
    assert b'"Action"' not in (tmp_path / "check.log").read_bytes()


def test_ids_naming_the_work_tree_become_relative() -> None:
    tests = {"/w/repo/app.test.js::adds": "failed", "pkg::TestX": "passed"}
    assert relative(tests, Path("/w/repo")) == {
        "app.test.js::adds": "failed",
        "pkg::TestX": "passed",
    }
    assert relative(None, Path("/w/repo")) is None
