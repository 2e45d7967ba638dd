"""The visitor methods of the node classes a failing run built (pure reading)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, locate, visitors
from tests.fakes.agent_repo import failure, fix_context, make_repo

# Jinja 3.1.4's shape (`{% set ns.a, ns.b = 1, 2 %}`): the parser built an NSRef for `ns.a` and
# then failed on the `,`; compiling never began, so no run reached `visit_NSRef`, whose check
# the fix moves to `visit_Assign`
PARSER = (
    "from pkg import nodes\n"  # 1
    "\n"
    "def parse_set(stream):\n"  # 3
    "    target = parse_target(stream)\n"  # 4: executed
    "    if stream.skip('assign'):\n"  # 5: executed
    "        return nodes.Assign(target, stream.rest())\n"  # 6: not executed
    "    stream.expect('block_end')\n"  # 7: executed, raised
    "\n"
    "def parse_target(stream):\n"  # 9
    "    name = stream.name()\n"  # 10: executed
    "    if stream.dot():\n"  # 11: executed
    "        return nodes.NSRef(name, stream.name())\n"  # 12: executed
    "    return nodes.Name(name, str(name))\n"  # 13: not executed
)
COMPILER = (
    "class CodeGenerator:\n"  # 1
    "    def visit_Assign(self, node):\n"  # 2
    "        self.visit(node.target)\n"
    "\n"
    "    def visit_NSRef(self, node):\n"  # 5
    "        self.write('if not isinstance(ns, Namespace): raise')\n"
    "        self.write(node.attr)\n"  # 7
    "\n"
    "    def visit_Name(self, node):\n"  # 9
    "        self.write(node.name)\n"
)
TRACKER = (
    "class Tracker:\n"  # 1
    "    def visit_NSRef(self, node):\n"  # 2: executed by another test's run
    "        self.load(node.name)\n"  # 3
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/nodes.py": "class Assign: pass\nclass NSRef: pass\nclass Name: pass\n",
    "pkg/parser.py": PARSER,
    "pkg/compiler.py": COMPILER,
    "pkg/tracking.py": TRACKER,
    # another folder's visitor of the same name is another tree's
    "docs/ext/render.py": "def visit_NSRef(self, node):\n    pass\n",
}
RAN = {
    "pkg/parser.py": frozenset({4, 5, 7, 10, 11, 12}),
    "pkg/tracking.py": frozenset({3}),
}
LOG = (
    "tests/test_set.py:3: in test_namespace_tuple\n"
    "E   TemplateSyntaxError: expected token 'end of statement block', got ','\n"
)


def _suspects() -> locate.Ranked:
    return locate.Ranked([locate.Span("pkg/parser.py", 3, 7, "parse_set", 2.0)], RAN)


def test_the_visitor_of_a_class_built_on_an_executed_line_is_found_in_the_same_folder(
    tmp_path: Path,
) -> None:
    """`parse_target` (a callee the run executed) built an NSRef on line 12: the compiler's
    `visit_NSRef` is found; the tracker's ran (line 3) and is left out, as are `Assign` and
    `Name` (built on lines the run did not execute), `str` (not capitalised) and the other
    folder's `visit_NSRef`."""
    repo = make_repo(tmp_path, FILES)
    callee = locate.Span("pkg/parser.py", 9, 13, "parse_target", 0.0)
    found = visitors.spans(repo, [callee], RAN)
    assert [(s.path, s.start, s.end, s.name) for s in found] == [
        ("pkg/compiler.py", 5, 7, "visit_NSRef")
    ]
    assert found[0].limit == visitors.VISITOR_LINES
    # without executed lines, or from a file that is not Python, nothing
    assert visitors.spans(repo, [callee], {}) == []
    assert visitors.spans(repo, [locate.Span("pkg/parser.js", 9, 13, "f", 0.0)], RAN) == []


def test_the_first_request_shows_the_visitor_no_run_reached(tmp_path: Path) -> None:
    """The spectrum ranks `parse_set`; its executed `parse_target` is shown as a ran callee and,
    after it, the visitor of the NSRef it built, which compiling never reached: without
    `visitors` the request shows no line of `visit_NSRef`."""
    repo = make_repo(tmp_path, FILES)
    ctx = fix_context(repo, failure=failure(LOG))
    shown = context.reached(ctx, 8_000, _suspects())
    assert "--- pkg/compiler.py lines 5-7 (visit_NSRef)" in shown
    assert "if not isinstance(ns, Namespace): raise" in shown
    assert "visit_Name" not in shown
    assert "--- pkg/tracking.py" not in shown
