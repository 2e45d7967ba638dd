"""Spectrum-based fault localization: Ochiai over the per-test lines of fixbot's line tracer,
loaded into the project's own Python processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fixbot.agent import locate, spectrum, tracerank
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
from tests.bench.cases import stats_case
from tests.fakes.gomodule import go_module


def test_ochiai() -> None:
    assert tracerank.ochiai(1, 0, 1) == 1.0
    assert tracerank.ochiai(1, 3, 1) == pytest.approx(0.5)
    assert tracerank.ochiai(0, 5, 2) == 0.0


def test_a_check_that_sets_pythonpath_itself_keeps_the_tracer_on_it(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    assert spectrum.traced("pytest -q", shim) == "pytest -q"
    assert spectrum.traced("PYTHONPATH=src pytest", shim) == f"PYTHONPATH=src:{shim} pytest"
    both = "cd sub && export PYTHONPATH=a; env PYTHONPATH='b c' python -m unittest"
    assert spectrum.traced(both, shim) == (
        f"cd sub && export PYTHONPATH=a:{shim}; env PYTHONPATH='b c':{shim} python -m unittest"
    )


def test_the_reports_of_several_processes_are_merged() -> None:
    one = {"files": {"a.py": {"contexts": {"2": ["t.test_a", ""]}}}}
    two = {"files": {"a.py": {"contexts": {"2": ["t.test_b"], "3": ["t.test_b"]}}}}
    output = f"{tracerank.MARK}\n{json.dumps(one)}\n{json.dumps(two)}\n"
    assert tracerank.parse(output) == {"a.py": {2: ["t.test_a", "t.test_b"], 3: ["t.test_b"]}}


def test_unittest_ids_name_their_contexts() -> None:
    spectra = {"a.py": {2: ["tests.test_x.T.test_a"], 3: ["tests.test_x.T.test_b"]}}
    # the check ran from a folder below the root: the id lacks the folder's part
    assert tracerank.scores(spectra, ["test_x.T.test_a"]) == {("a.py", 2): 1.0}


def test_the_lines_only_failing_tests_run_rank_first(tmp_path: Path) -> None:
    (tmp_path / "pkg.py").write_text(
        "def good(x):\n    return x\n\n\ndef bad(x):\n    return x + 1\n"
    )
    report = {
        "files": {
            "pkg.py": {"contexts": {"2": ["t.test_a", "t.test_b"], "6": ["t.test_b"]}},
            "tests/t.py": {"contexts": {"1": ["t.test_b"]}},  # a test file is never ranked
        }
    }
    output = "noise\n" + tracerank.MARK + "\n" + json.dumps(report)
    spans = tracerank.rank(tmp_path, tracerank.parse(output), ["tests/t.py::test_b"])
    assert [(s.name, round(s.score, 3)) for s in spans] == [("bad", 1.0), ("good", 0.707)]
    assert tracerank.parse("no marker") == {}
    assert tracerank.parse(tracerank.MARK + '\n{"files": {"cut') == {}  # a cut report: no ranking


@pytest.mark.slow
def test_the_lines_a_failing_test_ran_are_handed_on_with_the_ranking(tmp_path: Path) -> None:
    """`executed` (what `fixbot.agent.literals` narrows a common phrase to): the lines of the
    repository's non-test files a failing test ran, not those only passing tests ran, and no
    file outside the repository however the report spells it."""
    (tmp_path / "repo").mkdir()
    repo = tmp_path / "repo"
    (repo / "pkg.py").write_text("def good(x):\n    return x\n\n\ndef bad(x):\n    return x + 1\n")
    (tmp_path / "secret.py").write_text("TOKEN = 'hunter2'\n")
    (repo / "link.py").symlink_to(tmp_path / "secret.py")
    ran = {"2": ["t.test_a", "t.test_b"], "5": ["t.test_a"], "6": ["t.test_b"]}
    report = {
        "files": {
            "pkg.py": {"contexts": ran},
            str(repo / "pkg.py"): {"contexts": {"1": ["t.test_b"]}},  # the same file, absolute
            "tests/t.py": {"contexts": {"1": ["t.test_b"]}},  # a test file's lines are not
            **{p: {"contexts": {"1": ["t.test_b"]}} for p in ("link.py", "../secret.py")},
        }
    }
    spectra = tracerank.parse(tracerank.MARK + json.dumps(report))
    assert tracerank.executed(repo, spectra, ["tests/t.py::test_b"]) == {
        "pkg.py": frozenset({1, 2, 6})
    }
    assert tracerank.executed(repo, spectra, ["tests/t.py::test_c"]) == {}


@pytest.mark.slow
def test_the_check_under_coverage_through_the_launcher_ranks_the_buggy_function(
    tmp_path: Path,
) -> None:
    job = stats_case(tmp_path / "case")
    failing = ["tests/test_stats.py::test_mean"]
    found, why = spectrum.suspects(
        Launcher(
            job.repo,
            {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
            deadline=Deadline.start(None),
        ),
        job.repo,
        job.check,
        failing,
        120,
    )
    assert why is None
    # mean's last line and total run only under the failing test_mean (Ochiai 1.0); spread
    # and the 40 helpers, run by passing tests or by none, are not ranked
    assert sorted((s.path, s.name, s.score) for s in found) == [
        ("stats/core.py", "mean", 1.0),
        ("stats/core.py", "total", 1.0),
    ]
    ran = locate.executed(found)["stats/core.py"]  # the failing run's lines handed on
    assert {s.start + 1 for s in found} <= ran  # each ranked function's first body line
    assert not (job.repo / ".coverage").exists()  # its data stayed out of the work tree
    assert not list(job.repo.rglob("*.json"))


CORE = "def add(a, b):\n    return a + b + 1\n\n\ndef sub(a, b):\n    return a - b\n"
UNIT = (
    "import unittest\n\nfrom pkg.core import add, sub\n\n\n"
    "class T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
    "    def test_sub(self):\n        self.assertEqual(sub(3, 2), 1)\n"
)


def unittest_project(root: Path) -> Path:
    """A src-layout project in `root/proj` whose unittest suite needs PYTHONPATH=src."""
    proj = root / "proj"
    for rel, text in {
        "pyproject.toml": "",
        "src/pkg/__init__.py": "",
        "src/pkg/core.py": CORE,
        "tests/__init__.py": "",
        "tests/test_core.py": UNIT,
    }.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    return root


def interpreters() -> list[str]:
    """This Python and, where pyenv has them, the oldest CPythons fixbot's tracer supports."""
    found = [sys.executable]
    for version in ("3.8", "3.9"):
        found += sorted(
            str(p) for p in Path.home().glob(f".pyenv/versions/{version}.*/bin/python3")
        )
    return found[:3]


