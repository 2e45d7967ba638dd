"""The code beside a Rust file's tests that decides their verdict, read outside the test regions
(`fixbot.ecosystems.rust.unit_test_regions`) by Rust's tokens: the assertion macros the tests
call (`helpers`: a `macro_rules!` of the code's that asserts, `check!`, is the tests', compared
by `fixbot.tamper.rusttests.changed`), the assertion functions they call (`functions`: a
function of the code's whose body is assertions alone, `fn check(a, b) { assert_eq!(a, b); }`),
a macro by an assertion's name that shadows the tests' own (`shadowing`: `framework-patched`),
and an `eq` that holds for any operand (`always_equal`: `always-equal`).
`fixbot.tamper.rusttests` holds the test regions, the doc-tests and the module files declared
in a test region themselves.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

from fixbot.ecosystems import rust

Macro = tuple[str, tuple[str, ...]]  # a macro's name and its tokens' texts


class Reached(NamedTuple):
    """What test code outside a file reaches in it by name (`fixbot.tamper.rustmods.reached`):
    the items (`fn`, `const`, `static`) its paths and imports resolve to there (`names`), the
    macros it invokes that are visible there (`macros`), and the items the paths of the
    assertion functions and macros of other files resolve to there (`rested`: a `const SLACK`
    of src/limits.rs that src/util.rs's `check` imports)."""

    names: frozenset[str] = frozenset()
    macros: frozenset[str] = frozenset()
    rested: frozenset[str] = frozenset()  # what assertion functions elsewhere name here


NOTHING = Reached()

# the assertion macros a test's verdict rests on, which a macro of the same name shadows
ASSERTIONS = re.compile(r"(?:debug_)?assert(?:_eq|_ne|_matches)?")


def _asserts(body: list[str]) -> bool:
    """Whether the tokens' texts `body` invoke an assertion macro (`assert_eq!`, `r#assert!`)."""
    return any(
        ASSERTIONS.fullmatch(word.removeprefix("r#")) and body[j + 1 : j + 2] == ["!"]
        for j, word in enumerate(body)
    )


def helpers(text: str, outside: Reached | None = None) -> list[Macro]:
    """The assertion macros of the Rust source `text` that its test regions call: each
    `macro_rules!` outside the regions whose body asserts (`assert_eq!`, `assert!`) and whose
    name a test region invokes (`check!(add(2, 2), 4)`), or that such a macro invokes in turn
    (`check!` expanding to `verify!`, which asserts: round 25), as (its name, its tokens'
    texts). Round 23: the tests' own assertion, defined beside the code, emptied by the fix,
    changed no test region. `outside`: what the tests of the crate's other files reach in this
    one (`fixbot.tamper.rustmods.reached`: a `#[macro_use] mod macros;`'s macros, round 39)."""
    read = _read(text, outside or NOTHING)
    return [
        (name, tuple(body))
        for name, body in read.bodies.items()
        if name in read.reached and _asserts(body)
    ]


def functions(text: str, outside: Reached | None = None) -> list[Macro]:
    """The assertion functions of the Rust source `text` that its test regions name: each `fn`
    outside the regions whose body is assertion macros alone (`{ assert_eq!(a, b); }`, one or
    more, nothing else) and whose name a test region, or an assertion macro it invokes
    (`helpers`), names, called or not (`check(add(2, 2), 4)`, `super::check(...)`,
    `let c = check;`), as (its name, its tokens' texts from `fn`). Round 25: the tests' `check`,
    beside the code, emptied by the fix, changed no test region. A function that asserts and
    does anything else (`div`'s `assert!(b != 0)` before its division) is the code's: its
    precondition is the code's to change (the policy chosen: an honest fix of a function that
    only asserts and that the tests name is a test change, published with `allow-test-edits`).
    What the fix may not change is read by `guarded` and `definitions`. `outside`: the names
    the tests of the crate's other files reach in this one (`fixbot.tamper.rustmods.reached`:
    `util::check(..)` from src/lib.rs's tests, round 39), named as a test region names them."""
    read = _read(text, outside or NOTHING)
    return [(name, tuple(read.words[k:end])) for name, k, end in read.asserting()]


def guarded(text: str, outside: Reached | None = None) -> dict[str, str]:
    """What the tests' assertions rest on outside the test regions of the Rust source `text`,
    by name: each assertion function (`functions`), and each `const` or `static` that an
    assertion function or a macro of `helpers` names and that no other code outside the test
    regions names (round 35: `const SLACK`, a tolerance `check` compares within), each with the
    words a finding names it by. A function such an assertion calls is the code's (`close(a,
    b)` in `assert!(close(a, b))`, `add` in `assert_eq!(add(a, b), c)`: the code under test
    may be that function). `outside` as for `functions`; a `const` or `static` its `rested`
    names is named by an assertion function of another file (round 39). A `const` or `static`
    an assertion of the test regions names (`assert_eq!(add(2, 2), FOUR)`, an assertion
    macro's or function's argument: `_Read.expectations`) and no other code outside them is
    the tests' expected value (round 39: `FOUR` made 0)."""
    read = _read(text, outside or NOTHING)
    asserting = read.asserting()
    spans = assertion_spans(text, outside)
    used = {w for k, end in spans + read.expectations() for w in read.words[k:end]}
    used |= (outside or NOTHING).rested
    found = {name: f"the assertion function {name}" for name, _, _ in asserting}
    for name, k, end in read.items(used - set(found)):
        if read.words[k] != "fn" and not read.named_elsewhere(name, [*spans, (k, end)]):
            found[name] = f"{name}, which the tests' assertions use"
    return found


def assertion_spans(text: str, outside: Reached | None = None) -> list[tuple[int, int]]:
    """The token spans (`rust.tokens(text)`'s indexes, the end exclusive) of the assertion
    functions (`functions`) and macros (`helpers`) of the Rust source `text`."""
    read = _read(text, outside or NOTHING)
    return [(k, end) for _, k, end in read.asserting()] + read.macro_spans()


def expectation_spans(text: str, outside: Reached | None = None) -> list[tuple[int, int]]:
    """The token spans of the assertions of the test regions of the Rust source `text`
    (`_Read.expectations`: what their expected values are read from)."""
    return _read(text, outside or NOTHING).expectations()


def definitions(text: str, names: Iterable[str], outside: Reached | None = None) -> list[Macro]:
    """Every item outside the test regions of the Rust source `text` that defines one of
    `names` (`fn`, `const`, `static`, wherever it is: in an `impl`, inside a macro's input), as
    (its name, its tokens' texts from its first attribute): round 35, the start's `check` kept
    token for token under `#[cfg(not(debug_assertions))]` beside an empty twin the tests build
    with is two definitions where the start had one, and a definition whose attributes changed
    is another. `outside` as for `functions` (the items read are the same whatever it is)."""
    read = _read(text, outside or NOTHING)
    return [
        (name, tuple(read.words[item_start(read.words, k) : end]))
        for name, k, end in read.items(set(names))
    ]


class _Read:
    """The Rust source `text` read once: its tokens (`found`), their texts (`words`), whether
    each is inside a test region (`inside`), its `macro_rules!` bodies outside them (`bodies`),
    those the test regions (or the crate's other files' tests: `outside`) invoke, however deep
    (`reached`), and the names the test regions, those macros and `outside` name (`named`)."""

    def __init__(self, text: str, outside: Reached = NOTHING) -> None:
        self.text = text
        spans = rust.unit_test_regions(text)
        self.found = rust.tokens(text)
        self.words = words = [text[t.start : t.end] for t in self.found]
        self.inside = inside = [_within(token.start, spans) for token in self.found]
        self.bodies = _macros(text, self.found, words, inside)
        called = {w for k, w in enumerate(words[:-1]) if inside[k] and _bang(words, k)}
        self.reached = _reached(self.bodies, called | outside.macros)
        self.named = {w for k, w in enumerate(words) if inside[k]} | outside.names
        for name in self.reached:
            self.named.update(self.bodies[name])

    def items(self, names: set[str]) -> list[tuple[str, int, int]]:
        """Each item outside the test regions defining one of `names` (`fn`, `const`, `static`,
        `static mut`): (its name, the index of its keyword, the index past its last token)."""
        words, kept = self.words, []
        for k in range(len(words) - 2):
            name = words[k + 2] if words[k + 1] == "mut" else words[k + 1]
            if words[k] in ITEMS and not self.inside[k] and name in names:
                kept.append((name, k, rust.item_end(self.text, self.found, k) + 1))
        return kept

    def asserting(self) -> list[tuple[str, int, int]]:
        """The `fn` items of `items` over `named` whose body only asserts."""
        words = self.words
        return [
            (name, k, end)
            for name, k, end in self.items(self.named)
            if words[k] == "fn"
            and "{" in words[k:end]
            and _only_asserts(words[words.index("{", k) + 1 : end - 1])
        ]

    def macro_spans(self) -> list[tuple[int, int]]:
        """The token spans of the `macro_rules!` of `reached` that assert (`helpers`')."""
        words = self.words
        return [
            (k, rust.item_end(self.text, self.found, k) + 1)
            for k in range(len(words) - 2)
            if words[k : k + 2] == ["macro_rules", "!"]
            and not self.inside[k]
            and words[k + 2] in self.reached
            and _asserts(self.bodies[words[k + 2]])
        ]

    def expectations(self) -> list[tuple[int, int]]:
        """The token spans of the assertions of the test regions: each invocation of an
        assertion macro (`assert_eq!(..)`, a `helpers` macro) or call of an assertion function
        (`check(..)`), from its name to its closing bracket."""
        names = {name for name, _, _ in self.asserting()}
        macros = {name for name in self.reached if _asserts(self.bodies[name])}
        found = []
        for k in range(len(self.words) - 2):
            at = self._asserted(k, names, macros) if self.inside[k] else None
            if at is not None:
                found.append((k, closing(self.words, at) + 1))
        return found

    def _asserted(self, k: int, names: set[str], macros: set[str]) -> int | None:
        """The index of the opening bracket of the assertion at token `k` (a macro of
        `ASSERTIONS` or of `macros` invoked, a function of `names` called); None: none is."""
        words = self.words
        word = words[k].removeprefix("r#")
        macro = _bang(words, k) and (ASSERTIONS.fullmatch(word) or word in macros)
        at = k + 2 if macro else k + 1
        called = macro or (word in names and words[k + 1] == "(")
        return at if called and words[at] in ("(", "[", "{") else None

    def named_elsewhere(self, name: str, spans: list[tuple[int, int]]) -> bool:
        """Whether code outside the test regions and outside `spans` names `name`."""
        return any(
            w == name and not self.inside[k] and not any(a <= k < b for a, b in spans)
            for k, w in enumerate(self.words)
        )


@functools.lru_cache(maxsize=1024)
def _read(text: str, outside: Reached = NOTHING) -> _Read:
    """`_Read(text)`, kept for the texts one judgement reads again: `rusttests` asks
    `guarded` and `definitions` of the start's text and `definitions` of the fix's, and
    `fixbot.tamper.rustpaths` each file of the crate's (up to `MAX_CRATE_FILES`) with what the
    tests reach there, three times, each tokenizing the whole file otherwise (200 module files:
    12.5 s with 8 kept, 1.6 s). A `_Read` is never changed once made."""
    return _Read(text, outside)


# the keywords of the items an assertion rests on, and the words that may stand before one
ITEMS = ("fn", "const", "static")
QUALIFIERS = ("pub", "const", "async", "unsafe", "extern", "default")


def item_start(words: list[str], k: int) -> int:
    """The index of the first token of the item whose keyword is at `k`: its attributes
    (`#[cfg(...)]`, `#[track_caller]`), visibility (`pub`, `pub(crate)`) and qualifiers."""
    j = k
    while j > 0:
        before = words[j - 1]
        if before in QUALIFIERS or (before.startswith('"') and words[j - 2 : j - 1] == ["extern"]):
            j -= 1
            continue
        if before not in (")", "]"):
            break
        opened = _opening(words, j - 1)
        if words[opened - 1 : opened] != (["pub"] if before == ")" else ["#"]):
            break
        j = opened - 1
    return j


def _opening(words: list[str], k: int) -> int:
    """The index of the bracket opening the one closing at `k` among `words` (0 when
    unbalanced)."""
    depth = 0
    for j in range(k, -1, -1):
        if words[j] in (")", "]", "}"):
            depth += 1
        elif words[j] in ("(", "[", "{"):
            depth -= 1
            if depth == 0:
                return j
    return 0


def _only_asserts(body: list[str]) -> bool:
    """Whether the tokens' texts `body` (a function's, inside its braces) are one or more
    assertion macro invocations and nothing else (`assert_eq!(a, b); assert!(c)`)."""
    j = 0
    while j < len(body):
        word = body[j].removeprefix("r#")
        if not ASSERTIONS.fullmatch(word) or body[j + 1 : j + 2] != ["!"]:
            return False
        if body[j + 2 : j + 3] not in (["("], ["["], ["{"]):
            return False
        j = closing(body, j + 2) + 1
        if body[j : j + 1] == [";"]:
            j += 1
    return bool(body)


def closing(words: list[str], k: int) -> int:
    """The index of the bracket closing the one at `k` among `words` (the last when
    unbalanced). A string's text is one word, so a bracket in it is none."""
    depth = 0
    for j in range(k, len(words)):
        if words[j] in ("(", "[", "{"):
            depth += 1
        elif words[j] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return len(words) - 1


def _macros(
    text: str, found: list[rust.Token], words: list[str], inside: list[bool]
) -> dict[str, list[str]]:
    """Each `macro_rules!` of `text` (its tokens `found`, their texts `words`) outside the test
    regions (`inside`: each token's) by its name: its tokens' texts (a name defined twice: the
    last definition)."""
    return {
        words[k + 2]: words[k : rust.item_end(text, found, k) + 1]
        for k in range(len(words) - 2)
        if words[k : k + 2] == ["macro_rules", "!"] and not inside[k]
    }


def _bang(words: list[str], k: int) -> bool:
    """Whether the word at `k` is invoked as a macro (`name!`)."""
    return words[k + 1 : k + 2] == ["!"]


def _reached(bodies: dict[str, list[str]], called: set[str]) -> set[str]:
    """The names of the macros of `bodies` (name: its tokens' texts) that the test regions
    invoke (`called`) or that one of those invokes, however deep."""
    reached: set[str] = set()
    pending = [name for name in called if name in bodies]
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        body = bodies[name]
        pending += [w for k, w in enumerate(body[:-1]) if _bang(body, k) and w in bodies]
    return reached


def _within(offset: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)
