"""The house's rules, read from the code's own imports (AST): no import cycle, no import from a
lower layer into a higher one, and no import chain deeper than `MAX_DEPTH` modules.

For cycles and layers every import counts: at module level, under `TYPE_CHECKING` and inside
functions (an import inside a function is still a dependency; hiding one there does not make a
layer lower). The depth is counted in the tree's rooms, as `ls fixbot/` shows them: each
top-level package (`fixbot/logs/`, `fixbot/github/`, ...) and each top-level module is a room,
and a chain of module-level imports (`TYPE_CHECKING` ones included) is as deep as the rooms it
passes through; an import inside a function runs only when called (the command line imports its
commands that way, so `fixbot --help` starts fast). `module_depth` gives the same chain counted in
modules, for the record (docs/ARCHITECTURE.md).
docs/ARCHITECTURE.md describes the layers; `LAYERS` below is their one machine-readable copy.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.fakes.paths import ROOT

PACKAGE = ROOT / "fixbot"
MAX_DEPTH = 9  # rooms in the longest import chain (see `room`), the importing one included

# Lowest first. A module may import its own layer's modules and any lower layer's, never a
# higher one's. The longest prefix names a module's layer.
LAYERS: list[tuple[str, ...]] = [
    # the package face (`__version__`), settings, models, errors; one module per language ecosystem
    ("fixbot", "fixbot.core", "fixbot.ecosystems"),
    ("fixbot.security",),  # redaction, the leak scan
    ("fixbot.process",),  # running commands, the sandbox, git, the lock
    ("fixbot.logs", "fixbot.infer"),  # job logs read; the CI and task files read (zero config)
    ("fixbot.tamper",),  # the tampering rules: read at edit time and on the final diff
    ("fixbot.observe",),  # the observer inside the test runner: its plugin, channel, judgement
    ("fixbot.policy",),  # the run's policy, pure: rules, steps, breaker, state, recovery plans
    ("fixbot.agent",),  # the model agent: prompts, tools, the fixer, the reviewer
    ("fixbot.ui",),  # progress output, workflow commands
    ("fixbot.run",),  # a run, start to end: engine, executor, phases, verify, store, report
    ("fixbot.github.events",),  # GitHub, pure: event, intent, gates, comment commands
    ("fixbot.github.publish",),  # GitHub, pure: the publish plan, rendered bodies, memory
    ("fixbot.github.api",),  # GitHub adapters: REST, GraphQL, checkout, context
    ("fixbot.github",),  # the Action's wiring: action, publisher, conversation, ...
    ("fixbot.bench",),  # fixbot bench: the corpus of real failures, preparing and verifying it
    ("fixbot.cli", "fixbot.arguments", "fixbot.startup", "fixbot.__main__"),  # the entry points
]


def module_name(path: Path) -> str:
    """`fixbot/run/engine.py` -> `fixbot.run.engine`; a package's `__init__.py` -> the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path, *, lazy: bool = True) -> set[str]:
    """The package's modules `name` imports, wherever the import stands (`lazy`: also inside
    functions)."""
    known = modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in statements(ast.parse(path.read_text(encoding="utf-8")), lazy):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("fixbot"):
                found.add(target)
    # `from fixbot.x import y` names both `fixbot.x.y` (a module) and `fixbot.x`: keep the deepest
    return {t for t in found if not any(o.startswith(t + ".") for o in found) or t == "fixbot"}


def statements(tree: ast.AST, lazy: bool) -> list[ast.AST]:
    """Every node of `tree`; without `lazy`, none inside a function body."""
    if lazy:
        return list(ast.walk(tree))
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        todo += [
            child
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        ]
    return found


@cache
def graph(lazy: bool = True) -> dict[str, frozenset[str]]:
    """Module -> the package's modules it imports (`lazy`: counting imports inside functions)."""
    return {name: frozenset(imported(name, path, lazy=lazy)) for name, path in modules().items()}


