"""Tests a fix may remove: those the start's run REPORTED xfailed, every item of them.

A test pytest reported `xfailed` cannot turn the check red by failing, so removing it hides no
failure (python-dateutil 2.8.2's isoparse fix removes two such known-failure tests as it adds
their rows to the real ones: `bench/corpus/test-change/`). What excuses a removed test function
is what the runner reported about it at the start, never its text: a project running
`--runxfail`, a mark with `raises=` or a condition makes a marked test a real one, and pytest's
report says so (JUnit's `<skipped type="pytest.xfail">`, read as "xfailed" by
`fixbot.logs.dialects.base.junit_outcomes`; the source: pytest's `junitxml.py`,
`_NodeReporter.append_skipped`, 8.3.3).

The excuse is exact: a removed function of a test file is excused when the start's report
names at least one of its items (`module::name`, `module::name[param]`, `module.Class::name`)
and every one of them is "xfailed" and absent from the verifying run's report; the count rules
(`fixbot.tamper.reports.counted`, `disagreements`) subtract exactly those items. A removed test
that passed, failed or was skipped at the start, or that no report names (no report, another
rootdir), stays `test-removed` / `fewer-tests`. Pure.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from fixbot.tamper import asserts
from fixbot.tamper.changes import Change, is_harness
from fixbot.tamper.reports import module_of

XFAILED = "xfailed"


@dataclass(frozen=True)
class Excuse:
    """The removed test functions excused (`functions`: `(path, name)` pairs) and their items
    in the start's report (`ids`, the runner's ids)."""

    functions: frozenset[tuple[str, str]] = frozenset()
    ids: frozenset[str] = frozenset()


NONE = Excuse()


def items(path: str, name: str, report: Mapping[str, str]) -> list[str]:
    """The ids of `report` (JUnit's `classname::name[param]`) that are items of the test
    function `name` of the Python file `path` (repository-relative)."""
    module = module_of(path)
    found = []
    for test in report:
        where, _, what = test.partition("::")
        if what.split("[", 1)[0] == name and (where == module or where.startswith(module + ".")):
            found.append(test)
    return found


def whole(path: str, name: str, start: Mapping[str, str] | None) -> bool:
    """Whether the start's report `start` names items of function `name` of `path`, every one
    reported xfailed."""
    report = start or {}
    return _all_xfailed(items(path, name, report), report)


def _all_xfailed(found: list[str], report: Mapping[str, str]) -> bool:
    """Whether `found` (ids of `report`) is not empty and each was reported xfailed."""
    return bool(found) and all(report[test] == XFAILED for test in found)


def excuse(
    changes: Iterable[Change], start: Mapping[str, str] | None, last: Mapping[str, str] | None
) -> Excuse:
    """The test functions the final diff (`changes`) removes that the start's report `start`
    reported xfailed, every item (`whole`), none of them in the verifying run's report `last`;
    `NONE` when either run wrote no report."""
    if start is None or last is None:
        return NONE
    functions, ids = set(), set()
    for change in changes:
        for name in _removed(change):
            found = items(change.path, name, start)
            if _all_xfailed(found, start) and not set(found) & set(last):
                functions.add((change.path, name))
                ids.update(found)
    return Excuse(frozenset(functions), frozenset(ids))


def _removed(change: Change) -> frozenset[str]:
    """The test functions a Python test file's change removes (both sides parse)."""
    if not (is_harness(change.path) and change.path.endswith(".py")) or change.new is None:
        return frozenset()
    old, new = asserts.shape(change.old or ""), asserts.shape(change.new)
    return old.tests - new.tests if old is not None and new is not None else frozenset()


def assertions(text: str, names: Iterable[str]) -> int:
    """The assertions (`asserts.is_assert`) inside the functions of `text` named in `names`:
    those an excused removal takes away with its tests."""
    return sum(asserts.is_assert(n) for d in _defs(text, names) for n in ast.walk(d))


def sources(text: str, names: Iterable[str]) -> list[str]:
    """The source text of each function of `text` named in `names` (for a count by pattern:
    the edit guard's `fixbot.tamper.facts.ASSERTION`)."""
    return [ast.get_source_segment(text, d) or "" for d in _defs(text, names)]


def _defs(text: str, names: Iterable[str]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions of `text` named in `names`, [] when it does not parse."""
    tree, wanted = asserts.parse(text), set(names)
    if tree is None or not wanted:
        return []
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in wanted
    ]
