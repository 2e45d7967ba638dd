"""The line tracer's reports read back from the check's log and ranked: the lines the failing
tests ran against those the passing tests ran, by Ochiai's coefficient,

    ochiai(s) = failed(s) / sqrt(total_failed * (failed(s) + passed(s)))

where failed(s) and passed(s) count the failing and passing tests that executed line s (Abreu,
Zoeteweij, van Gemund, "On the accuracy of spectrum-based fault localization", TAICPART 2007).

The reports (`fixbot.agent.linetrace`, one per traced process) follow `MARK` in the log;
`parse` merges them, `scores` scores each line, and `rank` turns the lines into the enclosing
functions of the repository's non-test files, best first, as `fixbot.agent.locate.Span`s,
functions of one score ordered by the rare names of the failing test's code the output quotes
before its failing statement (`quoted_hits`), the best function of each module a failing
test's file is named after among the first (`namesakes_first`). The run that produces them is
`fixbot.agent.spectrum`'s.
"""

from __future__ import annotations

import builtins
import json
import keyword
import math
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from fixbot.agent.locate import LINE_NUMBER, TEST_FILE, Span, _functions, _parse
from fixbot.core.repofiles import regular_text, resolved

MARK = "fixbot-spectrum-json-follows"
MAX_SPANS = 12
MAX_FOCUS = 6  # the most suspicious lines a long function is shown around
NAMESAKES_WITHIN = 3  # a namesake module's best function is moved up to rank 2 unless already
# among these first (`fixbot.agent.context` shows the spectrum's first three before the rest)
TEST_STEM = re.compile(r"^test_(\w+)$|^(\w+)_test$")
# the code a traceback quotes: pytest's source lines and unittest's (indented); pytest's `>`
# marks the failing statement, its `E` lines the values printed
QUOTED_CODE = re.compile(r"^(?:\t| {4,})(.*)$")
NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")  # a name of at least 4 characters
COMMON = frozenset(keyword.kwlist) | frozenset(dir(builtins))
RARE_SHARE = 4  # a quoted name held by more than 1 / RARE_SHARE of the ranked functions names none


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    """Ochiai's coefficient of a line run by `failed` failing and `passed` passing tests."""
    if not failed or not total_failed:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def parse(output: str, field: str = "contexts") -> dict[str, dict[int, list[str]]]:
    """path -> line -> the contexts (tests) that ran it, merged from every report after `MARK`
    (one per traced process); {} when there is none. A report cut short ends the reading. With
    `field` "raised": the lines an exception passed through, by test (`fixbot.agent.linetrace`)."""
    merged: dict[str, dict[int, set[str]]] = {}
    for report in reports(output)[0]:
        _merge(merged, report, field)
    return {path: {n: sorted(c) for n, c in lines.items()} for path, lines in merged.items()}


def reports(output: str) -> tuple[list[object], bool]:
    """The JSON values after `MARK` in `output`, and whether one was cut short (unreadable)."""
    _, marker, rest = output.partition(MARK)
    if not marker:
        return [], False
    found: list[object] = []
    decoder, at = json.JSONDecoder(), rest.find("{")
    while at >= 0:
        try:
            report, end = decoder.raw_decode(rest, at)
        except (ValueError, RecursionError):  # cut short, or nested deeper than Python's stack
            return found, True
        found.append(report)
        at = rest.find("{", end)
    return found, False


def _merge(merged: dict[str, dict[int, set[str]]], report: object, field: str) -> None:
    """Add one report's lines of `field` to `merged`: contexts by name (coverage.py's shape) or
    by index into its `"tests"` (the tracer's); anything malformed is skipped."""
    if not isinstance(report, dict):
        return
    names = report.get("tests")
    for path, data in _as_dict(report.get("files")).items():
        lines = merged.setdefault(str(path), {})
        for n, ctx in _as_dict(_as_dict(data).get(field)).items():
            tests = [_test_name(c, names) for c in (ctx if isinstance(ctx, list) else ())]
            if LINE_NUMBER.fullmatch(str(n)) and any(tests):
                lines.setdefault(int(n), set()).update(t for t in tests if t)


def _as_dict(value: object) -> dict[Any, Any]:
    """`value` when it is a dict, else an empty one (a report's fields are not trusted)."""
    return value if isinstance(value, dict) else {}


def _test_name(context: object, names: object) -> str | None:
    """A line's context as a test's name: the name itself (coverage.py) or an index into the
    report's `names` (the tracer's); None when malformed or empty."""
    if isinstance(names, list) and isinstance(context, int) and 0 <= context < len(names):
        context = names[context]
    return context if isinstance(context, str) and context else None


def _failing(context: str, failing: Iterable[str]) -> bool:
    """Whether the context `context` (`module.Class.test`, `module.test[param]`) is one of the
    failing test ids: pytest's `path::Class::test[param]` or unittest's `module.Class.test`.
    When both name a parametrization they must name the same one (a parameter set that passed
    is a passing test; an id cut short, without its `]`, names the ones it starts); when either
    has none, the function's name decides."""
    return any(_names(context, test) for test in failing)


