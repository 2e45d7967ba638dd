"""The code a failing test reaches, followed through its imports (pure reading with ast)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from fixbot.agent import locate, spantext


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


LIB = (
    "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / (len(xs) + 1)\n"
)
FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": LIB,
    "src/pkg/other.py": "def unused():\n    return 1\n",
    "tests/test_core.py": (
        "import pkg.other as other\nfrom pkg.core import mean\n\n\n"
        "def test_mean():\n    assert mean([2, 4]) == 3\n\n\n"
        "def test_other():\n    assert other.unused() == 1\n"
    ),
}


def test_a_failing_test_reaches_the_function_it_calls_and_that_functions_callees(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path, FILES)
    found = locate.spans(repo, ["tests/test_core.py::test_mean"], [])
    assert [(s.path, s.name, s.start, s.end) for s in found] == [
        ("src/pkg/core.py", "mean", 5, 6),  # called by the test: first
        ("src/pkg/core.py", "total", 1, 2),  # called by mean, the next depth
    ]
    text = spantext.render(repo, found, 1_000)
    assert "    6|     return total(xs) / (len(xs) + 1)" in text
    assert "unused" not in text  # only what the failing test reaches


def test_without_test_ids_the_test_is_found_by_its_line_and_modules_through_aliases(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path, FILES)
    found = locate.spans(repo, [], [("tests/test_core.py", 10)])
    assert [(s.path, s.name) for s in found] == [("src/pkg/other.py", "unused")]


def test_relative_imports_and_the_budget(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": LIB,
            "pkg/tests/test_x.py": "from ..core import mean\n\n\ndef test_x():\n    mean([1])\n",
        },
    )
    found = locate.spans(repo, ["pkg/tests/test_x.py::test_x"], [])
    assert [s.name for s in found] == ["mean", "total"]
    assert spantext.render(repo, found, 120).count("---") == 1  # the second span does not fit


def test_a_span_past_the_end_of_its_file_is_left_out_of_the_render(tmp_path: Path) -> None:
    """A span whose lines the file no longer has (it changed since, or a report named lines of
    another text) is skipped; the spans after it are still shown."""
    repo = write(tmp_path, {"pkg/core.py": LIB})
    lines = len(LIB.splitlines())
    found = [
        locate.Span("pkg/core.py", lines + 40, lines + 60, "gone", 1.0),
        locate.Span("pkg/core.py", 1, 2, "total", 0.5),
    ]
    text = spantext.render(repo, found, 1_000)
    assert "gone" not in text
    assert text.startswith("--- pkg/core.py lines 1-2 (total)")


def test_the_module_level_data_a_function_reads_is_shown_with_it(tmp_path: Path) -> None:
    repo = write(
        tmp_path,
        {
            "esc.py": (
                "import string\n\nESCAPES = {'\"'}\nUNUSED = 1\n\n\n"
                "def escape(s, chars=ESCAPES):\n    return s\n"
            )
        },
    )
    [data] = locate.globals_read(repo, locate.Span("esc.py", 7, 8, "escape", 1.0))
    assert (data.start, data.end, data.name) == (3, 3, "module level")


def _branches(count: int) -> str:
    """A function of `count` branches, each `elif kind == k` then `out.append('rule k')`."""
    arms = "".join(f"    elif kind == {k}:\n        out.append('rule {k}')\n" for k in range(count))
    return f"def translate(kind, out):\n    if kind < 0:\n        pass\n{arms}    return out\n"


def test_a_long_function_shows_a_run_of_its_limit_around_its_focus(tmp_path: Path) -> None:
    """A fix of a long function often changes the sibling branches of the line a spectrum
    points at (they ran under the passing tests too): a long span shows a run of its `limit`
    lines around its focus, not only a few either side of it; when that does not fit the
    budget, or the focus lines lie further apart, `FOCUS_RADIUS` lines either side of each."""
    repo = write(tmp_path, {"rules.py": _branches(100)})  # 205 lines: rule k on line 6 + 2k
    best = locate.Span("rules.py", 1, 205, "translate", 1.0, focus=(6 + 2 * 60,), limit=160)
    wide = spantext.render(repo, [best], 100_000)
    assert "out.append('rule 25')" in wide and "out.append('rule 95')" in wide  # siblings
    assert len(wide.splitlines()) == 1 + 160 + 1  # the header, the limit, one gap's `...`
    assert "def translate(kind, out):" in wide
    other = spantext.render(repo, [replace(best, limit=0)], 100_000)  # `MAX_SPAN_LINES`
    assert "rule 41'" in other and "rule 79'" in other and "rule 30'" not in other
    narrow = spantext.render(repo, [best], len(other) - 1)
    assert "rule 60'" in narrow and "rule 57'" not in narrow  # the wide view does not fit
    apart = replace(best, focus=(8, 204))  # further apart than the limit: both windows
    assert "rule 1'" in spantext.render(repo, [apart], 100_000)
    assert "rule 50'" not in spantext.render(repo, [apart], 100_000)


def test_a_class_re_exported_by_its_package_is_followed_to_its_init(tmp_path: Path) -> None:
    # werkzeug's shape: `from werkzeug import routing as r; r.Map(...)`, where routing's
    # `__init__` re-exports `from .map import Map`, and the fix is in `Map.__init__`, below the
    # class's first `MAX_SPAN_LINES` lines of docstring.
    doc = "".join(f"    line {n}\n" for n in range(locate.MAX_SPAN_LINES))
    repo = write(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/routing/__init__.py": "from .map import Map as Map\n",
            "src/pkg/routing/map.py": (
                f'class Map:\n    """A map.\n\n{doc}    """\n\n'
                "    def __init__(self, merge):\n        self.merge = merge\n\n"
                "    def match(self, path):\n        return path\n"
            ),
            "tests/test_map.py": (
                "from pkg import routing as r\n\n\n"
                "def test_merge():\n    assert r.Map(False).match('//') == '/'\n"
            ),
        },
    )
    found = locate.spans(repo, ["tests/test_map.py::test_merge"], [])
    assert [(s.path, s.name) for s in found] == [("src/pkg/routing/map.py", "Map")]
    text = spantext.render(repo, found, 2_000)
    assert "self.merge = merge" in text  # the constructor's lines, not the docstring's


def test_a_file_read_again_is_parsed_once_and_a_changed_file_anew(tmp_path: Path) -> None:
    """`_parse` keeps one tree per text (a request's readers parse the same module tens of
    times); the file is read each time, so an edit between two reads is seen."""
    repo = write(tmp_path, FILES)
    first = locate._parse(repo, "src/pkg/core.py")
    assert first is not None and locate._parse(repo, "src/pkg/core.py") is first
    write(repo, {"src/pkg/core.py": LIB + "\n\ndef median(xs):\n    return xs[0]\n"})
    changed = locate._parse(repo, "src/pkg/core.py")
    assert changed is not first and changed is not None
    assert [f.name for f in locate._functions(changed)] == ["total", "mean", "median"]
    write(repo, {"src/pkg/core.py": "def broken(:\n"})
    assert locate._parse(repo, "src/pkg/core.py") is None


def test_a_trees_nodes_are_listed_once_in_ast_walks_order(tmp_path: Path) -> None:
    """`walked` lists a tree's nodes once for every reader of a request, in `ast.walk`'s order
    (the readers' answers depend on it: the first match, the order of reads); another tree, a
    changed file's, is listed anew."""
    repo = write(tmp_path, FILES)
    tree = locate._parse(repo, "tests/test_core.py")
    assert tree is not None
    nodes = locate.walked(tree)
    assert list(nodes) == list(ast.walk(tree)) and locate.walked(tree) is nodes
    write(
        repo, {"tests/test_core.py": FILES["tests/test_core.py"] + "\n\ndef test_x():\n    pass\n"}
    )
    changed = locate._parse(repo, "tests/test_core.py")
    assert changed is not None and locate.walked(changed) is not nodes
    assert len(locate.walked(changed)) > len(nodes)