def layer(name: str) -> int:
    """The index in `LAYERS` of the longest prefix that names `name`'s layer."""
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    return rank


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """Each import cycle once, as the list of its modules (Tarjan's strongly connected parts)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def depth(edges: dict[str, frozenset[str]]) -> tuple[int, list[str]]:
    """The longest import chain (modules in it) and one chain of that length (acyclic graph)."""

    @cache
    def longest(node: str) -> tuple[str, ...]:
        # Sorted: of chains equally long, the same one every run (sets iterate by hash).
        below = [longest(n) for n in sorted(edges.get(node, ()))]
        return (node, *max(below, key=len, default=()))

    chain = max((longest(n) for n in sorted(edges)), key=len)
    return len(chain), list(chain)


def test_every_module_has_a_layer() -> None:
    assert [name for name in modules() if layer(name) < 0] == []


def test_no_import_cycle() -> None:
    assert cycles(dict(graph())) == []


def test_no_module_imports_a_higher_layer() -> None:
    upward = [
        f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})"
        for name, targets in graph().items()
        for target in sorted(targets)
        if layer(target) > layer(name)
    ]
    assert upward == []


def room(name: str) -> str:
    """The room of module `name`: `fixbot.logs.dialects.go` -> `fixbot.logs`; `fixbot.cli` is
    its own."""
    parts = name.split(".")
    return ".".join(parts[:2])


def rooms(edges: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The import graph between rooms (a room's imports of itself left out)."""
    joined: dict[str, set[str]] = {}
    for name, targets in edges.items():
        joined.setdefault(room(name), set()).update(room(t) for t in targets)
    return {r: frozenset(t - {r}) for r, t in joined.items()}


def module_depth() -> tuple[int, list[str]]:
    """The longest chain of module-level imports counted in modules, and one such chain."""
    return depth(dict(graph(lazy=False)))


def test_the_import_chain_is_at_most_nine_rooms_deep() -> None:
    length, chain = depth(rooms(dict(graph(lazy=False))))
    assert length <= MAX_DEPTH, " -> ".join(chain)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": frozenset({"b"}), "b": frozenset({"a"})}, [["a", "b"]]),
        ({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset()}, []),
        ({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"})}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(
    edges: dict[str, frozenset[str]], expected: list[list[str]]
) -> None:
    """The checker itself: a two- and a three-module cycle are found, a chain is not one."""
    assert cycles(edges) == expected


def test_the_layer_rule_sees_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: `layer` ranks a run module above a loop module, and `imported`
    reads a function-level and a `TYPE_CHECKING` import from source."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from fixbot.run.engine import run\n"
        "def f():\n    from fixbot.github import action\n"
    )
    assert imported("fixbot.policy.probe", source) == {"fixbot.run.engine", "fixbot.github.action"}
    assert imported("fixbot.policy.probe", source, lazy=False) == {"fixbot.run.engine"}
    assert layer("fixbot.run.engine") > layer("fixbot.policy.rules")
    assert layer("fixbot.github.api.rest") > layer("fixbot.github.publish.plan")


def test_the_architecture_page_lists_the_same_layers() -> None:
    """docs/ARCHITECTURE.md's layer table names the packages of `LAYERS`, in the same order."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    documented = [
        tuple(
            sorted(
                "fixbot." + name.strip(" `/").removesuffix(".py").replace("/", ".")
                for name in row.split("|")[2].split(",")
            )
        )
        for row in rows
    ]
    expected = [tuple(sorted(p for p in layer if p != "fixbot")) for layer in LAYERS]
    assert documented == expected


def test_the_architecture_page_states_todays_depths() -> None:
    """The depths docs/ARCHITECTURE.md gives, in rooms and in single modules, are today's: a
    change that deepens the chain says so there."""
    text = " ".join((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8").split())
    in_rooms, chain = depth(rooms(dict(graph(lazy=False))))
    in_modules, _ = module_depth()
    named = ", ".join(r.removeprefix("fixbot.") for r in chain)
    assert f"today the deepest passes through {in_rooms} ({named})." in text
    assert f"Counted in single modules the deepest chain is {in_modules} long" in text


def test_every_package_says_its_role_in_one_sentence() -> None:
    """`help(fixbot.policy)` and the drawn house show what each room is for, not its path."""
    vague = []
    for init in sorted((ROOT / "fixbot").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        summary = doc.strip().split("\n\n")[0]
        name = init.parent.relative_to(ROOT).as_posix()
        if len(summary.split()) < 5 or summary.rstrip(".:") in (name, name.replace("/", ".")):
            vague.append(f"{name}: {summary!r}")
    assert not vague, "packages whose docstring names no role:\n" + "\n".join(vague)


def _rows() -> list[tuple[list[str], str]]:
    """docs/ARCHITECTURE.md's layer table: (the packages of a row, the text of its files column)."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| ")]
    return [
        ([p.strip(" `/") for p in row[2].split(",")], row[3])
        for row in rows
        if row[1].strip().isdigit()
    ]


