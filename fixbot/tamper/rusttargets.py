"""A cargo package's targets, read from its manifest as Cargo reads it
(https://doc.rust-lang.org/cargo/reference/cargo-targets.html): the library's root (`[lib]
path`, else `src/lib.rs`), the binaries' (`[[bin]] path`, `src/main.rs`, `src/bin/*.rs`,
`src/bin/*/main.rs`), the integration tests' (`[[test]] path`, `tests/*.rs`, `tests/*/main.rs`),
and the library's crate name (`[lib] name`, else the package's with `-` as `_`), by which an
integration test names it (`use app::checks::check;`). Round 39: a crate root named by
`[lib] path = "src/root.rs"` was no root (`fixbot.tamper.rustmods.roots` knew `lib.rs` and
`main.rs` alone), and `tests/adds.rs` naming `app::checks::check` was read by no rule.

Round 41, the package's other readings: its build scripts (`[package] build`, whatever their
name: `build_scripts`, read by `fixbot.tamper.rustbuild`) and its path dependencies, by the name
its code calls them (`path_dependencies`, `dependency_roots`: a workspace member's
`checks::check!`, read by `fixbot.tamper.rustmods.Crates`).

What `cargo metadata` says offline, without dependencies (its `targets`' `src_path`), is the
same reading of the same manifest (0.28 s for one small package); it is not asked: this layer
runs nothing, and Cargo's answer would add nothing the manifest's text does not say.
Limits: a workspace's members are found by their own `Cargo.toml` (each read alone, no
`[workspace]` inheritance); `autotests = false` / `autobins = false` are read; examples and
benches are not targets the tests' paths reach.
"""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Iterable, Mapping
from typing import NamedTuple

MANIFEST = "Cargo.toml"


class Target(NamedTuple):
    """One crate of a package: its root file (repository-relative), its kind (`lib`, `bin`,
    `test`: an integration test, whose file is test code whole) and the library's crate name of
    its package ("" where the package has no library)."""

    root: str
    kind: str
    library: str


