"""docs/ARCHITECTURE.md's "Where to add things" names, for each registry (event, comment
command, edit protocol, dialect, ecosystem, tampering rule), the files a new member touches
and the test that holds it: every file it names exists and every test it names is a test."""

from __future__ import annotations

import ast
import re

import pytest

from tests.fakes.paths import ROOT

REGISTRIES = (
    "A comment command",
    "An event",
    "An edit protocol",
    "A test-runner output format",
    "An ecosystem",
    "A tampering rule",
)


def bullets() -> dict[str, str]:
    """The section's bullets by their bold title, each as one line of text."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Where to add things", 1)[1].split("\n## ", 1)[0]
    found = {}
    for item in re.split(r"\n- ", section):
        title = re.match(r"\*\*(.+?)\*\*", item.strip("- \n"))
        if title:
            found[title[1]] = " ".join(item.split())
    return found


def functions(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("title", REGISTRIES)
def test_each_registry_names_its_files_and_the_test_that_holds_it(title: str) -> None:
    bullet = bullets()[title]
    held = re.findall(r"\bby `(tests/[\w/]+\.py)::(\w+)`", bullet)
    assert held, f"{title}: no `Held by tests/...::test`"
    for path, name in held:
        assert name in functions(path), f"{path}::{name}"
    paths = re.findall(r"`((?:fixbot|tests|docs)/[\w./-]+?)(?:::\w+)?`", bullet)
    assert paths and all((ROOT / p).exists() for p in paths), paths
