"""The first request's evidence within the prompt budget: what a first attempt leaves unused
goes to the code most likely to need the change, the leads of the error text come first."""

from __future__ import annotations

import subprocess
from pathlib import Path

from fixbot.agent import context, locate, pyrancalls
from fixbot.core.models import Attempt
from tests.fakes.agent_repo import CALC, LOG, failure, fix_context, make_repo

# 40 helpers of about 300 characters each: more than the code section's own share
HELPERS = "".join(
    f"def helper_{n}(items):\n"
    + "".join(f"    x{k} = len(items) + {k}\n" for k in range(10))
    + "    return x0\n\n\n"
    for n in range(40)
)


def _suspects() -> list[locate.Span]:
    return [
        locate.Span("helpers.py", 1 + 14 * n, 12 + 14 * n, f"helper_{n}", 1.0) for n in range(40)
    ]


def test_a_first_attempt_gives_the_unused_shares_to_the_code_within_the_budget(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path, None)
    (repo / "helpers.py").write_text(HELPERS)
    budget = 2_000  # tokens: 8,000 characters
    first = context.gather(fix_context(repo), budget, _suspects())
    share = int(budget * context.SHARES["reached"]) * 4
    assert len(first.reached) > 2 * share  # no diff, history or commits yet
    sections = [first.log, first.snippets, first.reached, first.diff, first.history, first.commits]
    assert sum(len(s) for s in sections) <= budget * 4
    earlier = Attempt(number=1, phase="fix", summary="x" * 3_000, passed=False, exit_code=1)
    later = context.gather(fix_context(repo, attempt=2, history=[earlier]), budget, _suspects())
    assert len(later.reached) < len(first.reached)  # the history takes its share back


def test_the_most_suspicious_function_is_shown_whole_and_a_lead_before_it(tmp_path: Path) -> None:
    long = (
        "def long(items):\n" + "".join(f"    y{k} = {k}\n" for k in range(120)) + "    return 0\n"
    )
    setup = "class Box:\n    def fill(self):\n        self.price = 2\n"
    repo = make_repo(tmp_path, None)
    (repo / "long.py").write_text(long)
    (repo / "box.py").write_text(setup)
    log = LOG + "E       AttributeError: 'Box' object has no attribute 'price'\n"
    ctx = fix_context(repo, failure=failure(log))
    suspect = locate.Span("long.py", 1, 122, "long", 1.0, focus=(2,))
    shown = context.gather(ctx, 6_000, [suspect]).reached
    assert shown.index("box.py") < shown.index("long.py")  # the lead first
    assert "y119 = 119" in shown  # 122 lines, under `WHOLE_LINES`: no focus windows
    assert "self.price = 2" in shown


