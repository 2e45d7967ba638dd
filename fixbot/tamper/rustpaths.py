"""What a Rust crate's test code reaches by name through its module tree
(`fixbot.tamper.rustmods.Crates`): each path the test code names (`util::check`, `check` imported
by `use crate::util::check;`, `crate::`, `super::`, `self::`, a re-export `pub use`, a glob's)
resolved from its module as rustc resolves it, and the macros visible where it invokes one (a
`#[macro_use]` module's, an exported one's): `reached`, per file, read by
`fixbot.tamper.rusttests` with `fixbot.tamper.rustasserts`, which says which of them assert.

The paths of the assertion functions and macros so reached are resolved the same way
(`Reached.rested`: a `const` `check` imports from a third file), less the names the crate's
code uses (`_coded`: such a `const` named by `add` is the code's).

Limits: a method called on a value (`x.check(..)`) is reached in each file the same test code
reaches an item in (its receiver's type is not read); a macro is reached by its name wherever a
`#[macro_use]` declaration above the test code, or a `#[macro_export]`, makes one visible
(textual order left out: generous); a glob import's own path is resolved without globs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from fixbot.tamper import rustasserts
from fixbot.tamper.rustasserts import Reached
from fixbot.tamper.rustmods import Crates, FileRead

MAX_HOPS = 512  # lookups at most for one path: `use` chains, globs, re-exports


class _Resolver:
    """Paths resolved in `crates` as rustc resolves them. A glob import (`use super::*`) is
    read once for the whole crate: each module's glob closure (`globs`: the modules whose
    names its globs bring, however deep), so that globs both ways (`pub use m::*` in the root,
    `use crate::*` in `m`) cost one walk, not one per name; a named import is followed with a
    budget of `MAX_HOPS` steps per query (an import cycle ends)."""

    def __init__(self, crates: Crates) -> None:
        self.crates = crates
        self.modules = crates.modules
        self.budget = MAX_HOPS
        self.active: set[tuple[str, int, str]] = set()  # the lookups under way: a cycle ends
        self.memo: dict[tuple[int, tuple[str, ...]], set[tuple[int, str]]] = {}  # by query
        self.closure: dict[int, set[int]] = {}
        self.edges: dict[int, set[int]] = {}
        self.named: list[dict[str, list[tuple[str, ...]]]] = []  # by module: name, its paths
        for module in self.modules:
            self.named.append({})
            for alias, path in module.uses:
                if alias != "*" and path:
                    self.named[-1].setdefault(alias, []).append(path)
        for mid, module in enumerate(self.modules):  # globs' own paths read without globs
            paths = [path for alias, path in module.uses if alias == "*"]
            self.budget = MAX_HOPS
            self.edges[mid] = {base for path in paths for base in self.resolve(mid, path)}

    def globs(self, mid: int) -> set[int]:
        """Module `mid` and the modules its glob imports bring names from, however deep
        (while the closures are being made: `mid` alone)."""
        if len(self.edges) < len(self.modules):
            return {mid}
        if mid not in self.closure:
            seen, pending = {mid}, [mid]
            while pending:
                for base in self.edges[pending.pop()] - seen:
                    seen.add(base)
                    pending.append(base)
            self.closure[mid] = seen
        return self.closure[mid]

    def targets(self, mid: int, segments: list[str]) -> set[tuple[int, str]]:
        """The (module, name) pairs the path `segments` named in module `mid` may reach: its
        last segment in the module its prefix resolves to; where the prefix resolves only in
        part (`util::Sums::check`: a type), each remaining segment in the deepest module; where
        none of it does (`Sums::check`, `Sums` imported), each segment in the modules its first
        names an item of."""
        key = (mid, tuple(segments))
        if key not in self.memo:
            self.memo[key] = self._targets(mid, segments)
        return self.memo[key]

    def _targets(self, mid: int, segments: list[str]) -> set[tuple[int, str]]:
        """`targets`, not kept."""
        self.budget, self.active = MAX_HOPS, set()
        for cut in range(len(segments) - 1, 0, -1):
            if found := self.resolve(mid, segments[:cut]):
                rest = segments[cut:]
                return {(m, n) for base in found for n in rest for m in self.items(base, n)}
        bases = self.items(mid, segments[0]) if len(segments) > 1 else {mid}
        return {(m, n) for base in bases for n in segments for m in self.items(base, n)}

    def _spend(self) -> bool:
        self.budget -= 1
        return self.budget >= 0

    def items(self, mid: int, name: str) -> set[int]:
        """The modules whose scope may define the item `name` seen from module `mid`: `mid`
        and its glob closure (`globs`), and those their `use` declarations bind `name` from
        (by name, `as`)."""
        scope = self.globs(mid)
        found = set(scope)
        key = ("items", mid, name)
        if key in self.active or not self._spend():
            return found
        self.active.add(key)
        for at in scope:
            for path in self.named[at].get(name, ()):
                for base in self.resolve(at, path[:-1]):
                    found |= self.items(base, path[-1])
        self.active.discard(key)
        return found

    def resolve(self, mid: int, path: list[str] | tuple[str, ...]) -> set[int]:
        """The modules the module path `path` names from module `mid` (`crate`, `self`,
        `super`, a child, an imported module; a first segment not found there is read from the
        crate root, as Rust 2015's paths are; then a library's crate name, as an integration test
        names it: `app::checks`)."""
        root = self.crates.root(mid)
        if not path:
            return {root}
        if not self._spend():
            return set()
        current = self._first(mid, path[0], root)
        for segment in path[1:]:
            if segment == "super":
                current = {p for m in current for p in self._parent(m)}
            elif segment != "self":
                current = {c for m in current for c in self.module(m, segment)}
        return current

    def _first(self, mid: int, first: str, root: int) -> set[int]:
        """The modules a path's first segment `first` names from module `mid` (`root`: its
        crate's root)."""
        named = {"crate": {root}, "$crate": {root}, "self": {mid}, "super": self._parent(mid)}
        if first in named:
            return named[first]
        found = self.module(mid, first) or self.module(root, first)
        library = self.crates.libraries.get(first)
        return found or ({library} if library is not None and library != root else set())

    def _parent(self, mid: int) -> set[int]:
        parent = self.modules[mid].parent
        return set() if parent is None else {parent}

    def module(self, mid: int, name: str) -> set[int]:
        """The modules `name` names inside module `mid`: the children by that name of `mid`
        and of its glob closure, and the modules their `use` declarations bind to it (a
        re-export `pub use inner::util;`)."""
        scope = self.globs(mid)
        found = {c for at in scope for c in self.modules[at].children.get(name, [])}
        key = ("module", mid, name)
        if key in self.active or not self._spend():
            return found
        self.active.add(key)
        for at in scope:
            for path in self.named[at].get(name, ()):
                found |= self._imported(at, name, path)
        self.active.discard(key)
        return found

    def _imported(self, mid: int, name: str, path: tuple[str, ...]) -> set[int]:
        """The modules the `use` of module `mid` binding `name` to `path` makes it name."""
        if len(path) > 1:
            return self.resolve(mid, path)
        root = self.crates.root(mid)  # `use util;`: Rust 2015's, from the root
        return self.module(root, path[0]) if mid != root else set()


