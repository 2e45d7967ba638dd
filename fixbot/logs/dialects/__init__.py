"""Every test-runner and checker output dialect fixbot reads, in one registry.

`DIALECTS` lists them (one module each, see `fixbot.logs.dialects.base.Dialect`); the
condensing pass (`fixbot.logs.condense`), the whole-log facts (`fixbot.logs.facts`), the
signature and counts (`fixbot.logs.signature`), the evidence (`fixbot.logs.evidence`) and the
classifier (`fixbot.logs.classify`) build their patterns from it. The order is the precedence
where two dialects' patterns could match one line. Each dialect's summary lines, with the tool
and version they came from and the counts they must give, are in
`tests/data/summaries/<name>.txt`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from fixbot.core.failure import Counts
from fixbot.logs.dialects import (
    ava,
    cargo,
    cc,
    eslint,
    go,
    jest,
    mocha,
    mypy,
    node,
    pytest,
    python,
    ruff,
    tap,
    tsc,
    unittest,
    vitest,
)
from fixbot.logs.dialects.base import Dialect, Report, compile_lines
from fixbot.logs.dialects.paths import PATH_LINE

DIALECTS: tuple[Dialect, ...] = (
    python.DIALECT,  # first: its traceback frames are `LOCATION_SOURCES[1]`
    pytest.DIALECT,
    unittest.DIALECT,
    jest.DIALECT,
    vitest.DIALECT,
    go.DIALECT,
    cargo.DIALECT,
    mocha.DIALECT,
    tap.DIALECT,
    ava.DIALECT,
    node.DIALECT,
    mypy.DIALECT,
    ruff.DIALECT,
    tsc.DIALECT,
    eslint.DIALECT,
    cc.DIALECT,
)
BY_NAME = {d.name: d for d in DIALECTS}

__all__ = [
    "BY_NAME",
    "DIALECTS",
    "FAILING_SOURCES",
    "LOCATION_SOURCES",
    "Dialect",
    "Report",
    "Tag",
    "failing_tests",
    "file_of",
    "merge_counts",
    "parse_counts",
    "report_for",
    "sources",
    "tagged",
]


def sources(pick: Callable[[Dialect], Iterable[str]]) -> tuple[str, ...]:
    """Every dialect's sources of one kind (`pick`, e.g. `lambda d: d.summary`), in order."""
    return tuple(source for dialect in DIALECTS for source in pick(dialect))


def report_for(words: Sequence[str]) -> Report | None:
    """The structured report the check command (its shell words) can be asked for: that of the
    one dialect whose runner it runs exactly once, None when none or several do."""
    found = [d.report for d in DIALECTS if d.report is not None and d.report.runs(words)]
    return found[0] if len(found) == 1 else None


LOCATION_SOURCES = (PATH_LINE, *sources(lambda d: d.locations))  # path:line first
FAILING_SOURCES = sources(lambda d: d.failing)


def merge_counts(parts: Iterable[Counts]) -> Counts:
    """Sum each field over `parts`; a field stays None when no part reported it."""
    total: dict[str, int | None] = dict.fromkeys(Counts.model_fields)
    for part in parts:
        for name, value in part.model_dump().items():
            if value is not None:
                total[name] = (total[name] or 0) + value
    return Counts(**total)


def parse_counts(text: str) -> Counts:
    """The counts of every summary line of every dialect in `text` (ANSI codes removed), summed
    over dialects; a field is None when no dialect reported it."""
    return merge_counts(counts for d in DIALECTS for counts in d.counts(text))


@dataclass(frozen=True)
class Tag:
    """Which dialect and kind of source a named group of a `tagged` pattern stands for, and
    the names of the groups inside it (`test`, `where`, `outcome`, ...)."""

    dialect: Dialect
    kind: str
    inner: tuple[str, ...]

    def groups(self, match: re.Match[str] | re.Match[bytes], name: str) -> dict[str, str]:
        """The inner groups that matched, by their names in the dialect's source, decoded."""
        found = {}
        for inner in self.inner:
            value = match.group(f"{name}__{inner}")
            if value is not None:
                found[inner] = value if isinstance(value, str) else value.decode(errors="replace")
        return found


INNER_RE = re.compile(r"\(\?P<(\w+)>")


def tagged(kind: str, pick: Callable[[Dialect], Iterable[str]]) -> tuple[str, dict[str, Tag]]:
    """One alternation of every dialect's sources of `kind` (`pick`), and the `Tag` of each.

    Each source ends in an empty group named `<kind>_<dialect index>_<source index>` (so a
    match's `lastgroup` names the source that matched, while each branch still starts with its
    own first character, which keeps the regex engine's quick skip of branches that cannot
    match), and its inner groups are renamed `<that name>__<name>` (so sources of many dialects
    can share group names).
    """
    parts, tags = [], {}
    for i, dialect in enumerate(DIALECTS):
        for j, source in enumerate(pick(dialect)):
            name = f"{kind}_{i}_{j}"
            inner = tuple(INNER_RE.findall(source))
            renamed = INNER_RE.sub(rf"(?P<{name}__\1>", source)
            parts.append(f"(?:(?:{renamed})(?P<{name}>))")
            tags[name] = Tag(dialect, kind, inner)
    return "|".join(parts), tags


def _test_id_patterns() -> tuple[tuple[Dialect, re.Pattern[str]], ...]:
    return tuple(
        (d, compile_lines([source])) for d in DIALECTS for source in (*d.test_ids, *d.condensed_ids)
    )


TEST_ID_PATTERNS = _test_id_patterns()


def failing_tests(text: str) -> list[str]:
    """The failing test ids every dialect names in `text` (ANSI codes removed), sorted, unique."""
    names = set()
    for dialect, pattern in TEST_ID_PATTERNS:
        for match in pattern.finditer(text):
            groups: Mapping[str, str] = {k: v for k, v in match.groupdict().items() if v}
            names.add(dialect.test_id(groups))
    return sorted(names)


def file_of(test: str) -> str | None:
    """The file or module the first dialect that knows `test`'s form says it belongs to."""
    return next((found for d in DIALECTS if (found := d.file_of(test)) is not None), None)