def test_the_architecture_page_lists_every_file_of_each_room() -> None:
    """Each row of the layer table names every module and sub-folder of its packages (those
    without a row of their own), and nothing that is not there."""
    listed_elsewhere = {p for packages, _ in _rows() for p in packages}
    problems = []
    for packages, files in _rows():
        named = set(re.findall(r"`([\w/]+(?:\.py)?/?)`", files))
        named |= {n.split("/", 1)[1] for n in named if n.split("/")[0] in packages and "/" in n}
        for package in packages:
            folder = ROOT / "fixbot" / package
            if not folder.is_dir():
                continue
            for child in sorted(folder.iterdir()):
                if child.name.startswith(("_", ".")) or child.name == "queries":
                    continue
                if child.is_dir() and f"{package}/{child.name}" in listed_elsewhere:
                    continue
                entry = child.name + ("/" if child.is_dir() else "")
                if (child.suffix == ".py" or child.is_dir()) and not (
                    entry in named or child.name in named
                ):
                    problems.append(f"{package}/{entry} is not on the page")
        present = {
            name
            for package in packages
            for name in named
            if (ROOT / "fixbot" / package / name.rstrip("/")).exists()
        }
        for name in named - present:
            if name.endswith((".py", "/")) and not any(
                (ROOT / "fixbot" / package).glob(f"**/{name.rstrip('/')}") for package in packages
            ):
                problems.append(f"{'/'.join(packages)}: `{name}` does not exist")
    assert not problems, "\n".join(problems)


def test_every_subprocess_starts_in_process() -> None:
    """The map says every subprocess fixbot starts starts in `fixbot/process/`: no other module
    calls `subprocess`, `os.system`, `os.spawn*` or `os.posix_spawn*`. (`startup.py`'s `os.execve`
    replaces fixbot with itself, without the secrets in its environment: no new process.)"""
    starters = re.compile(
        r"subprocess\.(run|Popen|call|check_call|check_output|getoutput)\(|"
        r"os\.(system|popen|spawn\w*|posix_spawn\w*|fork)\("
    )
    outside = [
        path.relative_to(ROOT).as_posix()
        for name, path in modules().items()
        if not name.startswith("fixbot.process")
        and starters.search(path.read_text(encoding="utf-8"))
    ]
    assert outside == []


# the stages of a run (`fixbot/run/phases/`): each imports `base.py`, none another stage's module;
# a part split out of a stage (`judging.py`, fixing's verify) is imported by that stage alone
PHASE_PARTS = {"fixbot.run.phases.judging": "fixbot.run.phases.fixing"}


def test_no_stage_of_a_run_imports_another() -> None:
    """docs/ARCHITECTURE.md's `phases/` row: a stage imports `base` and its own parts only."""
    edges = graph()
    phases = {name for name in edges if name.startswith("fixbot.run.phases.")}
    crossing = sorted(
        (name, other)
        for name in phases
        for other in edges[name] & phases
        if other != "fixbot.run.phases.base" and PHASE_PARTS.get(other) != name
    )
    assert crossing == []
    # the rule sees a part imported by a stage other than its own
    assert PHASE_PARTS.get("fixbot.run.phases.judging") != "fixbot.run.phases.ending"