# words that start no path to an item
_KEYWORDS = (
    "as async await break const continue dyn else enum extern false fn for if impl in let loop "
    "match mod move mut pub ref return static struct trait true type unsafe use where while Self"
)
KEYWORDS = frozenset(_KEYWORDS.split())


def _path(words: list[str], kinds: list[str], k: int) -> tuple[list[str], int]:
    """The path starting at token `k` (`a::b::c`, a turbofish or anything else ending it) and
    the index past it."""
    segments, j = [words[k]], k + 1
    while words[j : j + 2] == [":", ":"] and j + 2 < len(words) and kinds[j + 2] == "ident":
        segments.append(words[j + 2])
        j += 3
    return segments, j


def _starts(read: FileRead, k: int, mask: list[bool]) -> bool:
    """Whether token `k` of `read`, read where `mask` holds, starts a path that may name an
    item."""
    if not mask[k] or read.kinds[k] != "ident" or read.words[k] in KEYWORDS:
        return False
    before = read.words[max(k - 2, 0) : k]
    return before != [":", ":"] and before[-1:] != ["."]


def _methods(read: FileRead) -> set[str]:
    """The names test code of `read` calls as methods (`.check(`)."""
    return {
        read.words[k]
        for k in range(1, len(read.words))
        if read.inside[k] and read.kinds[k] == "ident" and read.words[k - 1] == "."
    }


def reached(texts: Mapping[str, str]) -> dict[str, Reached]:
    """What the test code of the crates whose files are `texts` (path: the start's text; the
    crate roots among them: `roots`) reaches in each file by name (`Reached`: the items its
    paths resolve to, the macros visible where it invokes them), by file path; a method the
    test code of a file calls (`Checker.check(..)`, its receiver's type unknown) is reached
    in each file that code reaches an item in; and what the paths of the assertion functions
    and macros (`rustasserts.assertion_spans`) reach, as `rested`, less the names the crate's
    code uses (`_coded`). Never raises: an unresolved path reaches nothing but what its
    module's own scope may define."""
    crates = Crates(texts)
    resolver = _Resolver(crates)
    names: dict[str, set[str]] = {}
    macros: dict[str, set[str]] = {}
    anchors = _macro_anchors(crates)
    for read in crates.files:
        files = _read_paths(read, resolver, anchors, (names, macros), read.inside)
        for path in files:
            names.setdefault(path, set()).update(_methods(read))
    first = {
        path: Reached(frozenset(names.get(path, ())), frozenset(macros.get(path, ())))
        for path in names.keys() | macros.keys()
    }
    rested = _rested(resolver, anchors, first, texts)
    return {
        path: first.get(path, Reached())._replace(rested=frozenset(rested.get(path, ())))
        for path in first.keys() | rested.keys()
    }


