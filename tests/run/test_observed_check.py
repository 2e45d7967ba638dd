"""A check that assigns PYTHONPATH or PYTEST_ADDOPTS itself still loads fixbot's observer: the
command fixbot runs puts the observer's folder first in each PYTHONPATH value the check's words
assign and `-p <module>` in each PYTEST_ADDOPTS value (`fixbot.run.checkrun.observed`), quotes
kept, as the shell that runs the check reads them."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.failure import CheckResult
from fixbot.core.settings import Settings
from fixbot.process.launcher import Launcher
from fixbot.run.checkrun import CheckRun, observed, run_check, shown

FOLDER = Path("/tmp/fixbot-observer-x y")  # a space: the folder's quoting is tried too
MODULE = "fixbot_observer_0123"
SHOW = 'printf "%s|%s\\n" "$PYTHONPATH" "$PYTEST_ADDOPTS"'


def ran(check: str) -> str:
    """What `/bin/sh -c check` printed, fixbot's values exported as `Channel.env` does."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": "fixbot", "PYTEST_ADDOPTS": "fixbot"}
    done = subprocess.run(["/bin/sh", "-c", check], env=env, capture_output=True, text=True)
    return done.stdout


@pytest.mark.parametrize(
    ("check", "printed"),
    [
        (f"PYTHONPATH=src sh -c '{SHOW}'", f"{FOLDER}:src|fixbot"),
        (f"PYTHONPATH=\"a b:c\" sh -c '{SHOW}'", f"{FOLDER}:a b:c|fixbot"),
        (f"PYTHONPATH='a '\"b\" sh -c '{SHOW}'", f"{FOLDER}:a b|fixbot"),
        (f"export PYTHONPATH=src; {SHOW}", f"{FOLDER}:src|fixbot"),
        (f"env PYTHONPATH=src sh -c '{SHOW}'", f"{FOLDER}:src|fixbot"),
        (f"PYTHONPATH= sh -c '{SHOW}'", f"{FOLDER}|fixbot"),
        (f"PYTEST_ADDOPTS='-x -q' sh -c '{SHOW}'", f"fixbot|-x -q -p {MODULE}"),
        (f'export PYTEST_ADDOPTS="-x"; {SHOW}', f"fixbot|-x -p {MODULE}"),
        (
            f"PYTHONPATH=a PYTEST_ADDOPTS=-x sh -c '{SHOW}'; PYTHONPATH=b sh -c '{SHOW}'",
            f"{FOLDER}:a|-x -p {MODULE}\n{FOLDER}:b|fixbot",
        ),
        (SHOW, "fixbot|fixbot"),
    ],
)
def test_the_observer_stays_on_a_path_the_check_sets(check: str, printed: str) -> None:
    assert ran(observed(check, FOLDER, MODULE)) == printed + "\n"


@pytest.mark.parametrize(
    "check", ["pytest -q", 'export "PYTHONPATH=src"; pytest', "PYTHONPATH=src pytest |"]
)
def test_a_check_it_cannot_rewrite_is_unchanged(check: str) -> None:
    """No assignment, one quoted before its `=` (no offset outside the quotes), or text the
    grammar cannot parse: run as written."""
    assert observed(check, FOLDER, MODULE) == check


def test_the_result_names_the_projects_command(tmp_path: Path) -> None:
    check = "PYTHONPATH=src pytest"
    ran_command = observed(check, FOLDER, MODULE)
    result = CheckResult(
        command=ran_command, exit_code=0, duration_s=0.1, log_path=tmp_path / "log", output_bytes=0
    )
    assert shown(result, ran_command, check).command == check


def test_the_report_is_asked_for_too_where_the_check_assigns_pytest_addopts() -> None:
    """The JUnit report fixbot asks pytest for through PYTEST_ADDOPTS is added to the check's
    own value too (else the check's assignment replaces it: no report, the run judged by the
    observer's stream alone); unobserved (no folder, no module), the report's words alone."""
    report = ["--junitxml", "/tmp/r.xml"]
    check = f"PYTEST_ADDOPTS=-q sh -c '{SHOW}'"
    assert ran(observed(check, FOLDER, MODULE, report)) == (
        f"fixbot|-q -p {MODULE} --junitxml /tmp/r.xml\n"
    )
    assert ran(observed(check, None, None, report)) == "fixbot|-q --junitxml /tmp/r.xml\n"
    assert observed(f"PYTHONPATH=src {SHOW}", None, None, report) == f"PYTHONPATH=src {SHOW}"


@pytest.mark.slow
def test_a_pytest_check_assigning_its_options_is_read_from_its_report_and_observed(
    tmp_path: Path,
) -> None:
    """End to end through `run_check`: `PYTEST_ADDOPTS=-q python -m pytest` gives fixbot's
    observer's stream and pytest's own JUnit report, each test's outcome in both."""
    tests_file = "def test_up():\n    pass\n\ndef test_down():\n    assert 0\n"
    (tmp_path / "test_a.py").write_text(tests_file)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    launcher = Launcher(tmp_path, env, namespace=False, deadline=Deadline.start(None))
    check = f"PYTEST_ADDOPTS=-q {shlex.quote(sys.executable)} -m pytest -p no:cacheprovider"
    where = CheckRun(Settings(check=check), launcher, tmp_path, tmp_path, None, [])
    result, tests, seen = run_check(where, tmp_path / "check.log")
    assert result.command == check and not result.passed
    assert tests == {"test_a::test_up": "passed", "test_a::test_down": "failed"}  # JUnit ids
    assert seen is not None and seen.sessions
