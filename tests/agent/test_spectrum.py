"""Spectrum-based fault localization: Ochiai over coverage.py's per-test contexts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fixbot.agent import spectrum
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
from tests.bench.cases import stats_case


def test_ochiai() -> None:
    assert spectrum.ochiai(1, 0, 1) == 1.0
    assert spectrum.ochiai(1, 3, 1) == pytest.approx(0.5)
    assert spectrum.ochiai(0, 5, 2) == 0.0


def test_only_pytest_checks_are_rewritten(tmp_path: Path) -> None:
    assert spectrum.pytest_words("python3 -m pytest -q tests") == ("python3", ["-q", "tests"])
    assert spectrum.pytest_words("pytest -x") == ("python", ["-x"])
    assert spectrum.command("npm test", tmp_path) is None
    assert spectrum.command("make check", tmp_path) is None


def test_the_lines_only_failing_tests_run_rank_first(tmp_path: Path) -> None:
    (tmp_path / "pkg.py").write_text(
        "def good(x):\n    return x\n\n\ndef bad(x):\n    return x + 1\n"
    )
    report = {
        "files": {
            "pkg.py": {"contexts": {"2": ["t.test_a", "t.test_b"], "6": ["t.test_b"]}},
            "tests/t.py": {"contexts": {"1": ["t.test_b"]}},  # a test file is never ranked
        }
    }
    output = "noise\n" + spectrum.MARK + "\n" + json.dumps(report)
    spans = spectrum.rank(tmp_path, spectrum.parse(output), ["tests/t.py::test_b"])
    assert [(s.name, round(s.score, 3)) for s in spans] == [("bad", 1.0), ("good", 0.707)]
    assert spectrum.parse("no marker") == {}
    assert spectrum.parse(spectrum.MARK + '\n{"files": {"cut') == {}  # a cut report: no ranking


@pytest.mark.slow
def test_the_check_under_coverage_through_the_launcher_ranks_the_buggy_function(
    tmp_path: Path,
) -> None:
    pytest.importorskip("coverage")
    job = stats_case(tmp_path / "case")
    failing = ["tests/test_stats.py::test_mean"]
    found, why = spectrum.suspects(
        Launcher(
            job.repo,
            {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
            deadline=Deadline.start(None),
        ),
        job.repo,
        job.check,
        failing,
        120,
    )
    assert why is None
    # mean's last line and total run only under the failing test_mean (Ochiai 1.0); spread
    # and the 40 helpers, run by passing tests or by none, are not ranked
    assert sorted((s.path, s.name, s.score) for s in found) == [
        ("stats/core.py", "mean", 1.0),
        ("stats/core.py", "total", 1.0),
    ]
    assert not (job.repo / ".coverage").exists()  # its data stayed out of the work tree


def test_a_report_naming_files_outside_the_repository_ranks_none_of_them(tmp_path: Path) -> None:
    """The report crosses back from the project's command: a forged one cannot put a file outside
    the repository (a secret beside it, a link out of it) into the model's request."""
    repo = tmp_path / "repo"
    repo.mkdir()
    secret = tmp_path / "secret.py"
    secret.write_text("def token():\n    return 'hunter2'\n")
    (repo / "link.py").symlink_to(secret)
    forged = {
        path: {"contexts": {"2": ["t.test_b"]}} for path in (str(secret), "../secret.py", "link.py")
    }
    output = spectrum.MARK + json.dumps({"files": forged})
    assert spectrum.rank(repo, spectrum.parse(output), ["tests/t.py::test_b"]) == []
