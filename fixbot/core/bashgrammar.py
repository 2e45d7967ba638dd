"""bashlex with its parser tables read from a stored file, not built again at every import.

bashlex (https://github.com/idank/bashlex, a port of bash's own grammar) builds its LALR tables
with its vendored PLY `yacc` each time it is imported: its `yacc()` never reads the
`parsetab.py` it ships (the table-reading code of PLY is cut out of it), which costs about
0.15 s of CPU on an idle machine in every fixbot process that parses a command, the largest
single import of a green run. `bashlex` below is the package imported with `yacc.LRTable`
replaced by one that takes the action and goto tables from `TABLES` (`bashlex_tables.json`,
written by `scripts/gen_bashlex_tables.py`) when the grammar's signature (`signature`: its
productions and precedence) is the stored one; for any other grammar (another bashlex version)
it builds them as bashlex does. Every module of fixbot imports bashlex from here
(tests/core/test_bashgrammar.py).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

TABLES = Path(__file__).with_name("bashlex_tables.json")


def signature(grammar: Any) -> str:
    """The sha256 of what the LALR tables of a PLY `Grammar` depend on: its productions in
    order (the start production first) and its precedence table."""
    text = "\n".join(str(p) for p in grammar.Productions)
    text += "\n" + repr(sorted(grammar.Precedence.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def stored(grammar: Any, path: Path = TABLES) -> tuple[dict[int, Any], dict[int, Any]] | None:
    """(action, goto) tables of `grammar` from `path` (state number -> symbol -> action or
    state), or None when the file is missing, unreadable or of another grammar."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature(grammar):
        return None
    action = {int(state): row for state, row in data["action"].items()}
    goto = {int(state): row for state, row in data["goto"].items()}
    return action, goto


def stored_table(lr_table: type) -> type:
    """A subclass of PLY's `LRTable` class `lr_table` whose tables come from `TABLES` when its
    grammar is the stored one, built as PLY builds them otherwise."""

    class StoredTable(lr_table):  # type: ignore[valid-type,misc]
        def __init__(self, grammar: Any, log: Any = None) -> None:
            tables = stored(grammar)
            if tables is None:
                super().__init__(grammar, log)
                return
            self.grammar = grammar
            self.lr_productions = grammar.Productions
            self.lr_action, self.lr_goto = tables
            self.sr_conflicts: list[Any] = []
            self.rr_conflicts: list[Any] = []

    return StoredTable


def load(table: Callable[[type], type]) -> ModuleType:
    """Import bashlex with its `yacc.LRTable` replaced by `table(LRTable)`: the package is set
    up as the import system does (module from its spec, in `sys.modules`, then executed), with
    its `yacc` module imported and patched before `bashlex.parser` builds its parser. The
    package imported already is returned as it is."""
    if "bashlex" in sys.modules:
        return sys.modules["bashlex"]
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None:
        raise ImportError("bashlex is not installed")
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        yacc: Any = importlib.import_module("bashlex.yacc")
        yacc.LRTable = table(yacc.LRTable)
        spec.loader.exec_module(package)
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return package


def built_tables() -> dict[str, Any]:
    """The signature, action and goto tables of bashlex's grammar as PLY builds them, in a
    fresh import of bashlex (the one in use stays): what `TABLES` holds."""
    got: dict[str, Any] = {}

    def capturing(lr_table: type) -> type:
        class Capturing(lr_table):  # type: ignore[valid-type,misc]
            def __init__(self, grammar: Any, log: Any = None) -> None:
                super().__init__(grammar, log)
                got.update(signature=signature(grammar), action=self.lr_action, goto=self.lr_goto)

        return Capturing

    kept = {n: m for n, m in sys.modules.items() if n == "bashlex" or n.startswith("bashlex.")}
    for name in kept:
        del sys.modules[name]
    try:
        load(capturing)
    finally:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        sys.modules.update(kept)
    return got


bashlex: Any = load(stored_table)  # the package, typed loosely: bashlex has no types
