"""The TypeScript declaration of an object a failing diff expects a new key of.

A jest or vitest assertion on an object prints its diff key by key (pretty-format quotes the
keys: `"note": "No matching discriminator",`), the expected side's lines marked `-` and the
received side's `+` (`- Expected`, `+ Received`; a snapshot's `- Snapshot`). A key on `-` lines
only is a field the fix must add (zod's `"options": [...]` beside `"code"`, `"errors"`, `"note"`,
`"discriminator"`), and in TypeScript a field set on a typed object literal is declared in the
interface or type literal that shapes it (zod's `$ZodIssueInvalidUnionNoMatch` in
`src/v4/core/errors.ts`), which no failing run executes: declarations have no lines to run.

`spans` reads the output's expected-only keys and their siblings (the keys of the lines around
them at the same indentation, both sides and unchanged lines), then the top-level `interface`
and `type X = {` blocks of the repository's TypeScript sources (`literals.typescript`: test,
generated and installed files, and a build's declaration files, left out) with the property
names each declares at its first level. A block is scored (`score`) first by its tags: the
siblings whose string value it declares as their literal type (`"code": "invalid_union"` and
`readonly code: "invalid_union";`, a discriminated union's member), then by the siblings it
declares, each weighted by how few blocks declare it (1 / their count: `code`, declared by 22
of zod's 308 blocks, says little, `discriminator`, by 2, says more); a block already
declaring the new key is left out (nothing to add there), and one declaring fewer than
`MIN_SHARED` siblings too. The best-scored blocks (ties kept, at most `MAX_SPANS`) are shown,
focused on their last line (where a new field goes). Pure reading of text: nothing is parsed or run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from fixbot.agent import literals
from fixbot.agent.locate import Span
from fixbot.core.repofiles import regular_text

# a diff line of an object's key: its sign (or a space, unchanged), indentation, quoted key
DIFF_KEY = re.compile(r'^([-+ ])(\s*)"([A-Za-z_$][\w$]*)": (?:"([^"\\]*)",?$)?')
# a top-level declaration of an object shape: `export interface X<T> extends Y {`, `type X = {`
DECLARATION = re.compile(
    r"^(?:export\s+)?(?:declare\s+)?"
    r"(?:interface\s+([A-Za-z_$][\w$]*)[^{=;]*\{|type\s+([A-Za-z_$][\w$]*)[^=;]*=\s*\{)\s*$"
)
# a property signature: `readonly name?: T`, `"name": T`, `name(): T` not counted
MEMBER = re.compile(
    r"""^(\s+)(?:readonly\s+)?["']?([A-Za-z_$][\w$]*)["']?\??\s*:\s*(?:"([^"\\]*)";?$)?"""
)
MIN_SHARED = 2  # siblings a block declares at least
MAX_SPANS = 2  # blocks shown at most
MAX_LINES = 60  # a block longer than this is not an object's shape to extend
SHOWN = 12  # lines of a long block shown around its last line


Shape = dict[str, str]  # key -> the string its line shows (a diff's value, a literal type) or ""


def expected_keys(output: str) -> dict[str, Shape]:
    """New key -> its siblings: each key the output's diffs show on expected (`-`) lines only,
    with the keys of the lines of the same run of diff lines (no blank line between) at the
    same indentation (any sign, the key itself left out), each with the string value its line
    shows (`"code": "invalid_union",` gives `invalid_union`; else ""). {} when no key is on
    one side only."""
    found: dict[str, Shape] = {}
    for run in re.split(r"\n\s*\n", output):
        for key, siblings in _run_keys(run):
            found.setdefault(key, {}).update(siblings)
    return found


def _run_keys(run: str) -> list[tuple[str, Shape]]:
    """`expected_keys` of one run of lines, a key once per line showing it."""
    keys = [m.groups() for line in run.splitlines() if (m := DIFF_KEY.match(line))]
    expected = _expected_only([(sign, key) for sign, _, key, _ in keys])
    return [
        (key, {k: v or "" for _, i, k, v in keys if i == indent and k != key})
        for _, indent, key, _ in keys
        if key in expected
    ]


