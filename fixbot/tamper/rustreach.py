"""The start's files the Rust rules read: those the crates' module trees reach, not every `.rs`
file of the tree.

Round 42: round 41's workspace (the tests' `checks::check!`, a path dependency's) with 401 empty
`.rs` files at the root that no target builds: the changed crate's files were read first, then
every other `.rs` file by depth and name, at most 400, so the pads filled the cap and
src/lib.rs, the tests' file, was never read. Now (`reach`) the manifests are read first, then
the targets' roots they name (`fixbot.tamper.rusttargets.targets`; where no manifest holds a
changed file, the roots by file name in its crate, `fixbot.tamper.rustmods.roots`), then the
files their module trees declare (`mod`, `#[path]`, `include!`: `rustmods.Crates.missing`),
and the files `Crates._graft` would graft (a `.rs` file in a folder a module's children are
found in), round after round until nothing new is named. A file no tree reaches is never
read, whatever its depth. Where the cap still cuts (`MAX_CRATE_FILES` `.rs` files,
`MAX_MANIFESTS` manifests), the verdict fails safe: `rust-test-changed`, not verified
(`unread`), rather than a reading of fewer files. Round 43: the trees are read for any change,
and an `include!` through a path no literal spells (`concat!(env!("CARGO_MANIFEST_DIR"), ..)`)
makes a changed file no reading read not verified either (`included`). Round 44: a file a test
region reads by `include_str!` or `include_bytes!` (the expected values its assertions compare
against) is the tests' (`data`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from fixbot.tamper import rustmods, rusttargets, rusttests
from fixbot.tamper.changes import Change, is_test_file
from fixbot.tamper.record import Cheat

MAX_CRATE_FILES = 2000  # the start's `.rs` files read at most for the crates' module trees
MAX_MANIFESTS = 400  # the start's manifests read at most
MAX_ROUNDS = 64  # rounds of declarations followed: a module tree 64 files deep

Reader = Callable[[str], str]  # a start's path: its text


class Reach(NamedTuple):
    """The start's texts read (path: text) and, where a cap cut the reading, the first file
    left unread ("" where none was)."""

    texts: dict[str, str]
    cut: str


def _manifest(path: str) -> bool:
    return posixpath.basename(path) == rusttargets.MANIFEST


def _crate(path: str) -> str:
    """The folder prefix of the crate of `path` (`crates/a/` for `crates/a/src/x.rs`; "" for a
    file under no `src/`)."""
    steps = path.split("/")[:-1]
    if "src" not in steps:
        return ""
    cut = len(steps) - steps[::-1].index("src") - 1
    return "".join(f"{step}/" for step in steps[:cut])


def _roots(changed: list[str], manifests: dict[str, str], listed: set[str]) -> set[str]:
    """The crate roots to read first: the targets the `manifests` (path: text) name among
    `listed`, and, for a changed file no manifest's package holds, the roots by file name in
    its crate (`rustmods.roots`)."""
    found = {t.root for t in rusttargets.targets({**dict.fromkeys(listed, ""), **manifests})}
    folders = {posixpath.dirname(p) for p in manifests}
    for path in changed:
        if not any(not f or path.startswith(f"{f}/") for f in folders):
            crate = _crate(path)
            found |= {r for r in rustmods.roots(listed) if r.startswith(crate)}
    return found & listed


def _grafts(listed: set[str]) -> dict[str, list[str]]:
    """The `.rs` program files of `listed` by the folder a module's children would be found
    in for them (`D/N.rs`, `D/N/mod.rs`: `D`), as `Crates._graft` grafts them."""
    found: dict[str, list[str]] = {}
    for path in listed:
        if path.endswith(".rs") and not is_test_file(path):
            found.setdefault(rustmods.module_of(path)[0], []).append(path)
    return found


def _named(texts: dict[str, str], grafts: dict[str, list[str]], listed: set[str]) -> set[str]:
    """The files the module trees of `texts` name that it lacks: a declaration's (`missing`)
    and those to graft in a folder a file module's children are found in."""
    crates = rustmods.Crates(texts)
    found = crates.missing & listed
    for module in crates.modules:
        if not module.inline:
            found.update(grafts.get(module.folder, ()))
    return found - texts.keys()


def _first(paths: Iterable[str], room: int) -> tuple[list[str], str]:
    """The first `room` of `paths` (the shallowest, then by name) and the first left out."""
    ordered = sorted(paths, key=lambda p: (p.count("/"), p))
    return ordered[:room], (ordered[room] if len(ordered) > room else "")


