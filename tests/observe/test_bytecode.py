"""The observer's reader of a body's code (`fixbot.observe.bytecode`), which reads the
comparisons of each watched body (`operands.operand_sources`) with nothing looked up at run time
where the project can rebind it: it gives what `dis` gives, instruction by instruction and line
start by line start, for every code object of several standard library modules and of
pytest-rewritten test modules, under this Python and each other one found
(`tests.fakes.pythons`), and `dis` rebound by the code under test changes nothing it reads."""

from __future__ import annotations

import dis
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixbot.observe import operands
from tests.fakes.pythons import pythons_from

ROOT = Path(__file__).resolve().parents[2]
READER = ROOT / "fixbot" / "observe" / "bytecode.py"
# test modules read as pytest rewrites them (their assertions: the comparisons the tracer reads)
REWRITTEN = [
    ROOT / "tests" / "observe" / "test_operands.py",
    ROOT / "tests" / "observe" / "test_observer.py",
    ROOT / "tests" / "run" / "test_observer_attacks_round11.py",
]
# run under each Python: every code object of these modules (compiled there from their source)
# and of the rewritten test modules, read by `dis` and by the reader; prints what differs
COMPARE = r"""
import ast, dis, importlib.util, json, sys

spec = importlib.util.spec_from_file_location("observer_bytecode", sys.argv[1])
bytecode = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bytecode)
RESOLVED = {
    "COMPARE_OP", "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST",
    "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_CLASSDEREF",
    "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST",
}
MODULES = ["dis", "json.decoder", "collections", "ast", "argparse", "dataclasses", "fractions",
           "_pydecimal", "asyncio.base_events"]
# comparisons past 256 constants and locals (EXTENDED_ARG), a closure's cells, lines past 255
WIDE = "\n" * 300 + "def wide(a):\n" + "".join(
    f"    v{n} = {n}.5\n" for n in range(300)
) + "    def inner():\n        return v299 == a and v1 < 2 and a != v298\n" + \
    "    assert v299 == 299.5 and a >= v0, inner()\n    return inner\n"


def codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield from codes(const)


def same(x, y):
    return x is y or (type(x) is type(y) and x == y) or (x != x and y != y)


def lines(found, starts):
    # the line each instruction lies in: the last start at or before it (how the tracer reads)
    return [([n for o, n in starts if o <= i[0]] or [0])[-1] for i in found]


def by_dis(code):
    found = [(i.offset, i.opname, i.argval if i.opname in RESOLVED else None)
             for i in dis.get_instructions(code)]
    return found, lines(found, sorted((o, n) for o, n in dis.findlinestarts(code) if n is not None))


def by_reader(code):
    found = [(o, n, v if n in RESOLVED else None) for o, n, v in bytecode.instructions(code)]
    return found, lines(found, bytecode.line_starts(code))


tops = []
for name in MODULES:
    found = importlib.util.find_spec(name)
    tops.append(compile(found.loader.get_source(name), found.origin, "exec"))
tops.append(compile(WIDE, "<wide>", "exec"))
rewritten = 0
try:
    from _pytest.assertion.rewrite import rewrite_asserts
except ImportError:
    rewrite_asserts = None
for path in sys.argv[2:] if rewrite_asserts is not None else ():
    source = open(path, encoding="utf-8").read()
    tree = ast.parse(source)
    rewrite_asserts(tree, source.encode(), path)
    tops.append(compile(tree, path, "exec"))
    rewritten += 1
checked, compares, differ = 0, 0, []
for top in tops:
    for code in codes(top):
        (dis_ins, dis_lines), (our_ins, our_lines) = by_dis(code), by_reader(code)
        checked += 1
        compares += sum(1 for i in dis_ins if i[1] == "COMPARE_OP")
        equal = len(dis_ins) == len(our_ins) and dis_lines == our_lines and all(
            a[:2] == b[:2] and same(a[2], b[2]) for a, b in zip(dis_ins, our_ins)
        )
        if not equal and len(differ) < 3:
            pairs = [(a, b) for a, b in zip(dis_ins, our_ins) if a[:2] != b[:2]
                     or not same(a[2], b[2])]
            differ.append(repr((code.co_name, code.co_filename, pairs[:2], dis_lines == our_lines)))
print(json.dumps({"checked": checked, "compares": compares, "rewritten": rewritten,
                  "differ": differ, "version": list(sys.version_info[:3])}))
"""


