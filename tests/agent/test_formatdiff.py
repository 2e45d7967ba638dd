"""A formatter check's own diff: the check flag swapped for --diff, run through the launcher."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from fixbot.agent import formatdiff
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        ("black --check src", "black --diff src 2>/dev/null"),
        ("python -m black --check -q .", "python -m black --diff -q . 2>/dev/null"),
        ("ruff format --check .", "ruff format --diff . 2>/dev/null"),
        ("isort --check-only pkg", "isort --diff pkg 2>/dev/null"),
        ("black src", None),  # no check flag: it would rewrite the files
        ("ruff check .", None),  # the linter, not the formatter
        ("pytest --check", None),
        ("black --check 'unclosed", None),
    ],
)
def test_the_check_flag_becomes_diff(check: str, expected: str | None) -> None:
    assert formatdiff.command(check) == expected


def test_a_real_formatter_prints_the_lines_it_would_change(tmp_path: Path) -> None:
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    (tmp_path / "pkg.py").write_text("def f( x ):\n    return {'a':x}\n")
    launcher = Launcher(
        tmp_path,
        {"PATH": f"{Path(ruff).parent}:/usr/bin:/bin"},
        namespace=False,
        deadline=Deadline.start(None),
    )
    diff = formatdiff.formatter_diff(launcher, tmp_path, "ruff format --check .", 60)
    assert diff.startswith("--- pkg.py")
    assert "-def f( x ):" in diff and '+    return {"a": x}' in diff
    assert (tmp_path / "pkg.py").read_text() == "def f( x ):\n    return {'a':x}\n"  # untouched
    assert formatdiff.formatter_diff(launcher, tmp_path, "pytest -q", 60) == ""
