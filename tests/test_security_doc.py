"""docs/SECURITY.md points from each control to its test: every test it names must exist, so a
renamed or deleted test cannot leave a control pointing at nothing."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "SECURITY.md"
# `tests/x.py::name` starts a file; a following `::name` in the same cell continues it.
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`|`::(\w+)`")


def references(text: str) -> list[tuple[str, str | None]]:
    """(test file, test function or None) for every test reference in `text`, in order."""
    found: list[tuple[str, str | None]] = []
    current: str | None = None
    for match in REFERENCE.finditer(text):
        if match[1]:
            current = match[1]
            found.append((current, match[2]))
        else:
            assert current is not None, f"`::{match[3]}` names no file before it"
            found.append((current, match[3]))
    return found


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


def test_a_continued_reference_belongs_to_the_file_before_it() -> None:
    text = "`tests/a.py::one`, `::two` and `tests/b.py`, `::three`"
    assert references(text) == [
        ("tests/a.py", "one"),
        ("tests/a.py", "two"),
        ("tests/b.py", None),
        ("tests/b.py", "three"),
    ]
