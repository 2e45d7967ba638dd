"""docs/SECURITY.md points from each control to its test: every test it names must exist, so a
renamed or deleted test cannot leave a control pointing at nothing."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.fakes.paths import ROOT
from tests.fakes.securitydoc import DOC, references


@pytest.mark.slow
def test_every_test_the_security_doc_names_exists() -> None:
    refs = references(DOC.read_text(encoding="utf-8"))
    assert len(refs) >= 40  # the doc names a test for each control
    missing = []
    for file, name in refs:
        path = ROOT / file
        if not path.is_file():
            missing.append(file)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        if name is not None and name not in functions:
            missing.append(f"{file}::{name}")
    assert missing == []


@pytest.mark.slow
def test_pytest_m_hardening_selects_exactly_the_named_tests() -> None:
    """A file the doc names whole (tests/security/test_redact.py), one it names test by test
    (tests/core/test_secrets.py) and one it does not name (tests/test_readme.py)."""
    files = ["tests/security/test_redact.py", "tests/core/test_secrets.py", "tests/test_readme.py"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-o",
            "addopts=",
            "--collect-only",
            "-q",
            "-m",
            "hardening",
            *files,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    selected = {line.split("[")[0] for line in done.stdout.splitlines() if "::" in line}
    named = references(DOC.read_text(encoding="utf-8"))
    assert any(s.startswith("tests/security/test_redact.py::") for s in selected), done.stdout
    secrets = {s for s in selected if s.startswith("tests/core/test_secrets.py::")}
    assert secrets == {f"{f}::{n}" for f, n in named if f == "tests/core/test_secrets.py" and n}
    assert ("tests/test_readme.py", None) not in named
    assert not any(s.startswith("tests/test_readme.py") for s in selected)


def test_a_continued_reference_belongs_to_the_file_before_it() -> None:
    text = "`tests/a.py::one`, `::two` and `tests/b.py`, `::three`"
    assert references(text) == [
        ("tests/a.py", "one"),
        ("tests/a.py", "two"),
        ("tests/b.py", None),
        ("tests/b.py", "three"),
    ]
    with pytest.raises(ValueError, match="names no file"):
        references("`::orphan`")
