"""Rust: Cargo packages and workspaces, tested by `cargo test`; a file under a package's
`tests/` folder is an integration test
(https://doc.rust-lang.org/cargo/guide/project-layout.html), and a unit test lives in the code's
own file: a `#[cfg(test)]` item (`mod tests { ... }`) or a function marked `#[test]` (or a
runtime's `#[tokio::test]`), read here as tokens (`tokens`, `unit_test_regions`), so that
braces in strings, raw strings (`r#"{"#`), chars and comments (nested `/* /* */ */`) count for
nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Missing, Tests
from fixbot.ecosystems.tree import Tree


def holds(name: str, tree: Tree) -> bool:
    """A module file (`name.rs`, `name/mod.rs`) or a workspace crate named `name`."""
    crate = re.compile(rf'^name\s*=\s*"{re.escape(name).replace("_", "[-_]")}"', re.MULTILINE)
    for root, dirs, files in tree.folders():
        if f"{name}.rs" in files or (name in dirs and (root / name / "mod.rs").is_file()):
            return True
        if "Cargo.toml" in files and crate.search(tree.read(root / "Cargo.toml")):
            return True
    return False


def advice(missing: MissingDependency, where: str) -> str:
    """Declare the crate in Cargo.toml (cargo fetches it on the next build)."""
    name = missing.name
    return f"declare the crate `{name}` in Cargo.toml (`cargo add --dev {name}` for tests only)"


ECOSYSTEM = Ecosystem(
    name="rust",
    markers=("Cargo.toml",),
    tests=Tests(
        names=r"(?!)",  # a unit test lives in its module; the file name says nothing
        sources=(".rs",),
        folders=frozenset({"tests"}),
        skips=(r"#\[ignore\b",),
        # `#[test]` (or an async runtime's `#[tokio::test]`), other attributes, then the fn
        definitions=(
            r"#\[(?:\w+::)?test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)",
        ),
        assertions=(r"\b(?:assert|assert_eq|assert_ne|debug_assert\w*)!\s*\(",),
    ),
    dependencies=Dependencies(
        manifests=("Cargo.toml",),
        locks=("Cargo.lock",),
        declared_in=("Cargo.toml",),
        generated=frozenset({"target"}),
    ),
    commands=Commands(
        setup=(("Cargo.toml", "cargo fetch"),), check=(("Cargo.toml", "cargo test"),)
    ),
    missing=Missing(
        loader=re.compile(
            r"use of (?:unresolved module or unlinked|undeclared) crate(?: or module)? "
            r"`(?P<name>\w+)`|can't find crate for `(?P<other>\w+)`"
        ),
        advice=advice,
        said=r"use of (?:unresolved module or unlinked|undeclared) crate(?: or module)? `"
        r"|can't find crate for `",
        failed=r"unresolved import",
        holds=holds,
        fetches_declared=True,
    ),
    dialects=("cargo",),
    runner_config=(
        r"\.?rustfmt\.toml|\.?clippy\.toml|nextest\.toml",
        # cargo's own configuration, in the project or any folder above a crate: its
        # `[target.<triple>] runner` runs each test binary (`runner = "true"` runs none)
        r"\.cargo/config(?:\.toml)?",
        # a package's build script, which cargo compiles and runs before the crate: it may
        # rewrite the sources, tests too, as they are built (round 23); a module of that name
        # in `src/` is the code's
        r"(?<!src/)build\.rs",
    ),
)


class Token(NamedTuple):
    """One token of Rust source: its kind (`ident`, `literal`: a string or a char, `number`,
    `lifetime`, `punct`, `comment`)
    and its text's offsets in the source (`end` exclusive)."""

    kind: str
    start: int
    end: int


# The lexical grammar's pieces fixbot needs (https://doc.rust-lang.org/reference/tokens.html):
# a raw string's opening (`r"`, `r#"`, `br##"`, `cr"`), a string's (`"`, `b"`, `c"`), a char
# or byte (`'x'`, `'\n'`, `'\u{1F600}'`, `b'x'`), a lifetime or label (`'a`), an identifier
# (`r#match` too), a number (`1.5e3`, `0xFF_u8`).
_RAW = re.compile(r'[bc]?r(#*)"')
_STRING = re.compile(r'[bc]?"')
_CHAR = re.compile(r"b?'(?:\\(?:x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f_]{1,8}\}|.)|[^\\'\n])'")
_LIFETIME = re.compile(r"'(?:r#)?[^\W\d]\w*")
_IDENT = re.compile(r"(?:r#)?[^\W\d]\w*")
_NUMBER = re.compile(r"\d(?:\w|\.(?=\d))*")
_SPACE = re.compile(r"\s+")


def _block_comment(text: str, i: int) -> int:
    """The end of the block comment opening at `i` (nested ones inside it; the text's end when
    it is not closed)."""
    depth, k = 0, i
    while k < len(text):
        if text.startswith("/*", k):
            depth, k = depth + 1, k + 2
        elif text.startswith("*/", k):
            depth, k = depth - 1, k + 2
            if depth == 0:
                return k
        else:
            k += 1
    return len(text)


def _string_end(text: str, i: int) -> int:
    """The end of the (escaped) string whose opening quote is at `i - 1`."""
    k = i
    while k < len(text) and text[k] != '"':
        k += 2 if text[k] == "\\" else 1
    return min(k + 1, len(text))