@pytest.mark.slow
@pytest.mark.parametrize("python", interpreters())
def test_a_unittest_check_after_cd_and_a_variable_is_traced_with_the_projects_python(
    tmp_path: Path, python: str
) -> None:
    root = unittest_project(tmp_path)
    check = f"cd proj && PYTHONPATH=src {python} -m unittest -v"
    found, why = spectrum.suspects(
        Launcher(root, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        root,
        check,
        ["tests.test_core.T.test_add"],  # unittest's id, as the log names it
        120,
    )
    assert why is None
    assert [(s.path, s.name, s.score) for s in found] == [("proj/src/pkg/core.py", "add", 1.0)]


@pytest.mark.slow
def test_a_check_whose_python_ignores_pythonpath_says_why(tmp_path: Path) -> None:
    root = unittest_project(tmp_path)
    found, why = spectrum.suspects(
        Launcher(root, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        root,
        f"cd proj && {sys.executable} -I -m unittest",  # isolated mode: no PYTHONPATH, no site
        ["tests.test_core.T.test_add"],
        120,
    )
    assert found == [] and why is not None and "tracer" in why


def test_a_report_naming_files_outside_the_repository_ranks_none_of_them(tmp_path: Path) -> None:
    """The report crosses back from the project's command: a forged one cannot put a file outside
    the repository (a secret beside it, a link out of it) into the model's request."""
    repo = tmp_path / "repo"
    repo.mkdir()
    secret = tmp_path / "secret.py"
    secret.write_text("def token():\n    return 'hunter2'\n")
    (repo / "link.py").symlink_to(secret)
    forged = {
        path: {"contexts": {"2": ["t.test_b"]}, "raised": {"2": ["t.test_b"]}}
        for path in (str(secret), "../secret.py", "link.py")
    }
    output = tracerank.MARK + json.dumps({"files": forged})
    raised = tracerank.parse(output, "raised")
    assert tracerank.rank(repo, tracerank.parse(output), ["tests/t.py::test_b"], raised) == []


GO_CODE = (
    "package calc\n\nfunc Add(a, b int) int {\n\tif a > 100 {\n\t\treturn 0\n\t}\n"
    "\treturn a + b + 1\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
)
GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n\n'
    'func TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal("sub")\n\t}\n}\n'
)


@pytest.mark.slow
def test_a_go_check_is_ranked_from_go_tests_own_cover_profiles(tmp_path: Path) -> None:
    repo, env = go_module(tmp_path, {"calc/calc.go": GO_CODE, "calc/calc_test.go": GO_TEST})
    found, why = spectrum.suspects(
        Launcher(repo, env, deadline=Deadline.start(None)), repo, "go test ./...", ["TestAdd"], 300
    )
    assert why is None
    # Add's lines run only under the failing TestAdd; Sub, run by the passing test, is not ranked
    assert [(s.path, s.name, s.score, s.focus) for s in found] == [
        ("calc/calc.go", "Add", 1.0, (3, 7))
    ]
    # the failing run's lines handed on: Add's, not its `if` body (lines 5-6: not taken)
    assert locate.executed(found) == {"calc/calc.go": frozenset({3, 4, 7})}


def test_a_go_profile_naming_files_outside_the_module_ranks_none_of_them(tmp_path: Path) -> None:
    """The profiles cross back from the project's command: a forged one cannot put a file
    outside the repository (by `..`, a link, another module's path) into the model's request."""
    from fixbot.agent import gocov

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "go.mod").write_text("module example.com/mod\n")
    secret = tmp_path / "secret.go"
    secret.write_text('package x\n\nfunc Token() string {\n\treturn "hunter2"\n}\n')
    (repo / "link.go").symlink_to(secret)
    names = ["example.com/mod/../secret.go", "example.com/mod/link.go", "other.org/x/secret.go"]
    profile = "mode: count\n" + "".join(f"{n}:3.22,5.2 1 1\n" for n in names)
    output = f"{gocov.MARK}\n{gocov.FAILING}\n{profile}{gocov.MARK}\n{profile}"
    failed, whole = gocov.parse(output)
    assert len(failed) == 3 and gocov.rank(repo, failed, whole) == []
    assert gocov.executed(repo, failed) == {}


