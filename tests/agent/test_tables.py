"""The module-level data a shown function reads from the modules it imports (pure reading)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import locate, tables

KEYWORDS = (
    "MARKER = object()\n\n"  # line 1
    "RULES = [\n"  # lines 3-6
    '    ("GROUP BY", 1),\n'
    '    ("HANDLER FOR", 2),\n'
    "]\n\n"
    "UNREAD = 3\n\n\n"  # line 8
    "def keyword(value):\n    return value.upper()\n"
)
LEXER = (
    "from pkg import keywords\n"  # 1
    "from pkg.keywords import RULES\n"  # 2
    "import pkg.keywords as kw\n\n\n"  # 3
    "def tokens(text):\n"  # 6
    "    for rule, kind in RULES:\n"
    "        if text == rule:\n"
    "            return keywords.keyword(kind)\n"
    "    return keywords.MARKER\n\n\n"
    "def aliased():\n"  # 13
    "    return kw.UNREAD\n"
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_another_modules_table_read_through_an_import_is_found(tmp_path: Path) -> None:
    """sqlparse 0.4.4's shape: the lexer's function reads `keywords.MARKER` and the rules
    imported by name (`from pkg.keywords import RULES`); both statements of `keywords.py` are
    found, in the order the function reads them, a function of that module (`keyword`) is not
    data, and `UNREAD`, which the function does not read, is left out."""
    repo = write(
        tmp_path, {"pkg/__init__.py": "", "pkg/keywords.py": KEYWORDS, "pkg/lexer.py": LEXER}
    )
    found = tables.imported(repo, locate.Span("pkg/lexer.py", 6, 10, "tokens", 0.8))
    assert [(s.path, s.start, s.end) for s in found] == [
        ("pkg/keywords.py", 3, 6),
        ("pkg/keywords.py", 1, 1),
    ]
    assert {s.name for s in found} == {"module level"} and {s.score for s in found} == {0.4}
    [aliased] = tables.imported(repo, locate.Span("pkg/lexer.py", 13, 14, "aliased", 1.0))
    assert (aliased.path, aliased.start) == ("pkg/keywords.py", 8)  # `import pkg.keywords as kw`


def test_a_test_files_data_is_never_followed_and_the_count_is_capped(tmp_path: Path) -> None:
    """Test modules' constants are the tests' own (the snippets show them); a function reading
    many other modules' names shows at most `MAX_IMPORTED` of them after its own module's."""
    many = "".join(f"C{k} = {k}\n" for k in range(6))
    reader = (
        "from pkg import consts\nfrom tests import fixtures\n\nLOCAL = 1\n\n\n"
        "def f():\n    return LOCAL + fixtures.DATA + "
        + " + ".join(f"consts.C{k}" for k in range(6))
        + "\n"
    )
    repo = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/consts.py": many,
            "pkg/reader.py": reader,
            "tests/__init__.py": "",
            "tests/fixtures.py": "DATA = 1\n",
        },
    )
    span = locate.Span("pkg/reader.py", 7, 8, "f", 1.0)
    assert all(s.path == "pkg/consts.py" for s in tables.imported(repo, span))
    shown = tables.read_by(repo, span)
    assert [(s.path, s.start) for s in shown] == [
        ("pkg/reader.py", 4),
        *(("pkg/consts.py", 1 + k) for k in range(tables.MAX_IMPORTED)),
    ]


ATTR_LIST = (
    "import re\n\n\n"
    "class AttrList:\n"  # 4
    "    BASE_RE = r'\\{([^\\}\\n]*)\\}'\n"  # 5
    "    HEADER_RE = re.compile(r'[ ]+{}$'.format(BASE_RE))\n"  # 6
    "    UNREAD = 1\n"  # 7
    "    NAME_RE = re.compile('x')\n\n"  # 8
    "    def run(self, text):\n"  # 10
    "        m = self.HEADER_RE.search(text)\n"
    "        return m and AttrList.NAME_RE.sub('_', m.group(1))\n\n"
    "    @classmethod\n"
    "    def other(cls):\n"  # 15
    "        return cls.UNREAD\n\n\n"
    "def outside(self):\n"  # 19
    "    return self.HEADER_RE\n"
)


def test_the_class_level_patterns_a_shown_method_reads_are_shown(tmp_path: Path) -> None:
    """Markdown 3.5.2's `AttrListTreeprocessor.run` reads `self.HEADER_RE`, built in the class
    body from `BASE_RE`, whose pattern is the fix's: the two statements (and `NAME_RE`, read
    through the class's name) are found in the class's order, `UNREAD` is not; a class method
    reads through `cls`; a function outside the class has no class data."""
    repo = write(tmp_path, {"pkg/attr_list.py": ATTR_LIST})
    run = locate.Span("pkg/attr_list.py", 10, 12, "run", 0.8)
    shown = tables.read_by(repo, run)
    assert [(s.start, s.end, s.name, s.score) for s in shown] == [
        (5, 5, "class level", 0.4),
        (6, 6, "class level", 0.4),
        (8, 8, "class level", 0.4),
    ]
    other = tables.class_data(repo, locate.Span("pkg/attr_list.py", 15, 16, "other", 0.5))
    assert [s.start for s in other] == [7]
    assert tables.class_data(repo, locate.Span("pkg/attr_list.py", 19, 20, "outside", 1)) == []
    assert tables.class_data(repo, locate.Span("pkg/missing.py", 1, 2, "f", 1)) == []
