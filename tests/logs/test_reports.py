"""The runners' structured per-test reports: which check commands can be asked for one, how,
and what a real report says (pytest's JUnit XML, written by the pytest under test here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.logs.dialects import report_for
from fixbot.logs.dialects.base import junit_outcomes
from fixbot.process.shellwords import words


@pytest.mark.parametrize(
    ("command", "asked"),
    [
        ("pytest -q", True),
        ("python -m pytest tests", True),
        (".venv/bin/pytest -x", True),
        ("sh check.sh", False),
        ("make test", False),
        # two runs of pytest would write one file twice: the report would speak for one
        ("pytest a && pytest b", False),
    ],
)
def test_a_report_is_asked_of_a_command_that_runs_pytest_once(command: str, asked: bool) -> None:
    assert (report_for(words(command)) is not None) is asked


def test_the_request_keeps_the_checks_own_pytest_addopts() -> None:
    report = report_for(["pytest"])
    assert report is not None
    env = report.ask("/tmp/r/junit.xml", {"PYTEST_ADDOPTS": "-p no:cacheprovider"})
    assert env["PYTEST_ADDOPTS"].startswith("-p no:cacheprovider --junitxml /tmp/r/junit.xml")


@pytest.mark.slow
def test_pytest_writes_the_report_the_dialect_reads(tmp_path: Path) -> None:
    """A real pytest run, asked as fixbot asks it; the `atexit` attack exits 0, the report
    still says the test failed."""
    (tmp_path / "test_x.py").write_text(
        "import atexit, os\n\natexit.register(os._exit, 0)\n\n\n"
        "def test_ok():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n\n\n"
        "import pytest\n\n\n@pytest.mark.skip\ndef test_skipped():\n    pass\n",
        encoding="utf-8",
    )
    report = report_for(["pytest"])
    assert report is not None
    path = tmp_path / "out" / report.file_name
    env = {**os.environ, **report.ask(str(path), {})}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0  # the attack works on the exit code
    outcomes = report.read(path.read_text(encoding="utf-8"))
    assert outcomes == {
        "test_x::test_ok": "passed",
        "test_x::test_bad": "failed",
        "test_x::test_skipped": "skipped",
    }


def test_what_is_not_a_junit_report_is_refused() -> None:
    with pytest.raises(ValueError):
        junit_outcomes("<html/>")
    with pytest.raises(ValueError):
        junit_outcomes("not xml")