def test_the_go_blocks_the_failing_run_executed_give_its_lines(tmp_path: Path) -> None:
    """A line ran when a block of the failing run's profile holding it has a count above 0; a
    test file's blocks and a forged block of 10^9 lines give none."""
    from fixbot.agent import gocov

    repo = tmp_path / "repo"
    (repo / "calc").mkdir(parents=True)
    (repo / "go.mod").write_text("module example.com/mod\n")
    (repo / "calc" / "calc.go").write_text(GO_CODE)
    (repo / "calc" / "calc_test.go").write_text(GO_TEST)
    blocks = ["calc.go:3.24,4.12 1 2", "calc.go:4.12,6.3 1 0", "calc.go:7.2,7.18 1 2"]
    blocks += ["calc_test.go:5.29,6.20 1 1", "calc.go:10.24,999999999.2 1 1"]
    profile = "".join(f"example.com/mod/calc/{b}\n" for b in blocks)
    failed, _ = gocov.parse(f"{gocov.MARK}\n{gocov.FAILING}\n{profile}{gocov.MARK}\n")
    assert gocov.executed(repo, failed) == {"calc/calc.go": frozenset({3, 4, 7})}


@pytest.mark.slow
def test_a_large_suites_report_crosses_back_whole(tmp_path: Path) -> None:
    """The log that carries the report back cuts lines at 64 KiB: 3,000 tests running the same
    lines must still come back readable (one value a line, the test names once)."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "core.py").write_text(
        "def shared(n):\n    return n\n\n\ndef bad(n):\n    return n + 1\n"
    )
    many = "".join(
        f"    def test_a_long_generated_name_{i:05}(self):\n        shared(1)\n\n"
        for i in range(3000)
    )
    (repo / "tests" / "test_many.py").write_text(
        "import unittest\n\nfrom core import bad, shared\n\n\n"
        "class Many(unittest.TestCase):\n"
        f"    def test_bad(self):\n        self.assertEqual(bad(shared(1)), 1)\n\n{many}"
    )
    found, why = spectrum.suspects(
        Launcher(repo, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        repo,
        f"{sys.executable} -m unittest tests.test_many",
        ["tests.test_many.Many.test_bad"],
        300,
    )
    assert why is None
    assert [(s.name, round(s.score, 3)) for s in found] == [("bad", 1.0), ("shared", 0.018)]


@pytest.mark.slow
@pytest.mark.parametrize("runner", ["pytest", "unittest"])
def test_tests_after_a_recursion_error_are_still_traced(tmp_path: Path, runner: str) -> None:
    """A RecursionError in the code under test stops CPython calling the trace function: the
    tracer is armed again before each test, so the passing tests after it still count."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "core.py").write_text(
        "def shared(n):\n    return n\n\n\ndef loop(n):\n    return loop(shared(n))\n"
    )
    (repo / "tests" / "test_deep.py").write_text(
        "import unittest\n\nfrom core import loop, shared\n\n\n"
        "class Deep(unittest.TestCase):\n"
        "    def test_a_recursion(self):\n        self.assertEqual(loop(1), 1)\n\n"
        "    def test_b_later(self):\n        self.assertEqual(shared(1), 1)\n"
    )
    python = f"{sys.executable} -m " + (
        "pytest -q -p no:cacheprovider" if runner == "pytest" else "unittest"
    )
    failing = (
        "tests/test_deep.py::Deep::test_a_recursion"
        if runner == "pytest"
        else "tests.test_deep.Deep.test_a_recursion"
    )
    found, why = spectrum.suspects(
        Launcher(repo, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        repo,
        f"{python} tests/test_deep.py" if runner == "pytest" else f"{python} tests.test_deep",
        [failing],
        300,
    )
    assert why is None
    # shared also ran under the passing test_b_later: without re-arming it would score 1.0
    assert [(s.name, round(s.score, 3)) for s in found] == [("loop", 1.0), ("shared", 0.707)]


def test_a_parameter_set_that_passed_is_a_passing_test() -> None:
    spectra = {
        "a.py": {
            2: ["tests.test_s.test_sign[5-1]", "tests.test_s.test_sign[-5--1]"],
            3: ["tests.test_s.test_sign[-5--1]"],
            4: ["tests.test_s.test_sign[5-1]"],
        }
    }
    failing = ["tests/test_s.py::test_sign[-5--1]"]
    assert tracerank.scores(spectra, failing) == {
        ("a.py", 2): pytest.approx(0.707, abs=1e-3),
        ("a.py", 3): 1.0,
    }
    # an id cut at a space of its parametrization names the parameter sets it starts
    cut = {"a.py": {2: ["tests.test_s.test_u[1 ms]"], 3: ["tests.test_s.test_u[2 ms]"]}}
    assert tracerank.scores(cut, ["tests/test_s.py::test_u[1"]) == {("a.py", 2): 1.0}
    # an id without its parametrization (or a context without one) matches by the name alone
    assert set(tracerank.scores(spectra, ["tests/test_s.py::test_sign"])) == {
        ("a.py", 2),
        ("a.py", 3),
        ("a.py", 4),
    }


def test_the_lines_an_exception_left_by_under_a_failing_test_rank_first() -> None:
    spectra = {"a.py": {2: ["t.test_a", "t.test_b"], 5: ["t.test_b"]}}
    raised = {"a.py": {2: ["t.test_b"]}, "tests/t.py": {9: ["t.test_b"]}}
    found = tracerank.scores(spectra, ["tests/t.py::test_b"], raised)
    assert found == {("a.py", 2): pytest.approx(1.707, abs=1e-3), ("a.py", 5): 1.0}


PARAM_CORE = """\
class Box:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v

    def __repr__(self):
        return f"Box({self.v})"


def sign(n):
    if n < 0:
        return Box(-1 + 1)
    return Box(1)


def run(n):
    try:
        return handle(n)
    except ValueError:
        return report(n)


def handle(n):
    return check(n) * 2


def check(n):
    if n < 0:
        raise ValueError(n)
    return n


def report(n):
    message = f"bad {n}"
    return len(message) * 0
"""
PARAM_TESTS = """\
import pytest

from core import Box, run, sign


@pytest.mark.parametrize("n,want", [(5, 1), (-5, -1)])
def test_sign(n, want):
    assert sign(n) == Box(want)


@pytest.mark.parametrize("n", [1, -1])
def test_run(n):
    assert run(n) == 2 * n
"""


@pytest.mark.slow
def test_pytests_parameter_sets_its_reports_and_a_caught_exception_rank_as_they_run(
    tmp_path: Path,
) -> None:
    """Each parameter set is a test of its own; the `repr` pytest calls for a failed
    assertion's message is not the test's work; the lines an exception unwound through under
    a failing test (caught inside the code, no traceback) rank above those it merely ran."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "core.py").write_text(PARAM_CORE)
    (repo / "tests" / "test_p.py").write_text(PARAM_TESTS)
    found, why = spectrum.suspects(
        Launcher(repo, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        repo,
        f"PYTHONPATH=. {sys.executable} -m pytest -q -p no:cacheprovider tests",
        ["tests/test_p.py::test_sign[-5--1]", "tests/test_p.py::test_run[-1]"],
        300,
    )
    assert why is None
    ranked = {s.name: (round(s.score, 3), s.focus) for s in found}
    # of sign's lines, the failing parameter set alone ran the one that builds its wrong value
    assert ranked["sign"] == (0.707, (14,))
    assert "__repr__" not in ranked
    # check raised, handle and run let the error through; report ran after it was caught
    assert sorted(s.name for s in found[:3]) == ["check", "handle", "run"]
    assert ranked["report"][0] == 0.707 and ranked["handle"][0] > 1.0


@pytest.mark.slow
def test_a_repositorys_own_pytest_package_is_traced_as_any_code(tmp_path: Path) -> None:
    """Only pytest's installed code is left untraced while a test runs: code of the repository
    under a `_pytest` folder (pytest's own repository) and what it calls still count."""
    repo = tmp_path / "repo"
    (repo / "lib" / "_pytest").mkdir(parents=True)
    (repo / "tests").mkdir()
    for folder in ("lib", "lib/_pytest", "tests"):
        (repo / folder / "__init__.py").write_text("")
    (repo / "lib" / "_pytest" / "runner.py").write_text("def call(f):\n    return f()\n")
    (repo / "lib" / "core.py").write_text("def work():\n    return 2\n")
    (repo / "tests" / "test_run.py").write_text(
        "import unittest\n\nfrom lib._pytest.runner import call\nfrom lib.core import work\n\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_work(self):\n        self.assertEqual(call(work), 1)\n\n"
        "    def test_other(self):\n        self.assertEqual(1, 1)\n"
    )
    found, why = spectrum.suspects(
        Launcher(repo, {"PATH": "/usr/bin:/bin"}, deadline=Deadline.start(None)),
        repo,
        f"{sys.executable} -m unittest tests.test_run",
        ["tests.test_run.T.test_work"],
        300,
    )
    assert why is None
    assert sorted(s.name for s in found) == ["call", "work"]


def test_the_module_a_failing_tests_file_is_named_after_ranks_among_the_first(
    tmp_path: Path,
) -> None:
    """Markdown 3.5.2's shape: two failing tests of `test_attr_list` and one of
    `test_fenced_code`, whose module's function the passing fenced tests run too; by Ochiai
    alone it ranks last, below code every failing test shares. Its test's file names it: it
    moves up to second, the others keep their order. A namesake already among the first three
    does not move."""
    for name in ("attr_list", "shared", "core", "fenced_code"):
        (tmp_path / f"{name}.py").write_text("def run(x):\n    return x\n")
    bad = ["t.test_attr_list.T.test_a", "t.test_attr_list.T.test_b", "t.test_fenced_code.F.test_c"]
    good = [f"t.test_fenced_code.F.test_ok{k}" for k in range(8)]
    spectra = {
        "attr_list.py": {2: bad},
        "shared.py": {2: [*bad, "t.test_other.O.test_ok"]},
        "core.py": {2: [*bad, *good[:2]]},
        "fenced_code.py": {2: [bad[2], *good]},
    }
    spans = tracerank.rank(tmp_path, spectra, bad)
    assert [s.path for s in spans] == ["attr_list.py", "fenced_code.py", "shared.py", "core.py"]
    assert spans[1].score < spans[3].score  # moved, its own score kept
    ranked = [s for s in spans if s.path != "fenced_code.py"]
    again = tracerank.namesakes_first(ranked, bad)
    assert again == ranked  # attr_list's is first already; fenced_code has none here
    assert [tracerank.tested_module(t) for t in [*bad[:1], "tests/x_test.py::T::t[a.b]"]] == [
        "attr_list",
        "x",
    ]
    assert tracerank.tested_module("tests/conftest.py::t") is None
    assert tracerank.tested_module("TestGoName") is None


def test_among_equal_scores_the_function_holding_the_tests_quoted_names_ranks_first(
    tmp_path: Path,
) -> None:
    """Click 8.0.0's shape: five help functions only the failing test runs tie at 1.0, the
    fix's (`get_help_record`, the file's last) placed last by path and line. The failing test's
    code in the traceback names `show_default`, which it alone holds: it comes first. The
    failing statement (`>` and its continuation: `exit_code`, `usage_text`) and the printed
    values (`E` lines) are what the test reads back, not what it drives; a line that is not
    code (`the_header`) is none, and a name more than a quarter of the ranked functions hold
    (`options`, `params`) names none of them."""
    bodies = {
        "get_help": "ctx.exit_code",
        "format_help": "self.options; self.params; usage_text",
        "show_help": "print(self)",
        "format_options": "self.options; self.params",
        "get_help_record": "self.show_default",
    }
    (tmp_path / "core.py").write_text(
        "".join(f"def {name}(self, ctx):\n    {body}\n\n\n" for name, body in bodies.items())
    )
    spectra = {"core.py": {2 + 4 * k: ["t.test_help"] for k in range(len(bodies))}}
    evidence = (
        "_____ test_help: the_header _____\n"
        "    def test_help(runner):\n"
        "        cli = click.Command('cli', params=[click.Option(['-a'], show_default=True)])\n"
        "        options = cli.params\n"
        ">       assert runner.invoke(cli).exit_code == (\n"
        "            cli.usage_text\n"
        "        )\n"
        "E       assert 2 == 0\n"
        "E        +  where 2 = <Result>.width_value\n"
        "\n"
        "tests/t.py:4: AssertionError\n"
    )
    names = tracerank.quoted_names(evidence)
    assert names >= {"show_default", "options", "params", "runner", "click"}
    assert not names & {"the_header", "exit_code", "usage_text", "width_value", "invoke"}
    spans = tracerank.rank(tmp_path, spectra, ["tests/t.py::test_help"], None, evidence)
    assert {s.score for s in spans} == {1.0}
    assert [s.name for s in spans] == [
        "get_help_record",
        "get_help",
        "format_help",
        "show_help",
        "format_options",
    ]
    plain = tracerank.rank(tmp_path, spectra, ["tests/t.py::test_help"])
    assert [s.name for s in plain][-1] == "get_help_record"  # without the evidence: by line