def test_a_path_relative_to_a_packages_folder_maps_to_the_one_tracked_file(tmp_path: Path) -> None:
    """A monorepo's check prints paths relative to the package's folder: the one tracked file
    ending in that path is meant; none or several leave the path as it was."""
    repo = tmp_path / "repo"
    for rel in ("README.md", "packages/a/test/t.js", "packages/a/lib/x.js", "packages/b/lib/x.js"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    assert context.relative_to_repo("test/t.js", repo) == "packages/a/test/t.js"
    assert context.relative_to_repo("lib/x.js", repo) == "lib/x.js"  # two packages have one
    assert context.relative_to_repo("README.md", repo) == "README.md"  # the root's own
    assert context.relative_to_repo("lib/none.js", repo) == "lib/none.js"
    assert context.relative_to_repo("../a/test/t.js", repo) == "../a/test/t.js"
    assert (
        context.relative_to_repo(str(repo / "packages/a/lib/x.js"), repo) == "packages/a/lib/x.js"
    )


def test_the_data_the_spectrums_best_read_is_shown_when_a_lead_comes_first(
    tmp_path: Path,
) -> None:
    """The error text's lead takes one of the first places: the table a function further down
    the spectrum's ranking reads (a fix that changes data, whose lines run under no test) is
    still shown."""
    repo = make_repo(tmp_path, None)
    (repo / "box.py").write_text("class Box:\n    def fill(self):\n        self.price = 2\n")
    (repo / "fmt.py").write_text(
        "def one(x):\n    return x\n\n\ndef two(x):\n    return x\n\n\n"
        'TABLE = {"%f": "[0-9]{6}"}\n\n\ndef regex(x):\n    return TABLE[x]\n'
    )
    log = LOG + "E       AttributeError: 'Box' object has no attribute 'price'\n"
    ctx = fix_context(repo, failure=failure(log))
    suspects = [
        locate.Span("fmt.py", 1, 2, "one", 1.0),
        locate.Span("fmt.py", 5, 6, "two", 0.9),
        locate.Span("box.py", 2, 3, "fill", 0.9),
        locate.Span("fmt.py", 12, 13, "regex", 0.8),
    ]
    shown = context.gather(ctx, 6_000, suspects).reached
    assert shown.index("box.py") < shown.index("fmt.py")  # the lead first
    assert '"[0-9]{6}"' in shown


def test_a_constructor_the_failing_test_calls_is_shown_among_the_spectrums_first(
    tmp_path: Path,
) -> None:
    """werkzeug's shape: the failing test builds the object under test (`Box(...)`, whose
    `__init__` every passing test runs too, so the spectrum ranks it low); the second tier
    after the spectrum's first functions shows it even when the spectrum's ranking fills the
    budget on its own."""
    calc = "class Box:\n    def __init__(self, items):\n        self.items = items[1:]\n\n\n"
    test = "from calc import Box, total\n\n\ndef test_total():\n    total(Box([2, 3]).items)\n"
    repo = make_repo(tmp_path, {"calc.py": calc + CALC, "tests/test_calc.py": test})
    (repo / "helpers.py").write_text(HELPERS)
    shown = context.gather(fix_context(repo), 2_000, _suspects()).reached
    assert "self.items = items[1:]" in shown
    assert shown.index("helper_2") < shown.index("self.items") < shown.index("helper_3")


def test_the_table_a_suspect_reads_from_another_module_is_shown(tmp_path: Path) -> None:
    """sqlparse 0.4.4's miss: the splitter and the lexer were shown, not the lexer's rules in
    `keywords.py`, the module it imports them from (a module's top level runs at import, under
    no test, so no spectrum ranks it); the rules follow the lexer's function that reads them."""
    repo = make_repo(tmp_path, None)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "keywords.py").write_text(
        'def upper(x):\n    return x.upper()\n\n\nRULES = [\n    ("HANDLER FOR", 1),\n]\n'
    )
    (repo / "pkg" / "lexer.py").write_text(
        "from pkg import keywords\n\n\ndef tokens(text):\n"
        "    return [k for r, k in keywords.RULES if r == text]\n"
    )
    suspect = locate.Span("pkg/lexer.py", 4, 5, "tokens", 1.0)
    shown = context.gather(fix_context(repo), 6_000, [suspect]).reached
    assert '("HANDLER FOR", 1),' in shown
    assert shown.index("pkg/lexer.py") < shown.index("pkg/keywords.py lines 5-7 (module level)")


COMPLETE = (
    "def starts_option(value):\n"  # 1: every test runs it; the bug: "/" is no option
    "    return bool(value) and not value[0].isalnum()\n"
    "\n\n"
    "def unused(value):\n"  # 5: called on a line the failing run did not execute
    "    return value\n"
    "\n\n"
    "def resolve(args, incomplete):\n"  # 9
    "    if starts_option(incomplete):\n"
    "        return 'option'\n"
    "    if args:\n"
    "        return unused(args)\n"
    "    return 'value'\n"
)


def test_the_predicate_a_suspects_executed_branch_called_is_shown_among_the_spectrums_first(
    tmp_path: Path,
) -> None:
    """click's shape: the spectrum ranks `resolve` (its `return 'option'` ran under the failing
    test alone) but not `starts_option`, which every test runs, though its answer decided the
    branch; the function a suspect's executed line calls, that the run executed, is shown
    right after the spectrum's first three, before its tail. `unused`, called on a line the
    run did not execute, is not; without the lines the run executed none is."""
    repo = make_repo(tmp_path, None)
    (repo / "complete.py").write_text(COMPLETE)
    (repo / "helpers.py").write_text(HELPERS)
    resolve = locate.Span("complete.py", 9, 14, "resolve", 1.0, focus=(11,))
    ran = {"complete.py": frozenset({2, 10, 11})}
    suspects = locate.Ranked([resolve, *_suspects()[:12]], ran)
    shown = context.gather(fix_context(repo), 2_000, suspects).reached
    assert "return bool(value) and not value[0].isalnum()" in shown
    assert shown.index("helper_1") < shown.index("starts_option(value)") < shown.index("helper_2")
    assert "complete.py lines 5-6" not in shown
    assert context._ran_callees(repo, [resolve]) == []  # a plain list carries no executed lines


