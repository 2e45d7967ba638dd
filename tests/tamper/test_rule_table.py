"""A tampering rule is added in known places (docs/ARCHITECTURE.md, "Where to add things"):
every rule the detector can name is in `fixbot.tamper.cheats`' table of rules and has a case
in the tamper tests, so a new rule cannot be written without its line and its test."""

from __future__ import annotations

import ast
import re

from fixbot.tamper import cheats
from tests.fakes.paths import ROOT

# Where the detector's findings are made: every fixbot module, read whole (a list of modules
# went stale: `rustverdict.py` made `framework-patched` findings no list named).
SOURCES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "fixbot").rglob("*.py"))


def named_rules() -> set[str]:
    """The rule names passed to `Cheat(...)` anywhere in fixbot (`SOURCES`), read from the
    syntax tree."""
    found = set()
    for source in SOURCES:
        for node in ast.walk(ast.parse((ROOT / source).read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Cheat"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(node.args[0].value)
    return found


def test_every_rule_the_detector_names_is_in_its_table() -> None:
    table = set(re.findall(r"^    ([a-z]+(?:-[a-z]+)*)\s", cheats.__doc__ or "", re.MULTILINE))
    rules = named_rules()
    assert len(rules) >= 15 and rules == table
    tests = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    assert {rule for rule in rules if f'"{rule}"' not in tests} == set()
