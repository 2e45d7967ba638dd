"""Where a cargo manifest's dependencies come from is the check's configuration.

Round 42: the tests call `checks::check!` of a path dependency, and the fix's Cargo.toml
pointed `checks` at vendor/checks, a copy it added whose `check!` asserts nothing; the start's
checks/src/lib.rs was unchanged, and the fix's manifest was read for `[lib] path` and `build`
alone. The start's and the fix's dependency tables are compared (`sources`): a name the start
declares whose source differs in the fix (`path`, `git` and its `branch`/`tag`/`rev`,
`registry`, `package =` renamed, `workspace = true`, the features it is built with; under any
table, `[target.<cfg>.*]` and `[workspace.dependencies]` too) or that the fix takes away, and
any change to `[patch]` or `[replace]`, is `config-changed`.

Chosen over reading the fix's manifests' dependency roots as the start's are: a path is
readable, but the same re-pointing spelled as a `git` or registry source, or through
`[patch]`/`[replace]`, names code that is in no tree a rule reads; the comparison holds for
every spelling Cargo has. The cost: an honest fix that changes a dependency's source or
features, or removes a dependency, escalates; one that only adds a dependency under a new name
(which no code of the start names) or bumps a registry `version` is no finding (a version is
not read: a registry crate's code is read by no rule, the start's or another).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from fixbot.tamper import rusttargets
from fixbot.tamper.changes import Change
from fixbot.tamper.record import Cheat

# the keys of a dependency's entry that say which code it is (https://doc.rust-lang.org/cargo/
# reference/specifying-dependencies.html); `version` aside, and `optional` (no code of its own)
SOURCE = (
    "path",
    "git",
    "branch",
    "tag",
    "rev",
    "registry",
    "registry-index",
    "package",
    "workspace",
    "features",
    "default-features",
    "default_features",
)
TABLES = (*rusttargets.TESTED, *rusttargets.BUILT, "dev_dependencies")

Source = tuple[tuple[str, str], ...]  # an entry's source keys and their values, as text


def _source(spec: object) -> Source:
    """The source of one dependency entry: a bare version string is the default registry's
    (`()`); a table's `SOURCE` keys, a `path` normalized."""
    if not isinstance(spec, dict):
        return ()
    found = []
    for key in SOURCE:
        if key in spec:
            value = spec[key]
            if key == "path" and isinstance(value, str):
                value = posixpath.normpath(value)
            found.append((key, repr(value)))
    return tuple(found)


def sources(text: str) -> dict[str, frozenset[Source]]:
    """Each dependency name of the manifest `text` (`-` as `_`), with the sources its entries
    give it across the tables (`[dependencies]`, dev, build, under `[target.*]`, the
    workspace's), and `[patch]`/`[replace]` whole under the names `[patch]`/`[replace]`."""
    data = rusttargets.manifest_data(text)
    tables = rusttargets.dependency_tables(data, TABLES)
    workspace = data.get("workspace")
    if isinstance(workspace, dict) and isinstance(workspace.get("dependencies"), dict):
        tables.append(workspace["dependencies"])
    found: dict[str, set[Source]] = {}
    for table in tables:
        for name, spec in table.items():
            found.setdefault(name.replace("-", "_"), set()).add(_source(spec))
    for key in ("patch", "replace"):
        if key in data:
            found[f"[{key}]"] = {(("table", repr(data[key])),)}
    return {name: frozenset(values) for name, values in found.items()}


def changed(old: str, new: str) -> list[str]:
    """The names of `old`'s dependencies (`sources`) whose sources differ in `new` or that
    `new` lacks, and `[patch]`/`[replace]` where either side has one that differs, sorted."""
    before, after = sources(old), sources(new)
    names = {name for name in before if before[name] != after.get(name)}
    names |= {name for name in after if name.startswith("[") and after[name] != before.get(name)}
    return sorted(names)


def detect(changes: Iterable[Change]) -> list[Cheat]:
    """`config-changed` for each cargo manifest of `changes` (`Cargo.toml`, its start's text
    and the fix's) whose dependencies' sources changed (`changed`): what the tests reach by a
    dependency's name is then another crate."""
    found = []
    for change in changes:
        if posixpath.basename(change.path) != rusttargets.MANIFEST or change.old is None:
            continue
        names = changed(change.old, change.new or "")
        if names:
            what = f"where a dependency comes from changed: {', '.join(names)}"
            found.append(Cheat("config-changed", change.path, what))
    return found