def test_the_callees_of_a_suspects_executed_lines_are_those_of_its_own_module(
    tmp_path: Path,
) -> None:
    """`pyrancalls.ran_callees`: `f()`, `self.f()` and `cls.f()` on an executed line, resolved in
    the suspect's own Python module, each once, itself and a non-Python file left out."""
    code = (
        "class Box:\n"
        "    def check(self, x):\n"  # 2
        "        return self.size(x) + helper(x) + other.size(x) + self.check(x - 1)\n"
        "\n"
        "    def size(self, x):\n"  # 5
        "        return x\n"
        "\n\n"
        "def helper(x):\n"  # 9
        "    return helper2(x)\n"
    )
    (tmp_path / "box.py").write_text(code)
    (tmp_path / "box.js").write_text(code)
    ran = {"box.py": frozenset({3, 6, 10}), "box.js": frozenset({3, 6, 10})}
    check = locate.Span("box.py", 2, 3, "check", 1.0)
    found = pyrancalls.ran_callees(tmp_path, check, ran)
    assert [(s.name, s.start, s.end, s.focus) for s in found] == [
        ("size", 5, 6, (6,)),
        ("helper", 9, 10, (10,)),
    ]
    assert pyrancalls.ran_callees(tmp_path, locate.Span("box.js", 2, 3, "check", 1.0), ran) == []
    assert pyrancalls.ran_callees(tmp_path, check, {"box.py": frozenset({6, 10})}) == []


CAUGHT = (
    "def compile(src):\n"  # 1: catches the parser's error and hands it on
    "    try:\n"
    "        return parse(src)\n"
    "    except ValueError:\n"
    "        handle(src)\n"  # 5
    "\n\n"
    "def handle(src):\n"  # 8
    "    raise rewrite(src)\n"
    "\n\n"
    "def rewrite(src):\n"  # 12
    "    return ValueError(src)\n"
    "\n\n"
    "def expect(tok):\n"  # 16
    "    raise ValueError(tok)\n"
    "\n\n"
    "def parse(src):\n"  # 20
    "    target = parse_target(src)\n"
    "    expect(target)\n"
    "\n\n"
    "def parse_target(src):\n"  # 25: returned what `expect` then refused; the fix's function
    "    return src\n"
)


def test_a_suspect_that_caught_the_failing_runs_error_gives_its_callee_slot_to_the_next(
    tmp_path: Path,
) -> None:
    """Jinja's shape (`{% set ns.a, ns.b = ... %}`): the spectrum's first function is
    `compile`, whose `except` body ran and handed the parser's error to `handle_exception`; its
    callees are the handling, not what decided the failure. It is passed over for the callees
    (still ranked), so the next suspects' are read: `parse`'s executed `parse_target`, which
    returned the target `expect` refused, comes in, and `handle` does not."""
    (tmp_path / "tpl.py").write_text(CAUGHT)
    ran = {"tpl.py": frozenset({2, 3, 5, 9, 13, 17, 21, 22, 26})}
    spans = {
        name: locate.Span("tpl.py", start, end, name, 2.0)
        for name, start, end in [
            ("compile", 1, 5),
            ("rewrite", 12, 13),
            ("expect", 16, 17),
            ("parse", 20, 22),
        ]
    }
    suspects = locate.Ranked(list(spans.values()), ran)
    assert [s.name for s in context._ran_callees(tmp_path, suspects)] == ["parse_target"]
    assert pyrancalls.caught_there(tmp_path, spans["compile"], ran)
    assert not pyrancalls.caught_there(tmp_path, spans["compile"], {"tpl.py": frozenset({2, 3})})
    assert not pyrancalls.caught_there(tmp_path, spans["parse"], ran)
    assert not pyrancalls.caught_there(tmp_path, locate.Span("tpl.js", 1, 5, "compile", 2.0), ran)
