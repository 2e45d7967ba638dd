"""CONTRIBUTING's test-tier rules, held: no test outside the `slow` tier asserts a wall-clock
upper bound (a loaded machine breaks it), and a test that starts a Python is marked `slow`
(observed for every test by `tests.fakes.tiers`; its parts are tested here)."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from tests.fakes import tiers
from tests.fakes.paths import ROOT

CLOCKS = {
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "time",
    "time_ns",
    "now",
    "utcnow",
}


def is_slow(decorators: list[ast.expr]) -> bool:
    """True when one of `decorators` (or a `pytestmark` value's items) is `pytest.mark.slow`."""
    for decorator in decorators:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(node, ast.Attribute) and node.attr == "slow":
            return True
    return False


def reads_clock(node: ast.AST, clocked: set[str]) -> bool:
    """True when `node` calls a clock (`time.monotonic()`, `perf_counter()`, ...) or reads a
    name bound to a clock's reading."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in CLOCKS:
                return True
        if isinstance(sub, ast.Name) and sub.id in clocked:
            return True
    return False


def wall_clock_bounds(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """Lines of `function` asserting that a clock's reading (an elapsed time) stays below a
    bound: `assert time.monotonic() - started < 1.0`, `took = ...; assert took <= 5`."""
    clocked: set[str] = set()
    for _ in range(3):  # names bound from names bound from a clock
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and reads_clock(node.value, clocked):
                clocked |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    lines = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Assert):
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [compare.left, *compare.comparators]
            for op, left, right in zip(compare.ops, sides[:-1], sides[1:], strict=True):
                upper = isinstance(op, ast.Lt | ast.LtE) and reads_clock(left, clocked)
                lower = isinstance(op, ast.Gt | ast.GtE) and reads_clock(right, clocked)
                if upper or lower:
                    lines.append(node.lineno)
    return lines


def fast_wall_clock_bounds(source: str) -> list[str]:
    """`function:line` of each wall-clock upper bound in a test of `source` not marked slow."""
    tree = ast.parse(source)
    module_slow = False
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            values = (
                node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            )
            module_slow = module_slow or is_slow(values)
    if module_slow:
        return []
    found = []
    holders = [tree, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
    for holder in holders:
        if isinstance(holder, ast.ClassDef) and is_slow(holder.decorator_list):
            continue
        for function in holder.body:
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if function.name.startswith("test") and not is_slow(function.decorator_list):
                found += [f"{function.name}:{line}" for line in wall_clock_bounds(function)]
    return found


def test_no_fast_test_asserts_a_wall_clock_bound() -> None:
    """A load of 8 on 2 cores stretches any step tenfold: outside the `slow` tier a test bounds
    the work (a count, an event), never the seconds it took."""
    found = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if "data" in path.relative_to(ROOT / "tests").parts:
            continue
        bounds = fast_wall_clock_bounds(path.read_text(encoding="utf-8"))
        if bounds:
            found[str(path.relative_to(ROOT))] = bounds
    assert found == {}, "mark these tests slow with a generous bound, or bound the work instead"


def test_the_wall_clock_finder_sees_each_form_and_passes_over_slow_tests() -> None:
    source = """
import time
import pytest
from time import perf_counter

def test_direct():
    started = time.monotonic()
    assert time.monotonic() - started < 1.0

def test_through_names():
    start = perf_counter()
    work()
    took = perf_counter() - start
    assert 0 <= took <= 5

def test_reversed():
    started = time.time()
    assert 2 > time.time() - started

def test_lower_bound_only():
    started = time.monotonic()
    assert time.monotonic() - started >= 1.0  # a retry waited: load cannot break it

def test_a_timestamp_is_data():
    assert record.at <= int(time.time())

@pytest.mark.slow
def test_slow():
    started = time.monotonic()
    assert time.monotonic() - started < 30
"""
    assert fast_wall_clock_bounds(source) == [
        "test_direct:8",
        "test_through_names:14",
        "test_reversed:18",
    ]
    slow_module = "import pytest\npytestmark = [pytest.mark.slow]\n" + source
    assert fast_wall_clock_bounds(slow_module) == []


def stand_in(folder: Path, name: str, first_line: str) -> Path:
    """An executable `name` in `folder` that exits 0 (never a real Python: this test stays fast)."""
    folder.mkdir(exist_ok=True)
    program = folder / name
    program.write_text(f"{first_line}\nexit 0\n")
    program.chmod(0o755)
    return program


def test_a_python_is_known_by_its_file_or_its_first_line(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "python3.11", "#!/bin/sh")
    stand_in(bin_dir, "pytest", "#!/work/.venv/bin/python")
    stand_in(bin_dir, "fixbot", "#!/usr/bin/env python3")
    stand_in(bin_dir, "ruff-wrapper", "#!/bin/sh")
    (bin_dir / "python").symlink_to(bin_dir / "python3.11")
    (bin_dir / "py").symlink_to(bin_dir / "python3.11")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    assert tiers.pythons_in(["python", "-c", "pass"], env) == ["python"]
    assert tiers.pythons_in([str(bin_dir / "py")], env) == [str(bin_dir / "py")]  # real name
    assert tiers.pythons_in(["fixbot", "run"], env) == ["fixbot"]
    assert tiers.pythons_in(["ruff-wrapper"], env) == []
    assert tiers.pythons_in(["git", "status"], env) == []
    shell = "cd repo && A=1 pytest -q || env B=2 fixbot run; echo python\nexec python3.11 -V"
    assert tiers.pythons_in(["/bin/sh", "-c", shell], env) == ["pytest", "fixbot", "python3.11"]
    assert tiers.pythons_in(["/bin/sh", "-c", "ruff-wrapper python"], env) == []
    unshared = ["/usr/bin/unshare", "--pid", "--fork", "/bin/sh", "-c", "cd x && python -V"]
    assert tiers.pythons_in(unshared, env) == ["python"]
    assert tiers.pythons_in(["setpriv", "--reuid=1001", str(bin_dir / "fixbot")], env) == [
        str(bin_dir / "fixbot")
    ]
    assert tiers.pythons_in(["/usr/bin/unshare", "--pid", "/bin/sh", "-c", "true"], env) == []


def test_a_started_python_is_recorded_and_fails_a_fast_test(tmp_path: Path) -> None:
    """The audit hook sees a spawn (here a stand-in `python3`, a shell script), the fast test's
    call then fails naming it; `git` passes unrecorded."""
    python = stand_in(tmp_path / "bin", "python3", "#!/bin/sh")
    subprocess.run(["git", "--version"], capture_output=True, check=True)
    assert tiers.take() == []
    subprocess.run([str(python), "-c", "pass"], check=True)
    subprocess.run(f"cd {tmp_path} && {python} -V", shell=True, check=True)
    started = tiers.take()
    assert len(started) == 2 and all(str(python) in line for line in started)

    class Fast:
        def get_closest_marker(self, name: str) -> None:
            return None

    call = tiers.pytest_runtest_call(Fast())  # type: ignore[arg-type]
    next(call)
    subprocess.run([str(python)], check=True)
    with pytest.raises(pytest.fail.Exception, match="not marked slow but starts a Python"):
        call.send(None)
