"""The repository cites no file outside it: every document and docstring a maintainer reads
names a place they have (issue 20: docstrings cited a DESIGN.md that was never committed)."""

from __future__ import annotations

import re
import subprocess

from tests.fakes.paths import ROOT

# A design document kept outside the repository, a sibling folder, or a developer's machine.
OUTSIDE = re.compile(
    r"\b(?:DESIGN|STYLE)\.md\b|\.\./shared/|/work/(?:main|shared|venv|wt-|\.library)|/root/\."
)
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
