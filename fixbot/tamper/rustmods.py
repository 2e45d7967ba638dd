"""A Rust crate's module tree, read from the start's files: round 39, an assertion function the
tests call (`util::check(add(2, 2), 4)`, `use crate::util::check;`) defined in another module file
(`pub mod util;` in src/lib.rs, src/util.rs) and emptied there was no finding, each file read
alone (`fixbot.tamper.rustasserts` reads a file's own test regions). Here the crate's module
files are found as rustc finds them (https://doc.rust-lang.org/reference/items/modules.html:
`mod x;` is `x.rs` or `x/mod.rs` beside a `mod.rs`, `lib.rs` or `main.rs` or a file a `#[path]`
named, under a folder of its own name beside any other file; a `#[path]` relative to the
declaring file's folder; inline `mod a { mod b; }` folders), and the `use` declarations of each
module read (`{}` groups, `as`, `*`, `self`, `pub use` re-exports): `Crates`, which
`fixbot.tamper.rustpaths` resolves the test code's paths in (the files read for it:
`fixbot.tamper.rustreach`).

The crates' roots are the package's targets as its manifest names them
(`fixbot.tamper.rusttargets`: `[lib] path`, the integration tests `tests/*.rs`, read as test code
whole, which name the library by its crate name, `Crates.libraries`), an `include!("x.rs")`
outside the test regions is read as its module's text (round 39: `pub mod checks {
include!("checks_body.rs"); }`), and a file of the crate no declaration the reader follows
reaches is grafted where rustc would find it if declared (`_graft`: `src/checks.rs` as `checks`
of src/lib.rs's module, round 39's `modules!(checks)` writing `pub mod $name;`).

Limits: `cfg`s are not evaluated (every declaration is read, a generous reading), nor a macro
expanded (a `mod` it writes is found by its file alone, a `use` not at all); an `include!` is
followed by a plain string literal (any other path, `OUT_DIR`'s aside: `Crates.unresolved`, which
`fixbot.tamper.rustreach.included` fails safe on). rustc's dep-info emission (through
`cargo rustc`) names every file rustc read, macros and `include!` expanded (0.8 s offline for
a crate without dependencies), but builds the dependencies and runs build scripts and
procedural macros: the project's code, which this layer never runs (it would go through the
commands' launcher).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fixbot.ecosystems import rust
from fixbot.tamper import rusttargets
from fixbot.tamper.changes import is_test_file
from fixbot.tamper.rustasserts import closing, item_start

MAX_MODULES = 2000  # module records made at most for one crate set: a bound, not a limit met

Use = tuple[str, tuple[str, ...]]  # the name a `use` binds ("*" for a glob) and its path


@dataclass
class Module:
    """One module of a crate: the file it is written in (`path`), its inline modules' names
    inside that file (`inline`), its parent's index (None for a crate root), its children by
    name (indexes), the `use` declarations of its own scope, and whether its declaration
    carries `#[macro_use]`."""

    path: str
    inline: tuple[str, ...]
    parent: int | None
    children: dict[str, list[int]] = field(default_factory=dict)
    uses: list[Use] = field(default_factory=list)
    macro_use: bool = False
    folder: str = ""  # where its file's `mod x;` children are found (a file's module alone)


@dataclass
class FileRead:
    """One reading of a file as a module: its tokens' texts and kinds, the module owning each
    token (an inline module's its own), and whether each is test code (in a test region, or
    the file whole where a test region declares it: `#[cfg(test)] mod tests;`)."""

    words: list[str]
    kinds: list[str]
    owner: list[int]
    inside: list[bool]
    imports: list[bool] = field(default_factory=list)  # each token: in a `use` declaration


def roots(paths: Iterable[str]) -> list[str]:
    """The crate roots among `paths` (repository-relative): each `lib.rs` and `main.rs`, and
    each binary under a `src/bin/` folder (`src/bin/x.rs`, `src/bin/x/main.rs`), sorted."""
    found = set()
    for path in paths:
        name, folder = posixpath.basename(path), posixpath.dirname(path)
        if name in ("lib.rs", "main.rs") or (
            name.endswith(".rs") and posixpath.basename(folder) == "bin"
        ):
            found.add(path)
    return sorted(found)


def module_files(path: str, inline: tuple[str, ...], name: str, mod_rs: bool) -> list[str]:
    """The files rustc reads for `mod name;` in the file `path` inside its inline modules
    `inline`: `name.rs` and `name/mod.rs` in the folder of `path` where it is a mod-rs file
    (`mod_rs`: a crate root, a `mod.rs`, a file a `#[path]` named), else in a folder named as
    its file (`src/util.rs`'s `mod inner;` is `src/util/inner.rs`)."""
    folder = posixpath.dirname(path)
    if not mod_rs:
        folder = posixpath.join(folder, posixpath.basename(path).removesuffix(".rs"))
    base = posixpath.join(folder, *inline, name)
    return [f"{base}.rs", f"{base}/mod.rs"]


def attributed(path: str, inline: tuple[str, ...], mod_rs: bool, given: str) -> str:
    """The file a `#[path = "given"]` names on a `mod` of the file `path` inside `inline`:
    relative to the file's folder, and inside inline modules to their folders as
    `module_files` reads them."""
    folder = posixpath.dirname(path)
    if inline and not mod_rs:
        folder = posixpath.join(folder, posixpath.basename(path).removesuffix(".rs"))
    return posixpath.normpath(posixpath.join(folder, *inline, given))


def module_of(path: str) -> tuple[str, str]:
    """The folder a module's file `path` is found in and the module's name: `D/N.rs` and
    `D/N/mod.rs` are both `N` in `D`."""
    folder, name = posixpath.split(path.removesuffix(".rs"))
    return posixpath.split(folder) if name == "mod" else (folder, name)


@functools.lru_cache(maxsize=800)
def _kind_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[bool, ...]]:
    """The tokens' texts and kinds of the Rust source `text`, and whether each is in a test
    region (`rust.unit_test_regions`): kept, since one judgement builds the crates' trees up to
    four times over the same texts (the start's, the names', the fix's)."""
    found = rust.tokens(text)
    spans = rust.unit_test_regions(text)
    inside = tuple(any(a <= t.start < b for a, b in spans) for t in found)
    return tuple(text[t.start : t.end] for t in found), tuple(t.kind for t in found), inside