def _expected_only(signed: list[tuple[str, str]]) -> set[str]:
    """The keys of `signed` (sign, key) shown with `-` alone."""
    signs: dict[str, set[str]] = {}
    for sign, key in signed:
        signs.setdefault(key, set()).add(sign)
    return {key for key, seen in signs.items() if seen == {"-"}}


def blocks(text: str) -> list[tuple[int, int, str, Shape]]:
    """The top-level interface and type-literal blocks of a TypeScript file's `text`: (first
    line, last line, name, the property names declared at its first level, each with its
    string literal type or ""), 1-based; a block ends at the next line `}` (or `};`) in column
    0 and is at most `MAX_LINES` long."""
    lines = text.splitlines()
    found = []
    for index, line in enumerate(lines):
        match = DECLARATION.match(line)
        if match is None:
            continue
        end = next(
            (j for j in range(index + 1, len(lines)) if lines[j].rstrip() in ("}", "};")), None
        )
        if end is None or end - index > MAX_LINES:
            continue
        found.append((index + 1, end + 1, match[1] or match[2], _members(lines[index + 1 : end])))
    return found


def _members(body: list[str]) -> Shape:
    """The property names of `body`'s lines at its first member's indentation, each with its
    string literal type (`readonly code: "invalid_union";`) or ""."""
    members = [m.groups() for line in body if (m := MEMBER.match(line))]
    first = members[0][0] if members else ""
    return {name: literal or "" for indent, name, literal in members if indent == first}


def score(siblings: Shape, members: Shape, holders: Mapping[str, int]) -> tuple[int, float]:
    """How well a block declaring `members` fits an object with `siblings`: the siblings whose
    shown string is the literal type the block declares them with (a discriminated union's tag,
    `code: "invalid_union"`, names one interface), then the siblings it declares, each weighted
    1 / the number of blocks declaring it (`holders`)."""
    shared = sorted(siblings.keys() & members.keys())
    tags = sum(1 for k in shared if siblings[k] and siblings[k] == members[k])
    return tags, round(sum(1 / holders[k] for k in shared), 9)


Declared = list[tuple[str, int, int, str, Shape]]  # (path, first line, last line, name, members)


def declared(repo: Path) -> Declared:
    """The blocks (`blocks`) of the repository's TypeScript sources (`literals.typescript`)."""
    found: Declared = []
    for rel in literals.typescript(repo):
        text = regular_text(repo, repo / rel, literals.MAX_FILE_BYTES)
        if text and ("interface " in text or "type " in text):
            found += [(rel, *block) for block in blocks(text)]
    return found


def _scored(
    wanted: dict[str, Shape], every: Declared, holders: Mapping[str, int]
) -> list[tuple[tuple[int, float], str, int, int, str, str]]:
    """(`score`, path, first line, last line, name, new key) of each block of `every` that
    declares at least `MIN_SHARED` siblings of a key of `wanted` and not the key itself."""
    return [
        (score(siblings, members, holders), rel, start, end, name, key)
        for key, siblings in wanted.items()
        for rel, start, end, name, members in every
        if key not in members and len(siblings.keys() & members.keys()) >= MIN_SHARED
    ]


def spans(repo: Path, output: str) -> list[Span]:
    """The declarations of the objects whose expected-only keys `output`'s diffs show (see the
    module's docstring), best first, each focused on its last line, at most `MAX_SPANS`; []
    when the output shows no such key or the repository has no TypeScript source."""
    wanted = expected_keys(output)
    every = declared(repo) if wanted else []
    holders = Counter(name for *_, members in every for name in members)
    scored = _scored(wanted, every, holders)
    best = max((row[0] for row in scored), default=None)
    found = [
        Span(rel, start, end, f"{name}, declares what `{key}` joins", 0.0, (end,), SHOWN)
        for fit, rel, start, end, name, key in scored
        if fit == best
    ]
    return list(dict.fromkeys(found))[:MAX_SPANS]