def _by_dis(code: Any) -> dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]:
    """The comparisons `operands.operand_sources` found while it read the code through `dis`
    (round 10's reading, kept here as the reference)."""
    found: dict[int, tuple[str, tuple[tuple[str, Any], ...], int]] = {}
    before: list[Any] = []
    starts = sorted((o, n) for o, n in dis.findlinestarts(code) if n is not None)
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("COMPARE_OP", "CONTAINS_OP"):
            op = str(instruction.argval)
            if instruction.opname == "CONTAINS_OP":
                op = "not in" if instruction.arg else "in"
            op = op[5:-1] if op.startswith("bool(") else op
            last = before[-2:]
            pushed = _pushed_by_dis(last)
            if op in operands.DECIDERS and pushed is not None:
                at = [n for o, n in starts if o <= instruction.offset]
                found[instruction.offset] = (op, pushed, at[-1] if at else 0)
        before.append(instruction)
        del before[:-2]
    return found


def _pushed_by_dis(last: list[Any]) -> tuple[tuple[str, Any], ...] | None:
    """Round 10's `_pushed` and `_source`, over `dis.Instruction`s."""
    if last and last[-1].opname in operands.PAIRS:
        first, second = last[-1].argval
        return ("local", first), ("local", second)
    loads = operands.LOADS | operands.STORE_LOADS
    if len(last) < 2 or any(i.opname not in loads for i in last):
        return None
    if last[-1].opname in operands.STORE_LOADS:
        return None
    pushed = []
    for i in last:
        if i.opname in operands.STORE_LOADS:
            pushed.append(("local", str(i.argval[1])))
        elif i.opname in ("LOAD_CONST", "LOAD_SMALL_INT"):
            pushed.append(("const", i.argval))
        else:
            pushed.append(("global" if i.opname == "LOAD_GLOBAL" else "local", str(i.argval)))
    return tuple(pushed)


def _codes(code: Any) -> list[Any]:
    """`code` and every code object nested in its constants."""
    found = [code]
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found += _codes(const)
    return found


def _rewritten(path: Path) -> Any:
    """The code of the test module at `path` as pytest's assertion rewriting compiles it."""
    import ast

    from _pytest.assertion.rewrite import rewrite_asserts

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    rewrite_asserts(tree, source.encode(), str(path))
    return compile(tree, str(path), "exec")


def test_the_comparisons_read_are_those_dis_reads_under_this_python() -> None:
    tops = [_rewritten(path) for path in REWRITTEN]
    for name in ("dis", "json.decoder", "argparse", "fractions", "_pydecimal"):
        found = importlib.util.find_spec(name)
        assert found is not None and found.loader is not None and found.origin is not None
        tops.append(compile(found.loader.get_source(name), found.origin, "exec"))  # type: ignore[attr-defined]
    codes = [code for top in tops for code in _codes(top)]
    read = 0
    for code in codes:
        ours = operands.operand_sources(code)
        assert ours == _by_dis(code), code
        read += len(ours)
    assert len(codes) > 500 and read > 300  # the rewritten assertions' comparisons among them


@pytest.mark.slow  # a process per Python, about 3 s each
def test_the_reader_gives_what_dis_gives_under_each_python() -> None:
    found = pythons_from((3, 8))
    assert found, "no Python with pytest to run the reader under"
    for python, version in found:
        done = subprocess.run(
            [python, "-c", COMPARE, str(READER), *map(str, REWRITTEN)],
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (version, done.stderr[-2000:])
        said = json.loads(done.stdout.splitlines()[-1])
        assert said["differ"] == [], (version, said["differ"])
        assert said["checked"] > 1000 and said["compares"] > 500, (version, said)
        assert said["rewritten"] == len(REWRITTEN), (version, said)


def test_dis_rebound_by_the_code_under_test_changes_nothing_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code = _rewritten(REWRITTEN[0])
    name = "test_a_list_of_the_class_the_start_compared_is_known_one_of_another_is_new"
    body = next(c for c in _codes(code) if c.co_name == name)
    before = operands.operand_sources(body)
    assert before and before == _by_dis(body)

    def rebound(x: Any, *args: Any, **kwargs: Any) -> Any:  # round 11's: every load a 0
        return iter([i._replace(opname="LOAD_CONST", argval=0) for i in real(x, *args, **kwargs)])

    real = dis.get_instructions
    monkeypatch.setattr(dis, "get_instructions", rebound)
    monkeypatch.setattr(dis, "findlinestarts", lambda code: iter([(0, 1)]))
    monkeypatch.setattr(dis, "cmp_op", ("==",) * 6)
    monkeypatch.setattr(dis, "opname", ["LOAD_CONST"] * 256)
    assert _by_dis(body) != before  # what reading through `dis` would now give
    builtins, names = sys.modules["builtins"], ("sorted", "len", "str", "range", "zip", "dict")
    held = {name: getattr(builtins, name) for name in names}
    for name in names:  # the builtins it uses, rebound too (put back at once)
        setattr(builtins, name, lambda *a, **k: [])
    try:
        again = operands.operand_sources(body)
    finally:
        for name, value in held.items():
            setattr(builtins, name, value)
    assert again == before