def _names(context: str, test: str) -> bool:
    """Whether the context `context` is the failing test id `test` (see `_failing`)."""
    if "::" not in test:  # unittest: the same dotted name, maybe from another folder
        return context == test or context.endswith("." + test)
    dotted, bracket, params = context.partition("[")
    path, _, rest = test.partition("::")
    head, test_bracket, test_params = rest.partition("[")  # a parameter may hold `::`
    name = head.rsplit("::", 1)[-1]
    if bracket and test_bracket and not _same_parameters(params, test_params):
        return False
    return bool(name) and dotted.endswith("." + name) and PurePosixPath(path).stem in dotted


def _same_parameters(params: str, test_params: str) -> bool:
    """Whether a context's parameter set `params` is the failing id's `test_params`, or starts
    with it where the id was cut at a space inside its parametrization (`test_unit[1`)."""
    cut = not test_params.endswith("]") and params.startswith(test_params)
    return params == test_params or cut


def scores(
    spectra: dict[str, dict[int, list[str]]],
    failing: list[str],
    raised: dict[str, dict[int, list[str]]] | None = None,
) -> dict[tuple[str, int], float]:
    """(path, line) -> Ochiai of every line of a non-test file a failing test ran, plus, for a
    line an exception passed through under a failing test (`raised`), the Ochiai of that: of
    the lines the failing tests alone ran, those their run unwound through come first."""
    contexts = {c for lines in spectra.values() for ctx in lines.values() for c in ctx}
    bad = {c for c in contexts if _failing(c, failing)}
    found: dict[tuple[str, int], float] = {}
    for path, lines in spectra.items():
        if not TEST_FILE.search(path):
            found |= {(path, line): value for line, value in _line_scores(lines, bad).items()}
    _add_raised(found, raised or {}, bad)
    return found


def _add_raised(
    found: dict[tuple[str, int], float], raised: dict[str, dict[int, list[str]]], bad: set[str]
) -> None:
    """Add to each line of `found` the Ochiai of an exception passing through it under the
    failing tests (`bad`); a line `found` lacks gains nothing."""
    for path, lines in raised.items():
        for line, value in _line_scores(lines, bad).items():
            if (path, line) in found:
                found[path, line] += value


def _line_scores(lines: dict[int, list[str]], bad: set[str]) -> dict[int, float]:
    """line -> Ochiai of each line of one file that a failing test (a context in `bad`) ran."""
    found = {}
    for line, ctx in lines.items():
        failed = sum(1 for c in ctx if c in bad)
        if failed:
            found[line] = ochiai(failed, len(ctx) - failed, len(bad))
    return found


def executed(
    repo: Path, spectra: dict[str, dict[int, list[str]]], failing: list[str]
) -> dict[str, frozenset[int]]:
    """Repository-relative path -> the lines a failing test ran (a context `_failing` names) of
    each non-test file inside `repo` (`fixbot.agent.locate.Ranked`'s `executed`: what
    `fixbot.agent.literals` narrows an over-common phrase to); files outside it left out."""
    root, found = repo.resolve(), dict[str, frozenset[int]]()
    for path, lines in spectra.items():
        ran = {n for n, ctx in lines.items() if any(_failing(c, failing) for c in ctx)}
        full = resolved(root / path) if ran and not TEST_FILE.search(path) else None
        if full is not None and full.is_relative_to(root):
            rel = full.relative_to(root).as_posix()
            found[rel] = frozenset(ran) | found.get(rel, frozenset())
    return found


def _enclosing(repo: Path, path: str, lines: list[int]) -> dict[int, tuple[int, int, str]]:
    tree = _parse(repo, path)
    if tree is None:
        return {}
    spans = [(n.lineno, n.end_lineno or n.lineno, n.name) for n in _functions(tree)]
    found = {}
    for line in lines:
        inside = [s for s in spans if s[0] <= line <= s[1]]
        if inside:
            found[line] = min(inside, key=lambda s: s[1] - s[0])  # the innermost function
    return found


