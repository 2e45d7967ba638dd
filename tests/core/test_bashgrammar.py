"""bashlex's parser tables read from fixbot's stored file: the same tables bashlex builds, the
same parses, a fallback for another grammar, and no module importing bashlex around it."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from fixbot.core import bashgrammar
from fixbot.core.bashgrammar import bashlex
from tests.fakes.paths import ROOT


def test_stored_tables_are_the_ones_bashlex_builds() -> None:
    # fails after a bashlex upgrade changed its grammar: run scripts/gen_bashlex_tables.py
    built = json.loads(json.dumps(bashgrammar.built_tables()))
    assert json.loads(bashgrammar.TABLES.read_text(encoding="utf-8")) == built


def test_the_parser_in_use_holds_the_stored_tables() -> None:
    parser: Any = bashlex.parser.yaccparser
    stored = json.loads(bashgrammar.TABLES.read_text(encoding="utf-8"))
    assert {str(state): dict(row) for state, row in parser.action.items()} == stored["action"]
    assert {str(state): dict(row) for state, row in parser.goto.items()} == stored["goto"]


def test_commands_parse_as_bash_grammar_says() -> None:
    nodes = bashlex.parse("A=1 make -C 'a b' && cat <<EOF | grep x\nline\nEOF\n")
    kinds = [part.kind for part in nodes[0].parts]
    assert kinds == ["command", "operator", "pipeline"]
    words = [p.word for p in nodes[0].parts[0].parts if p.kind == "word"]
    assert words == ["make", "-C", "a b"]
    assert list(bashlex.split("echo $(date) 'x y'")) == ["echo", "$(date)", "x y"]


def test_another_grammar_or_a_broken_file_gets_no_stored_tables(tmp_path: Path) -> None:
    class Grammar:
        Productions = ["S' -> other", "other -> WORD"]
        Precedence: dict[str, tuple[str, int]] = {}

    assert bashgrammar.stored(Grammar()) is None  # another signature: PLY builds the tables
    broken = tmp_path / "tables.json"
    broken.write_text("{not json")
    assert bashgrammar.stored(Grammar(), broken) is None
    same = {"signature": bashgrammar.signature(Grammar()), "action": {"0": {}}, "goto": {}}
    broken.write_text(json.dumps(same))
    assert bashgrammar.stored(Grammar(), broken) == ({0: {}}, {})


def test_fixbot_imports_bashlex_only_through_bashgrammar() -> None:
    # any other `import bashlex` that runs first builds the tables again (0.15 s a process)
    found = []
    for path in sorted((ROOT / "fixbot").rglob("*.py")):
        if path.name == "bashgrammar.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if any(name.split(".")[0] == "bashlex" for name in names):
                found.append(path.relative_to(ROOT).as_posix())
    assert found == []