def _attributes(words: list[str], k: int) -> list[str]:
    """The tokens' texts of the attributes and visibility before the item whose keyword is at
    `k`."""
    return words[item_start(words, k) : k]


def _path_attribute(attributes: list[str]) -> str | None:
    """The path a `#[path = "x.rs"]` (or `cfg_attr(.., path = "x.rs")`) among `attributes`
    names, its quotes taken off (None where none does)."""
    for j in range(1, len(attributes) - 2):
        if attributes[j : j + 2] == ["path", "="] and attributes[j - 1] in ("[", ","):
            given = attributes[j + 2]
            if len(given) >= 2 and given[0] == given[-1] == '"':
                return given[1:-1]
    return None


def use_tree(words: list[str], k: int, prefix: tuple[str, ...] = ()) -> tuple[list[Use], int]:
    """The bindings of the use tree starting at token `k` of `words` (after `use`, or inside a
    group), each (the name it binds, or "*" for a glob; its path from `prefix`), and the index
    past the tree: `a::{b, c::d as e, f::*, self}` is (b, a::b), (e, a::c::d), (*, a::f),
    (a, a)."""
    path = list(prefix)
    if words[k : k + 2] == [":", ":"]:
        k += 2
    while k < len(words):
        word = words[k]
        if word == "{":
            return _group(words, k + 1, tuple(path))
        if word == "*":
            return [("*", tuple(path))], k + 1
        path.append(word)
        k += 1
        if words[k : k + 2] != [":", ":"]:
            return _leaf(words, k, path)
        k += 2
    return [], k


def _group(words: list[str], k: int, path: tuple[str, ...]) -> tuple[list[Use], int]:
    """The bindings of the use trees of a `{ }` group whose first tree starts at `k`, each
    from `path`, and the index past its `}`."""
    found: list[Use] = []
    while k < len(words) and words[k] != "}":
        inner, k = use_tree(words, k, path)
        found += inner
        k += words[k : k + 1] == [","]
    return found, k + 1


def _leaf(words: list[str], k: int, path: list[str]) -> tuple[list[Use], int]:
    """The binding of the use tree whose path `path` ended at `k` (an `as` there renames it;
    `self` binds the module above it, `_` nothing), and the index past it."""
    alias = path[-1]
    if words[k : k + 1] == ["as"] and k + 1 < len(words):
        alias, k = words[k + 1], k + 2
    if path[-1] == "self":
        path.pop()
        alias = path[-1] if alias == "self" and path else alias
    return ([(alias, tuple(path))] if path and alias != "_" else []), k