def rank(
    repo: Path,
    spectra: dict[str, dict[int, list[str]]],
    failing: list[str],
    raised: dict[str, dict[int, list[str]]] | None = None,
    evidence: str = "",
) -> list[Span]:
    """The functions holding the most suspicious lines (`scores`), best first (a function
    scores its best line; among equal scores, the one holding more of the rare names of the code
    the failing output quotes, `evidence`, first: `quoted_hits`), at most `MAX_SPANS`; paths
    made relative to `repo`, files outside it left out."""
    by_file: dict[str, dict[int, float]] = {}
    root = repo.resolve()
    for (path, line), value in scores(spectra, failing, raised).items():
        full = resolved(root / path)
        if full is not None and full.is_relative_to(root):
            by_file.setdefault(full.relative_to(root).as_posix(), {})[line] = value
    best: dict[tuple[str, int, int, str], float] = {}
    inside: dict[tuple[str, int, int, str], list[tuple[float, int]]] = {}
    for rel, lines in by_file.items():
        for line, (start, end, name) in _enclosing(repo, rel, list(lines)).items():
            key = (rel, start, end, name)
            best[key] = max(best.get(key, 0.0), lines[line])
            inside.setdefault(key, []).append((-lines[line], line))
    hits = quoted_hits(repo, list(best), evidence)
    ranked = sorted(
        best.items(), key=lambda item: (-item[1], -hits.get(item[0], 0), item[0][0], item[0][1])
    )
    spans = [Span(p, s, e, n, v, _focus(inside[(p, s, e, n)], v)) for (p, s, e, n), v in ranked]
    return namesakes_first(spans, failing)[:MAX_SPANS]


def quoted_names(evidence: str) -> set[str]:
    """The names (identifiers of at least 4 characters, Python's keywords and builtins left out)
    of the code lines the failing output `evidence` quotes (`QUOTED_CODE`: a traceback's source
    lines), but not of pytest's failing statement (its `>` line and the lines continuing it, up
    to the next line that is not code) nor of the values printed (`E` lines): what the test set
    up and drove, not the assertion reading the result back (tomlkit's `doc.as_string()`)."""
    code, failing = [], False
    for line in evidence.splitlines():
        found = QUOTED_CODE.match(line)
        failing = line.startswith(">") or (failing and found is not None)
        if found and not failing:
            code.append(found[1])
    return set(NAME.findall("\n".join(code))) - COMMON


def quoted_hits(
    repo: Path, functions: list[tuple[str, int, int, str]], evidence: str
) -> dict[tuple[str, int, int, str], int]:
    """(path, first line, last line, name) of each of `functions` -> how many of the names of
    the code `evidence` quotes (`quoted_names`) its text holds, counting only those at most one
    in `RARE_SHARE` of `functions` hold (at least one): the API the failing test drives
    (click's `show_default` in `get_help_record`, not `self` or `result`). `rank` puts, among
    functions of one score, the one holding more first: the spectrum ties the functions the
    same tests ran, the test's own code says which of them it is about."""
    names = quoted_names(evidence)
    texts: dict[str, list[str]] = {}
    held = {}
    for key in functions:
        path, start, end, _ = key
        if path not in texts:
            texts[path] = (regular_text(repo, repo / path) or "").splitlines()
        held[key] = names & set(NAME.findall("\n".join(texts[path][start - 1 : end])))
    counts: dict[str, int] = {}
    for found in held.values():
        for name in found:
            counts[name] = counts.get(name, 0) + 1
    most = max(1, len(functions) // RARE_SHARE)
    return {key: sum(1 for n in found if counts[n] <= most) for key, found in held.items()}


def namesakes_first(ranked: list[Span], failing: Iterable[str]) -> list[Span]:
    """`ranked` with, for each failing test's file named after a module (`test_x.py` or
    `x_test.py`: `x.py`, in `failing`'s order), the best-ranked function of a file of that name
    moved up to just after the first (after any moved before it) when it is not among the first
    `NAMESAKES_WITHIN` already. Ochiai scores a line against all failing tests: a module only
    one failing test file runs, which its passing tests run too, ranks below the code every
    failing test shares (Markdown's `fenced_code.py` under `test_fenced_code.py` beside
    `attr_list.py`'s failing tests), though the test's name says which module it tests."""
    moved = 0
    result = list(ranked)
    for stem in dict.fromkeys(s for s in map(tested_module, failing) if s):
        mine = [i for i, span in enumerate(result) if PurePosixPath(span.path).stem == stem]
        if mine and mine[0] >= NAMESAKES_WITHIN + moved:
            moved += 1
            result.insert(moved, result.pop(mine[0]))
    return result


def tested_module(test: str) -> str | None:
    """The module name a failing test id's file is named after: `x` for pytest's
    `tests/test_x.py::...` or `x_test.py`, and for unittest's `tests.test_x.Class.test_y` (the
    component before a capitalized class, else before the test's own name); None when the
    file's name is neither shape."""
    if "::" in test:
        stem = PurePosixPath(test.partition("::")[0]).stem
    else:
        parts = test.split(".")
        parts = parts[:-2] if len(parts) > 2 and parts[-2][:1].isupper() else parts[:-1]
        stem = parts[-1] if parts else ""
    found = TEST_STEM.match(stem)
    return (found.group(1) or found.group(2)) if found else None


def _focus(lines: list[tuple[float, int]], best: float) -> tuple[int, ...]:
    """The function's lines that score its best, in order, at most `MAX_FOCUS`."""
    top = sorted(line for minus, line in lines if -minus >= best - 1e-9)
    return tuple(top[:MAX_FOCUS])