def _token(text: str, i: int) -> Token:
    """The token (or comment) starting at `i`, which is no white space."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return Token("comment", i, len(text) if end < 0 else end)
    if text.startswith("/*", i):
        return Token("comment", i, _block_comment(text, i))
    if raw := _RAW.match(text, i):
        close = text.find('"' + raw.group(1), raw.end())
        return Token("literal", i, len(text) if close < 0 else close + 1 + len(raw.group(1)))
    if string := _STRING.match(text, i):
        return Token("literal", i, _string_end(text, string.end()))
    for kind, pattern in (("literal", _CHAR), ("lifetime", _LIFETIME), ("ident", _IDENT)):
        if found := pattern.match(text, i):
            return Token(kind, i, found.end())
    if number := _NUMBER.match(text, i):
        return Token("number", i, number.end())
    return Token("punct", i, i + 1)


def tokens(text: str, comments: bool = False) -> list[Token]:
    """The tokens of the Rust source `text`, in order; its comments among them only where
    `comments` is set. Never raises: an unclosed literal or comment runs to the text's end."""
    found: list[Token] = []
    i = 0
    while i < len(text):
        if space := _SPACE.match(text, i):
            i = space.end()
            continue
        token = _token(text, i)
        if comments or token.kind != "comment":
            found.append(token)
        i = token.end
    return found


def blank(text: str) -> str:
    """`text` with its comments and literals (strings, raw strings, chars) turned into
    spaces, newlines kept: the same offsets, and braces and calls only the code's."""
    out = list(text)
    for token in tokens(text, comments=True):
        if token.kind in ("comment", "literal"):
            for k in range(token.start, token.end):
                if out[k] != "\n":
                    out[k] = " "
    return "".join(out)


OPENING = {"(": ")", "[": "]", "{": "}"}
# an attribute's path whose last part marks a test function: `test`, `tokio::test`,
# `async_std::test`, `wasm_bindgen_test`, `rstest`, `test_case`
TEST_ATTRIBUTE = re.compile(r"(?:\w+_|rs)?test|test_case")


def _matching(text: str, found: list[Token], k: int) -> int:
    """The index of the token closing the bracket at `k` (the last token when unbalanced)."""
    depth = 0
    for j in range(k, len(found)):
        piece = text[found[j].start : found[j].end]
        if found[j].kind != "punct":
            continue
        if piece in OPENING:
            depth += 1
        elif piece in OPENING.values():
            depth -= 1
            if depth == 0:
                return j
    return len(found) - 1


def _attribute(text: str, found: list[Token], k: int) -> tuple[int, bool, bool] | None:
    """The attribute starting at token `k` (`#[...]` or `#![...]`): the index past its `]`,
    whether it is an inner one, and whether it marks test code (`#[cfg(test)]`, `cfg(all(test,
    ...))` but no `not`, or a path ending in a test attribute's name); None where no attribute
    starts there."""
    words = [text[t.start : t.end] for t in found[k : k + 3]]
    inner = words[1:2] == ["!"]
    opening = k + 2 if inner else k + 1
    if words[:1] != ["#"] or opening >= len(found) or text[found[opening].start] != "[":
        return None
    close = _matching(text, found, opening)
    return close + 1, inner, _marks([text[t.start : t.end] for t in found[opening + 1 : close]])


def _marks(inside: list[str]) -> bool:
    """Whether the attribute whose tokens are `inside` marks test code."""
    path = []
    for piece in inside:
        if piece in ("(", "=", "["):
            break
        path.append(piece)
    last = path[-1] if path else ""
    conditional = last == "cfg" and _positive_test(inside)
    return conditional or bool(TEST_ATTRIBUTE.fullmatch(last))


def _positive_test(inside: list[str]) -> bool:
    """Whether the `cfg` predicate whose tokens are `inside` (`cfg(...)`'s, `cfg` first) names
    `test` under an even number of `not`s (`test`, `all(test, not(miri))`, `any(test, doc)`,
    `not(not(test))`), read as a predicate: round 35, `#[cfg(all(test, not(miri)))] mod tests`
    was no test region while any `not` made a `cfg` no test mark. `not(test)` and
    `all(not(test), x)` are none; `test = "x"` is a key, no `test`."""
    negated = [False]  # per open bracket: whether an odd number of `not`s holds it
    flip = False
    for k, piece in enumerate(inside):
        if piece == "(":
            negated.append(negated[-1] ^ flip)
            flip = False
        elif piece == ")" and len(negated) > 1:
            negated.pop()
        elif piece == "not":
            flip = inside[k + 1 : k + 2] == ["("]
        elif piece == "test" and inside[k + 1 : k + 2] != ["="] and not negated[-1]:
            return True
    return False


def item_end(text: str, found: list[Token], k: int) -> int:
    """The index of the last token of the item starting at token `k`: the `}` closing its
    first brace at the item's own level, or its `;`."""
    j = k
    while j < len(found):
        piece = text[found[j].start : found[j].end] if found[j].kind == "punct" else ""
        if piece == "{":
            return _matching(text, found, j)
        if piece == ";":
            return j
        if piece in ("(", "["):
            j = _matching(text, found, j)
        j += 1
    return len(found) - 1


def unit_test_regions(text: str) -> list[tuple[int, int]]:
    """The test code of the Rust source `text` as (start, end) offsets (`end` exclusive), in
    order: each item carrying a test attribute (`_attribute`), from the first attribute of its
    run (an `#[ignore]` before its `#[test]` too) to its end; the whole text where an inner
    `#![cfg(test)]` marks the file's module (or, inside a `mod { }`, that module: the whole
    text too, the larger reading). Items nested in one are part of it."""
    found = tokens(text)
    regions: list[tuple[int, int]] = []
    k = 0
    while k < len(found):
        first, marked = k, False
        while (read := _attribute(text, found, k)) is not None:
            k, inner, marks = read
            if inner and marks:
                return [(0, len(text))]
            marked = marked or (marks and not inner)
        if marked and k < len(found):
            end = item_end(text, found, k)
            regions.append((found[first].start, found[end].end))
            k = end + 1
        k = max(k, first + 1)
    return regions
