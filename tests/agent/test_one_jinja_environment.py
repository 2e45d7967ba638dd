"""fixbot renders every template through one Jinja environment (`fixbot.core.templates`:
StrictUndefined, the `untrusted` filter, one whitespace rule): no other module builds one."""

from __future__ import annotations

import ast
import re

from tests.fakes.paths import ROOT


def builds_environment(tree: ast.AST) -> bool:
    """True when the module imports jinja2 and calls `Environment(...)` or
    `jinja2.Environment(...)` (bench's corpus has a model of that name)."""
    uses_jinja = any(
        (isinstance(node, ast.Import) and any(a.name == "jinja2" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.module == "jinja2")
        for node in ast.walk(tree)
    )
    return uses_jinja and any(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Environment"
        for node in ast.walk(tree)
    )


def test_only_the_templates_module_builds_a_jinja_environment() -> None:
    found = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "fixbot").rglob("*.py"))
        if builds_environment(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == ["fixbot/core/templates.py"]


def test_the_report_template_keeps_its_lines_under_trim_blocks() -> None:
    """report.md.j2 was written for an environment that keeps the newline after a block tag:
    each of its tags says so (`+%}`) or strips it itself (`-%}`), or the report's lines run
    together under the one environment's `trim_blocks`."""
    text = (ROOT / "fixbot" / "templates" / "report.md.j2").read_text(encoding="utf-8")
    bare = [line for line in text.splitlines() if re.search(r"(?<![-+])%\}", line)]
    assert bare == []
