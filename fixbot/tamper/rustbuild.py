"""A cargo package's build script is the check's configuration whatever its name: Cargo
compiles and runs it before the crate, and what it writes (a module `include!`d from OUT_DIR,
the tests' own `check` among them) is no file of the tree a rule reads. Round 41: Cargo.toml's
`[package] build = "gen/make.rs"` wrote the tests' `check` into OUT_DIR, src/lib.rs
`include!`d it, and the fix emptied the generated `assert_eq!`: a build script was known by
its name, `build.rs`, alone (`fixbot.ecosystems.rust`'s `runner_config`).

`config-changed` where the fix changes a file the start's or the fix's manifests name as a
build script (`fixbot.tamper.rusttargets.build_scripts`), or a manifest's `[package] build`
itself (a script pointed at another file of the code). The cost, as for `build.rs`: an honest
fix of a build script escalates.

Round 42, what a build script is built with: build.rs wrote the tests' `check` from `gen::CHECK`,
a constant of a path build-dependency declared under `[target.'cfg(unix)'.build-dependencies]`,
and the fix emptied the assertion in gen/src/lib.rs, a file no rule read. The crates a build
script is built with (`built_with`: `[build-dependencies]`, under any `[target.*]` too, path
dependencies resolved as `rusttargets.path_dependencies` does, and their own `[dependencies]`
and `[build-dependencies]` in turn) are configuration as the script is: a fix changing any
file of theirs (its package's files, a package nested inside it aside) is `config-changed`.
The cost: an honest fix of a crate that is also a build dependency escalates. And where a
dependency comes from (`fixbot.tamper.rustsources`): a changed source is `config-changed`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from fixbot.ecosystems import rust
from fixbot.tamper import rustsources, rusttargets
from fixbot.tamper.changes import Change, configures
from fixbot.tamper.record import Cheat


def _manifest(path: str) -> bool:
    return posixpath.basename(path) == rusttargets.MANIFEST


def _trees(changes: Iterable[Change], texts: Mapping[str, str]) -> tuple[Mapping[str, str], ...]:
    """The start's `texts` and the fix's: `texts` with `changes` made."""
    after = dict(texts)
    for change in changes:
        after.pop(change.path, None)
        if change.new is not None:
            after[change.path] = change.new
    return texts, after


def scripts(changes: Iterable[Change], texts: Mapping[str, str]) -> set[str]:
    """The build scripts (repository paths) the manifests among `texts` (path: the start's
    text; the other paths its files) name, and those the fix's manifests name (`changes` made
    on them)."""
    found: set[str] = set()
    for tree in _trees(changes, texts):
        for path in (p for p in tree if _manifest(p)):
            found |= rusttargets.build_scripts(path, tree[path], tree)
    return found


def _folder(manifest: str) -> str:
    return posixpath.dirname(manifest)


def built_with(tree: Mapping[str, str]) -> set[str]:
    """The package folders ("" the root) of the path crates the build scripts of the manifests
    among `tree` (path: text) are built with: each manifest's build dependencies
    (`rusttargets.BUILT`, `[target.*]`'s too), then those crates' own dependencies and build
    dependencies (`rusttargets.LINKED`), transitively."""
    manifests = {path: text for path, text in tree.items() if _manifest(path)}
    todo = [
        folder
        for path, text in manifests.items()
        for folder in rusttargets.path_dependencies(path, text, rusttargets.BUILT).values()
    ]
    found: set[str] = set()
    while todo:
        folder = todo.pop()
        other = posixpath.join(folder, rusttargets.MANIFEST) if folder else rusttargets.MANIFEST
        if folder in found:
            continue
        found.add(folder)
        if other in manifests:
            deps = rusttargets.path_dependencies(other, manifests[other], rusttargets.LINKED)
            todo += deps.values()
    return found


def _package(path: str, folders: set[str]) -> str | None:
    """The deepest of the package `folders` holding `path` (None: none does)."""
    holding = [f for f in folders if not f or path.startswith(f"{f}/")]
    return max(holding, key=len) if holding else None


def _built(changes: list[Change], texts: Mapping[str, str]) -> list[Cheat]:
    """`config-changed` for each of `changes` that is a file of a crate a build script is built
    with (`built_with`), in the start's tree or the fix's: its package by the deepest manifest
    holding it, so a package nested inside a build dependency's folder stays its own."""
    found = []
    for tree in _trees(changes, texts):
        crates = built_with(tree)
        packages = {_folder(p) for p in tree if _manifest(p)} | crates
        for change in changes:
            package = _package(change.path, packages)
            if package is not None and package in crates:
                what = f"a file of {package or 'the root'}/, a crate a build script is built with"
                found.append(Cheat("config-changed", change.path, what))
    return list(dict.fromkeys(found))


def _repointed(change: Change) -> Cheat | None:
    """`config-changed` where the manifest `change` names another build script."""
    old, new = change.old or "", change.new or ""
    if not _manifest(change.path) or rusttargets.build_given(old) == rusttargets.build_given(new):
        return None
    return Cheat("config-changed", change.path, "the package's build script (`build`) changed")


def script_reads(texts: Mapping[str, str]) -> set[str]:
    """The paths the start's build scripts among `texts` (path: text; the scripts its
    manifests name, `scripts`) spell as string literals, relative to their package's folder
    (round 44: build.rs copied checks.in, a tracked file, into OUT_DIR as the tests' `check`,
    and the fix emptied checks.in): the files a script reads are configuration as it is."""
    found = set()
    for path, text in texts.items():
        if not _manifest(path):
            continue
        for script in rusttargets.build_scripts(path, text, texts) & texts.keys():
            code = texts[script]
            for token in rust.tokens(code):
                word = code[token.start : token.end]
                if token.kind == "literal" and word[:1] == '"' and len(word) > 2:
                    given = word[1:-1].rpartition("rerun-if-changed=")[2]  # a `println!`'s
                    found.add(posixpath.normpath(posixpath.join(_folder(path), given)))
    return found


def _scripted(changes: list[Change], texts: Mapping[str, str]) -> list[Cheat]:
    """`config-changed` for each of `changes` that a start's build script names
    (`script_reads`), or that is a build script (`scripts`) no name makes configuration."""
    named, read = scripts(changes, texts), script_reads(texts)
    found = []
    for change in changes:
        if change.path in read:
            what = "a file a build script names (cargo runs the script before the crate)"
            found.append(Cheat("config-changed", change.path, what))
        if change.path in named and configures(change) is None:
            what = "a build script (Cargo.toml's `build`): cargo runs it before the crate"
            found.append(Cheat("config-changed", change.path, what))
    return found


def detect(changes: Iterable[Change], texts: Mapping[str, str] | None = None) -> list[Cheat]:
    """`config-changed` for each of `changes` that is a build script of the start's or the
    fix's manifests (`scripts`; `texts`: path to the start's text, the manifests among them),
    unless its name makes it configuration already (`fixbot.tamper.changes.configures`:
    `build.rs`), for each manifest whose `[package] build` the fix changed, for each file of a
    crate a build script is built with (`_built`), for each file a start's build script names
    (`script_reads`), and for each manifest that changed where a dependency comes from
    (`fixbot.tamper.rustsources.detect`)."""
    changes, known = list(changes), texts or {}
    found = [_repointed(change) for change in changes]
    found += _built(changes, known) + rustsources.detect(changes) + _scripted(changes, known)
    return [cheat for cheat in found if cheat is not None]
