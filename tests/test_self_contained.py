"""The repository cites no file outside it: every document and docstring a maintainer reads
names a place they have (a DESIGN.md that was never committed helps no one). Its comments and
docstrings give reasons, not issue numbers a reader cannot follow."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from collections.abc import Iterator

from tests.fakes.paths import ROOT

# A design document kept outside the repository, a sibling folder, or a developer's machine.
OUTSIDE = re.compile(
    r"\b(?:DESIGN|STYLE)\.md\b|\.\./shared/|/work/(?:main|shared|venv|wt-|\.library)|/root/\."
)
# An issue (or a hole an audit listed) cited by its number: a reader of the code cannot follow it.
CITATION = re.compile(r"\b(?:issues?|holes?) #?\d|\(#\d+\)", re.IGNORECASE)
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
TEXT = (".py", ".md", ".j2", ".yml", ".yaml", ".toml", ".sh", ".graphql", ".txt", ".cfg")


def tracked_text_files() -> list[str]:
    """The tracked text files, less vendored data and the benchmark corpus (third-party code)."""
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    skip = ("tests/data/", "bench/corpus/", "demo/repo/")
    return [n for n in names if n.endswith(TEXT) and not n.startswith(skip)]


def test_nothing_cites_a_file_outside_the_repository() -> None:
    own = "tests/test_self_contained.py"
    cited = [
        f"{name}:{number}: {line.strip()}"
        for name in tracked_text_files()
        if name != own
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert cited == []


def test_the_rule_sees_the_citations_it_forbids() -> None:
    assert OUTSIDE.search("see DESIGN.md, the trust table")
    assert OUTSIDE.search("from ../shared/STYLE.md")
    assert OUTSIDE.search("Run: /work/venv/bin/python x.py")
    assert not OUTSIDE.search('text = "/home/runner/work/app"')


def comments_and_docstrings(source: str) -> Iterator[tuple[int, str]]:
    """Each comment and docstring of Python `source`, as (line number, text); a docstring's text
    is split into its lines, numbered from the line its string starts on."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        first = node.body[0] if isinstance(node, DOCUMENTED) and node.body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            for offset, line in enumerate(first.value.value.splitlines()):
                yield first.lineno + offset, line


def python_sources() -> list[str]:
    """fixbot's and the tests' Python files and the benchmarks (bench/*.py, not the corpus)."""
    return [
        name
        for name in tracked_text_files()
        if name.endswith(".py")
        and (name.startswith(("fixbot/", "tests/")) or re.fullmatch(r"bench/[^/]+\.py", name))
    ]


def test_comments_and_docstrings_give_reasons_not_issue_numbers() -> None:
    sources = {name: (ROOT / name).read_text(encoding="utf-8") for name in python_sources()}
    cited = [
        f"{name}:{number}: {text.strip()}"
        for name, source in sources.items()
        if CITATION.search(source)  # only these few are parsed
        for number, text in comments_and_docstrings(source)
        if CITATION.search(text)
    ]
    assert cited == [], "give the reason, not the issue number:\n" + "\n".join(cited)


def test_the_citation_rule_reads_comments_and_docstrings_only() -> None:
    source = (
        '"""Issue 21, 4: the token reaches git through a pipe."""\n'
        "def f():\n"
        '    """The attack of issue 14."""\n'
        '    return "issue 5"  # hole 11: a fork loop\n'
        "class C:\n"
        '    """Fixed in issues 14 and 21,\n    see issue #31."""\n'
        "    x = 1  # the same fix (#31)\n"
    )
    found = [n for n, text in comments_and_docstrings(source) if CITATION.search(text)]
    assert sorted(found) == [1, 3, 4, 6, 7, 8]  # the returned string is data, not a comment
    assert not CITATION.search("# an issue_comment event; 3 holes in the sweep")
    assert {"tests/test_self_contained.py", "fixbot/__init__.py"} <= set(python_sources())
    assert not any(n.startswith("bench/corpus/") for n in python_sources())