def _read_paths(
    read: FileRead,
    resolver: _Resolver,
    anchors: list[tuple[str, int]],
    into: tuple[dict[str, set[str]], dict[str, set[str]]],
    mask: list[bool],
) -> set[str]:
    """Add to `into` (items, macros: by file, the names reached there) what each path of
    `read` where `mask` holds (its test code, or its assertion functions) reaches; the files
    its items were reached in."""
    crates, files = resolver.crates, set()
    for k in (k for k in range(len(read.words)) if _starts(read, k, mask)):
        segments, after = _path(read.words, read.kinds, k)
        bang = read.words[after : after + 1] == ["!"]
        for mid, name in resolver.targets(read.owner[k], segments):
            into[bang].setdefault(crates.modules[mid].path, set()).add(name)
            files.add(crates.modules[mid].path)
        if bang:
            for path in _visible(crates, anchors, read.owner[k]):
                into[1].setdefault(path, set()).add(segments[-1])
    return files


def _rested(
    resolver: _Resolver,
    anchors: list[tuple[str, int]],
    first: dict[str, Reached],
    texts: Mapping[str, str],
) -> dict[str, set[str]]:
    """By file, what the paths of the assertion functions and macros of the files the test
    code reaches (`first`), and of the test code's own assertions (`assert_eq!(add(2, 2),
    app::FOUR)` in tests/adds.rs: `rustasserts.expectation_spans`), reach there, less the names
    the crate's code uses (`_coded`)."""
    rested: dict[str, set[str]] = {}
    coded: set[str] = set()
    for read in (read for read in resolver.crates.files if read.words):
        path = resolver.crates.modules[read.owner[0]].path
        mask = [False] * len(read.words)
        spans = rustasserts.assertion_spans(texts[path], first[path]) if path in first else []
        spans += rustasserts.expectation_spans(texts[path], first.get(path))
        for k, end in spans:
            mask[k:end] = [True] * (end - k)
        _read_paths(read, resolver, anchors, (rested, rested), mask)
        coded |= _coded(read, mask)
    return {path: found - coded for path, found in rested.items()}


def _coded(read: FileRead, mask: list[bool]) -> set[str]:
    """The names the code of `read` uses: its tokens outside the test regions, the assertion
    spans (`mask`) and its `use` declarations, but an item's own name where it is defined."""
    return {
        word
        for k, word in enumerate(read.words)
        if not (read.inside[k] or mask[k] or read.imports[k])
        and read.kinds[k] == "ident"
        and read.words[k - 1 : k] not in (["const"], ["static"], ["mut"], ["fn"])
    }


def _visible(crates: Crates, anchors: list[tuple[str, int]], mid: int) -> set[str]:
    """The files whose macros a bare `name!` in module `mid` may invoke: a `#[macro_use]`
    module's above it (`anchors`), an exporting file's (`#[macro_export]`)."""
    return {path for path, anchor in anchors if crates.within(mid, anchor)} | crates.exported


def _macro_anchors(crates: Crates) -> list[tuple[str, int]]:
    """Each file whose module is declared `#[macro_use]` with the module its macros are visible
    in: the parent of the highest of the unbroken `#[macro_use]` declarations above it."""
    found = []
    for module in crates.modules:
        if module.inline or not module.macro_use or module.parent is None:
            continue
        anchor = module
        while anchor.macro_use and anchor.parent is not None:
            parent = anchor.parent
            anchor = crates.modules[parent]
        found.append((module.path, parent))
    return found


Rest = tuple[str, str, tuple[str, ...]]  # a file, a name (`check!` for a macro), its tokens


def rests(texts: Mapping[str, str], names: frozenset[str] | None = None) -> Counter[Rest]:
    """What the assertions of the crate's test code (its files `texts`: path to text) rest on,
    wherever it reaches them: each definition, from its first attribute, of an item
    `rustasserts.guarded` holds in a file (`rustasserts.definitions`), and each assertion
    macro reached (`rustasserts.helpers`, named `name!`); with `names` (the start's), the
    definitions of those names alone, in the files where the test code reaches them or the
    assertions rest on them. Read on the start's tree and the fix's, the two differ where the
    fix changed the module tree or an import under the tests' assertion functions (a
    `#[path]` pointed at an emptied copy, a `pub use` re-pointed)."""
    found: Counter[Rest] = Counter()
    for path, outside in reached(texts).items():
        text = texts.get(path) or ""
        held = set(rustasserts.guarded(text, outside))
        wanted = held if names is None else (held | outside.names) & names
        for name, words in rustasserts.definitions(text, wanted, outside):
            found[(path, name, words)] += 1
        for name, body in rustasserts.helpers(text, outside):
            if names is None or f"{name}!" in names:
                found[(path, f"{name}!", body)] += 1
    return found
