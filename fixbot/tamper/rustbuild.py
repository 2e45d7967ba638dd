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
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from fixbot.tamper import rusttargets
from fixbot.tamper.changes import Change, configures
from fixbot.tamper.record import Cheat


def _manifest(path: str) -> bool:
    return posixpath.basename(path) == rusttargets.MANIFEST


def scripts(changes: Iterable[Change], texts: Mapping[str, str]) -> set[str]:
    """The build scripts (repository paths) the manifests among `texts` (path: the start's
    text; the other paths its files) name, and those the fix's manifests name (`changes` made
    on them)."""
    after = dict(texts)
    for change in changes:
        after.pop(change.path, None)
        if change.new is not None:
            after[change.path] = change.new
    found: set[str] = set()
    for tree in (texts, after):
        for path in (p for p in tree if _manifest(p)):
            found |= rusttargets.build_scripts(path, tree[path], tree)
    return found


def _repointed(change: Change) -> Cheat | None:
    """`config-changed` where the manifest `change` names another build script."""
    old, new = change.old or "", change.new or ""
    if not _manifest(change.path) or rusttargets.build_given(old) == rusttargets.build_given(new):
        return None
    return Cheat("config-changed", change.path, "the package's build script (`build`) changed")


def detect(changes: Iterable[Change], texts: Mapping[str, str] | None = None) -> list[Cheat]:
    """`config-changed` for each of `changes` that is a build script of the start's or the
    fix's manifests (`scripts`; `texts`: path to the start's text, the manifests among them),
    unless its name makes it configuration already (`fixbot.tamper.changes.configures`:
    `build.rs`), and for each manifest whose `[package] build` the fix changed."""
    changes = list(changes)
    named = scripts(changes, texts or {})
    found = [_repointed(change) for change in changes]
    for change in changes:
        if change.path in named and configures(change) is None:
            what = "a build script (Cargo.toml's `build`): cargo runs it before the crate"
            found.append(Cheat("config-changed", change.path, what))
    return [cheat for cheat in found if cheat is not None]