def _read(text: str) -> dict[str, object]:
    """The manifest `text` as TOML (an empty table where it is not TOML)."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def manifest_data(text: str) -> dict[str, object]:
    """The manifest `text` as TOML (an empty table where it is not TOML)."""
    return _read(text)


def _table(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _listed(value: object) -> list[dict[str, object]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _joined(folder: str, given: object) -> str | None:
    """`given` (a manifest's path) relative to the manifest's `folder`, normalized; None where
    it is no string or leaves the repository."""
    if not isinstance(given, str) or not given:
        return None
    path = posixpath.normpath(posixpath.join(folder, given))
    return None if path.startswith("../") or path.startswith("/") else path


def _auto(folder: str, sub: str, paths: set[str]) -> list[str]:
    """The files of `paths` Cargo finds as targets under `folder`/`sub` (`tests`, `src/bin`):
    `sub/x.rs` and `sub/x/main.rs`."""
    base = posixpath.join(folder, sub) if folder else sub
    found = []
    for path in paths:
        rest = path[len(base) + 1 :] if path.startswith(f"{base}/") else ""
        steps = rest.split("/")
        alone = len(steps) == 1 and rest.endswith(".rs")
        if alone or (len(steps) == 2 and steps[1] == "main.rs"):
            found.append(path)
    return found


def _library(folder: str, data: dict[str, object], paths: set[str]) -> Target | None:
    """The library target of the manifest read as `data` in `folder`: its root by `[lib]
    path`, else `src/lib.rs` where it is among `paths`, its crate name by `[lib] name`, else
    the package's, `-` as `_` (None where it has no library)."""
    lib = _table(data.get("lib"))
    default = posixpath.join(folder, "src/lib.rs") if folder else "src/lib.rs"
    root = _joined(folder, lib.get("path")) or (default if default in paths else None)
    named = lib.get("name") or _table(data.get("package")).get("name")
    if root is None:
        return None
    return Target(root, "lib", str(named).replace("-", "_") if isinstance(named, str) else "")


def _kind(folder: str, data: dict[str, object], kind: str, sub: str, paths: set[str]) -> set[str]:
    """The roots of the targets of `kind` (`bin`, `test`) the manifest read as `data` in
    `folder` names (`[[test]] path`) or Cargo finds under `sub` among `paths` (unless
    `autotests = false`)."""
    given = {_joined(folder, t.get("path")) for t in _listed(data.get(kind))}
    found = {root for root in given if root}
    if _table(data.get("package")).get(f"auto{kind}s", True) is not False:
        found |= set(_auto(folder, sub, paths))
    return found


def package(manifest: str, text: str, listed: Iterable[str]) -> list[Target]:
    """The targets of the package whose manifest at `manifest` (a repository path ending
    `Cargo.toml`) reads `text`, its files among `listed` (repository paths), sorted by root."""
    data = _read(text)
    folder, paths = posixpath.dirname(manifest), set(listed)
    lib = _library(folder, data, paths)
    library = lib.library if lib else ""
    found = {lib} if lib else set()
    for kind, sub in (("bin", "src/bin"), ("test", "tests")):
        found |= {Target(root, kind, library) for root in _kind(folder, data, kind, sub, paths)}
    main = posixpath.join(folder, "src/main.rs") if folder else "src/main.rs"
    if main in paths:
        found.add(Target(main, "bin", library))
    return sorted(found)


def targets(texts: Mapping[str, str]) -> list[Target]:
    """The targets of every package whose manifest is among `texts` (path: text; the other
    paths its files), sorted by root; a root named twice is kept once, as its first kind."""
    seen: dict[str, Target] = {}
    for path in sorted(texts):
        if posixpath.basename(path) == MANIFEST:
            for target in package(path, texts[path], texts):
                seen.setdefault(target.root, target)
    return sorted(seen.values())


def build_given(text: str) -> object:
    """What the manifest `text` says of its build script: `[package] build` as TOML read it (a
    string, a list of strings, `false`), True where it is absent (Cargo's `build.rs` then)."""
    return _table(_read(text).get("package")).get("build", True)


def build_scripts(manifest: str, text: str, listed: Iterable[str]) -> set[str]:
    """The build scripts of the package whose manifest at `manifest` reads `text`, as Cargo
    finds them (https://doc.rust-lang.org/cargo/reference/build-scripts.html): the paths
    `[package] build` names (a string, or a list of strings), relative to the manifest; none
    for `false`; absent or `true`, `build.rs` beside the manifest where it is among `listed`
    (repository paths). A script whatever its name is the check's configuration: Cargo
    compiles and runs it before the crate (round 41, `build = "gen/make.rs"`)."""
    folder, given = posixpath.dirname(manifest), build_given(text)
    if given is True:
        default = posixpath.join(folder, "build.rs") if folder else "build.rs"
        return {default} if default in set(listed) else set()
    named = given if isinstance(given, list) else [given]
    return {path for item in named if (path := _joined(folder, item))}


TESTED = ("dependencies", "dev-dependencies")  # the tables whose crates a test reaches
BUILT = ("build-dependencies", "build_dependencies")  # a build script's (`_`: Cargo's old key)
LINKED = ("dependencies", *BUILT)  # what a build script's crates are built with in turn


def dependency_tables(data: dict[str, object], keys: Iterable[str]) -> list[dict[str, object]]:
    """The tables named `keys` (`TESTED`: a test reaches both; `BUILT`) of the manifest read as
    `data`, its `[target.<cfg>.*]` ones too (`[target.'cfg(unix)'.build-dependencies]`)."""
    tables = [data, *(_table(t) for t in _table(data.get("target")).values())]
    return [_table(t.get(key)) for t in tables for key in keys]


def path_dependencies(manifest: str, text: str, keys: Iterable[str] = TESTED) -> dict[str, str]:
    """The path dependencies of the package whose manifest at `manifest` reads `text`, in the
    tables `keys` names (`dependency_tables`): the name the package's code calls each by (its
    key, renamed with `package =` or not, `-` as `_`) and the dependency's folder, relative to
    the repository (one leaving it is none). Limits: a `{ workspace = true }` entry (its path
    in the workspace's table) is not read."""
    folder, found = posixpath.dirname(manifest), {}
    for table in dependency_tables(_read(text), tuple(keys)):
        for key, spec in table.items():
            path = _joined(folder, _table(spec).get("path"))
            if path is not None:
                found[key.replace("-", "_")] = "" if path == "." else path
    return found


def dependency_roots(texts: Mapping[str, str]) -> dict[str, str]:
    """The library root (repository path) each path dependency name of the manifests among
    `texts` (path: text; the other paths its files) reaches (`path_dependencies`), where the
    dependency's own manifest is among `texts` and names a library: round 41, the tests'
    `checks::check!` exported by a workspace member's crate."""
    found: dict[str, str] = {}
    for path in sorted(p for p in texts if posixpath.basename(p) == MANIFEST):
        for name, folder in path_dependencies(path, texts[path]).items():
            other = posixpath.join(folder, MANIFEST) if folder else MANIFEST
            lib = _library(folder, _read(texts.get(other, "")), set(texts))
            if other in texts and lib is not None:
                found.setdefault(name, lib.root)
    return found