def _follow(texts: dict[str, str], wanted: set[str], listed: set[str], read: Reader) -> str:
    """Read into `texts` the files `wanted` names, then those their module trees name
    (`_named`), round after round, at most `MAX_CRATE_FILES` `.rs` files: the first file left
    unread ("" where none was)."""
    grafts, room = _grafts(listed), MAX_CRATE_FILES
    for _ in range(MAX_ROUNDS):
        batch, left = _first(wanted - texts.keys(), room)
        texts.update((path, read(path)) for path in batch)
        room -= len(batch)
        wanted = _named(texts, grafts, listed)
        if left or not wanted:
            return left
    return sorted(wanted)[0]


def _scripts(manifests: Mapping[str, str], paths: set[str], read: Reader) -> dict[str, str]:
    """The start's build scripts the `manifests` (path: text) name among `paths`, read (for
    `fixbot.tamper.rustbuild.script_reads`: the files a script names are configuration)."""
    built = {s for m, t in manifests.items() for s in rusttargets.build_scripts(m, t, paths)}
    return {path: read(path) for path in sorted(built & paths)}


def reach(changed: Iterable[str], listed: Iterable[str], read: Reader) -> Reach:
    """The start's files the crates of `listed` (the start's paths) reach, read by `read` (a
    path: its text): every manifest, the changed `.rs` files (`changed`), the targets' roots
    and what their module trees declare or graft, round after round, at most
    `MAX_CRATE_FILES` `.rs` files and `MAX_MANIFESTS` manifests (`Reach.cut`: the first left);
    the manifests alone where `changed` is empty."""
    paths, changed = set(listed), list(changed)
    manifests, cut = _first((p for p in paths if _manifest(p)), MAX_MANIFESTS)
    texts = {path: read(path) for path in manifests}
    texts.update(_scripts(texts, paths, read))
    if cut or not changed:  # any change reads the trees: a file `included` may be the tests'
        return Reach(texts, cut)  # the manifests alone (`rustbuild.built_with`)
    rust = [p for p in changed if p.endswith(".rs") and p in paths]
    return Reach(texts, _follow(texts, set(rust) | _roots(rust, texts, paths), paths, read))


def unread(changes: Iterable[Change], cut: str) -> list[Cheat]:
    """`rust-test-changed`, not verified, where the reading of the crates was cut (`cut`: the
    first file left unread) and the fix changed a `.rs` file: what the tests reach is not
    known, so their verdict is not taken."""
    rust = sorted(c.path for c in changes if c.path.endswith(".rs"))
    if not cut or not rust:
        return []
    what = (
        f"the crates' module trees reach more files than fixbot reads ({MAX_CRATE_FILES} `.rs`, "
        f"{MAX_MANIFESTS} manifests; {cut} unread): what the tests reach is not known"
    )
    return [Cheat("rust-test-changed", rust[0], what)]


def included(changes: Iterable[Change], texts: Mapping[str, str]) -> list[Cheat]:
    """`rust-test-changed`, not verified, where a file the crates' module trees reach (`texts`,
    path: the start's text) includes one through a path fixbot does not resolve (an `include!`
    of no string literal, none under `OUT_DIR`: `rustmods.Crates.unresolved`, round 43's
    `include!(concat!(env!("CARGO_MANIFEST_DIR"), "/checks.in"))`) and the fix changed a file
    that is no `.rs` file, no manifest and none read: that file may be the one included, the
    tests' code."""
    other = sorted(
        c.path
        for c in changes
        if not c.path.endswith(".rs") and not _manifest(c.path) and c.path not in texts
    )
    unresolved = sorted(rustmods.Crates(texts).unresolved) if other else []
    if not unresolved:
        return []
    what = (
        f"{unresolved[0]} includes a file through a path fixbot does not resolve (an `include!` "
        f"of no string literal): {other[0]}, which the fix changed, may be it"
    )
    return [Cheat("rust-test-changed", other[0], what)]


def data(changes: Iterable[Change], texts: Mapping[str, str]) -> list[Cheat]:
    """`rust-test-changed` where the fix changed a file, no `.rs` file, that a test region of
    a file the crates' module trees reach (`texts`, path: the start's text) names by
    `include_str!` or `include_bytes!` (`rusttests.declared`, by `rusttests.named`): round 44,
    a test's expected values read from expected.txt, which the fix rewrote to the buggy
    code's answers."""
    data = (c.path for c in changes if not c.path.endswith(".rs"))
    hit = sorted(path for path in data if rusttests.declared(path, texts))
    what = "a file a Rust test region includes (`include_str!`, `include_bytes!`) changed"
    return [Cheat("rust-test-changed", hit[0], what)] if hit else []
