"""The tests docs/SECURITY.md names: each control of the threat model points at its test.

`conftest.py` marks them `hardening` (so `pytest -m hardening` runs exactly the adversarial and
fault tests the threat model relies on) and `tests/test_security_doc.py` checks they exist.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DOC = ROOT / "docs" / "SECURITY.md"
# `tests/x.py::name` starts a file; a following `::name` in the same cell continues it.
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`|`::(\w+)`")


def references(text: str) -> list[tuple[str, str | None]]:
    """(test file, test function or None for the whole file) for every test reference in
    `text`, in order. Raises ValueError for a `::name` with no file before it."""
    found: list[tuple[str, str | None]] = []
    current: str | None = None
    for match in REFERENCE.finditer(text):
        if match[1]:
            current = match[1]
            found.append((current, match[2]))
        elif current is None:
            raise ValueError(f"`::{match[3]}` names no file before it")
        else:
            found.append((current, match[3]))
    return found


def named_tests() -> set[tuple[str, str | None]]:
    """The references of docs/SECURITY.md (empty when the file is missing)."""
    return set(references(DOC.read_text(encoding="utf-8"))) if DOC.is_file() else set()


def is_named(path: Path, function: str, named: set[tuple[str, str | None]]) -> bool:
    """True when the test `function` of the file at `path` (or its whole file) is in `named`."""
    try:
        rel = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return False
    return (rel, None) in named or (rel, function) in named