class Crates:
    """The module trees of the crates whose roots are among `texts` (path: the start's text),
    built once: `modules` (index: `Module`), the readings of their files (`files`: one per
    module a file is, with the module owning each token), and the files that export a macro
    (`exported`). A file declared twice is read twice; one that declares itself (`#[path]`
    round) is read once per chain; at most `MAX_MODULES` modules are made."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = {path: text for path, text in texts.items() if path.endswith(".rs")}
        self.modules: list[Module] = []
        self.files: list[FileRead] = []
        self.libraries: dict[str, int] = {}  # a library's crate name: its root module
        self.exported = {p for p, text in self.texts.items() if "macro_export" in text}
        self.missing: set[str] = set()  # the files a declaration named that `texts` lacks
        self.unresolved: set[str] = set()  # files with an `include!` of a path not spelled
        self._roots(texts)
        self._graft()

    def _roots(self, texts: Mapping[str, str]) -> None:
        """Read each crate root: the targets the manifests among `texts` name
        (`fixbot.tamper.rusttargets`; an integration test's file is test code whole, a
        library's root is known by its crate name) and those `roots` finds by file name."""
        kinds = {target.root: target for target in rusttargets.targets(texts)}
        for root in sorted(kinds.keys() | set(roots(self.texts))):
            target = kinds.get(root, rusttargets.Target(root, "", ""))
            mid = len(self.modules)
            self._file(root, None, "", [], ("mod-rs", "test" if target.kind == "test" else ""))
            if target.kind == "lib" and len(self.modules) > mid:
                self.libraries.setdefault(target.library, mid)
        mids = {m.path: mid for mid, m in enumerate(self.modules) if m.parent is None}
        for name, root in rusttargets.dependency_roots(texts).items():
            if root in mids:  # a path dependency by the name its dependents' code calls it
                self.libraries.setdefault(name, mids[root])

    def _graft(self) -> None:
        """Read each file of the crates no declaration the reader follows reached as the module
        rustc would find it for if declared (`D/N.rs` or `D/N/mod.rs` as `N` of the file module
        whose children's folder is `D`), where that module has no child `N` yet, the
        shallowest first: a `mod` a macro writes from its argument (`modules!(checks)`)."""
        read = {module.path for module in self.modules}
        for path in sorted(self.texts, key=lambda p: (p.count("/"), p)):
            if path in read or is_test_file(path) or len(self.modules) >= MAX_MODULES:
                continue
            folder, name = module_of(path)
            parent = self._grafted(folder, name)
            if parent is not None:
                rs = "mod-rs" if posixpath.basename(path) == "mod.rs" else ""
                self._file(path, parent, name, [], (rs, ""))
                read.update(module.path for module in self.modules)

    def _grafted(self, folder: str, name: str) -> int | None:
        """The first file module whose children's folder is `folder` and that has no child
        `name` (None: none, or `name` is a crate root's)."""
        if name in ("lib", "main"):
            return None
        return next(
            (
                mid
                for mid, module in enumerate(self.modules)
                if not module.inline and module.folder == folder and name not in module.children
            ),
            None,
        )

    def _add(self, module: Module) -> int:
        self.modules.append(module)
        return len(self.modules) - 1

    def _file(
        self, path: str, parent: int | None, name: str, attrs: list[str], chain: tuple[str, ...]
    ) -> None:
        """Read the file `path` as the module `name` of `parent` (None: a crate root), declared
        with the attributes `attrs` (`#[macro_use]`); `chain`: the files above it, mod-rs flags
        and test flags as `_declared` found them."""
        text = self.texts.get(path)
        if text is None or path in chain[2:] or len(self.modules) >= MAX_MODULES:
            self.missing.update([path] if text is None else [])
            return
        mod_rs, testing = chain[0] == "mod-rs", chain[1] == "test"
        words, kinds, regions = _kind_words(text)
        folder = posixpath.dirname(path) if mod_rs else path.removesuffix(".rs")
        mid = self._add(Module(path, (), parent, macro_use="macro_use" in attrs, folder=folder))
        if parent is not None:
            self.modules[parent].children.setdefault(name, []).append(mid)
        inside = [testing or region for region in regions]
        read = FileRead(list(words), list(kinds), [mid] * len(words), inside, [False] * len(words))
        self.files.append(read)
        self._scope(read, 0, len(words), mid, (mod_rs, (path, *chain[2:])))

    def _scope(
        self, read: FileRead, start: int, end: int, mid: int, where: tuple[bool, tuple[str, ...]]
    ) -> None:
        """Read the tokens `start` to `end` of `read` as the scope of module `mid`: its `use`
        declarations, its `mod` declarations (files read) and inline modules (scopes of their
        own); `where`: whether the file is a mod-rs file, and the chain of files read."""
        words, k = read.words, start
        while k < end:
            read.owner[k] = mid
            word = words[k]
            if word == "use" and read.kinds[k] == "ident":
                k = self._use(read, k, end, mid)
                continue
            if words[k : k + 3] == ["include", "!", "("] and k + 3 < end:
                given = words[k + 3 : closing(words, k + 2)]
                self._included(mid, given, where, read.inside[k])
            if word == "mod" and k + 2 < end and read.kinds[k + 1] == "ident":
                k = self._mod(read, k, end, mid, where)
            k += 1

    def _mod(
        self, read: FileRead, k: int, end: int, mid: int, where: tuple[bool, tuple[str, ...]]
    ) -> int:
        """Read the `mod` item at token `k` of `read` in module `mid` (`where` as for `_scope`):
        a declaration's files, an inline module's scope; the index of its last token."""
        words = read.words
        name, attrs = words[k + 1], _attributes(words, k)
        if words[k + 2] == ";":
            self._declared(mid, name, attrs, where, read.inside[k])
        elif words[k + 2] == "{":
            close = closing(words, k + 2)
            module = self.modules[mid]
            inline = Module(
                module.path, (*module.inline, name), mid, macro_use="macro_use" in attrs
            )
            child = self._add(inline)
            module.children.setdefault(name, []).append(child)
            self._scope(read, k + 3, min(close, end), child, where)
            return close
        return k

    def _use(self, read: FileRead, k: int, end: int, mid: int) -> int:
        """Read the `use` declaration at token `k` of `read` into module `mid`'s uses, its
        tokens marked as an import's; the index past it."""
        found, after = use_tree(read.words, k + 1)
        self.modules[mid].uses += found
        for j in range(k, min(after, end)):
            read.owner[j], read.imports[j] = mid, True
        return max(after, k + 1)

    def _included(
        self, mid: int, words: list[str], where: tuple[bool, tuple[str, ...]], test: bool
    ) -> None:
        """Read the file an `include!` in module `mid` names (its tokens `words`: a string
        literal, relative to the including file's folder) as that module's text: a module of
        its own whose items `mid` sees through a glob (`use self::<include!path>::*`), its
        `super` one too high (a generous reading). Any other path (`concat!`, `env!`) but one
        under the build script's `OUT_DIR` puts the including file in `unresolved`."""
        given = words[0] if words else ""
        module, (mod_rs, chain) = self.modules[mid], where
        if len(given) < 2 or given[0] != '"' or given[-1] != '"':
            if '"OUT_DIR"' not in words:  # the build script's output: configuration
                self.unresolved.add(module.path)
            return
        path = posixpath.normpath(posixpath.join(posixpath.dirname(module.path), given[1:-1]))
        name = f"include!{path}"
        if name in module.children:
            return
        flags = ("mod-rs" if mod_rs else "", "test" if test else "")
        self._file(path, mid, name, [], (*flags, *chain))
        if name in module.children:
            module.uses.append(("*", ("self", name)))

    def _declared(
        self, mid: int, name: str, attrs: list[str], where: tuple[bool, tuple[str, ...]], test: bool
    ) -> None:
        """Read the files of `mod name;` declared in module `mid` with `attrs` (`where` as for
        `_scope`; `test`: the declaration is test code, so the file is test code whole)."""
        module, (mod_rs, chain) = self.modules[mid], where
        given = _path_attribute(attrs)
        if given is not None:
            files = [(attributed(module.path, module.inline, mod_rs, given), True)]
        else:
            plain, folder = module_files(module.path, module.inline, name, mod_rs)
            files = [(plain, False), (folder, True)]
        flag = "test" if test else ""
        for path, rs in files:
            self._file(path, mid, name, attrs, ("mod-rs" if rs else "", flag, *chain))

    def root(self, mid: int) -> int:
        """The crate root above module `mid`."""
        while (parent := self.modules[mid].parent) is not None:
            mid = parent
        return mid

    def within(self, mid: int, anchor: int) -> bool:
        """Whether module `mid` is `anchor` or inside it."""
        at: int | None = mid
        while at is not None and at != anchor:
            at = self.modules[at].parent
        return at == anchor
