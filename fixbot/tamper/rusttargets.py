"""A cargo package's targets, read from its manifest as Cargo reads it
(https://doc.rust-lang.org/cargo/reference/cargo-targets.html): the library's root (`[lib]
path`, else `src/lib.rs`), the binaries' (`[[bin]] path`, `src/main.rs`, `src/bin/*.rs`,
`src/bin/*/main.rs`), the integration tests' (`[[test]] path`, `tests/*.rs`, `tests/*/main.rs`),
and the library's crate name (`[lib] name`, else the package's with `-` as `_`), by which an
integration test names it (`use app::checks::check;`). Round 39: a crate root named by
`[lib] path = "src/root.rs"` was no root (`fixbot.tamper.rustmods.roots` knew `lib.rs` and
`main.rs` alone), and `tests/adds.rs` naming `app::checks::check` was read by no rule.

What `cargo metadata --offline --no-deps` says (its `targets`' `src_path`) is the same reading of
the same manifest; it is not asked: this layer runs nothing (`cargo metadata` itself runs none of
the project's code, but a workspace's manifests, `build.rs` aside, are what it reads too).
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


def package(manifest: str, text: str, listed: Iterable[str]) -> list[Target]:
    """The targets of the package whose manifest at `manifest` (a repository path ending
    `Cargo.toml`) reads `text`, its files among `listed` (repository paths), sorted by root."""
    data = _read(text)
    folder = posixpath.dirname(manifest)
    paths = set(listed)
    name = _table(data.get("package")).get("name")
    lib = _table(data.get("lib"))
    default_lib = posixpath.join(folder, "src/lib.rs") if folder else "src/lib.rs"
    lib_root = _joined(folder, lib.get("path")) or (default_lib if default_lib in paths else None)
    named = lib.get("name") if isinstance(lib.get("name"), str) else name
    library = str(named).replace("-", "_") if lib_root and named else ""
    found = {Target(lib_root, "lib", library)} if lib_root else set()
    package_table = _table(data.get("package"))
    for kind, section, sub, auto in (
        ("bin", "bin", "src/bin", package_table.get("autobins", True)),
        ("test", "test", "tests", package_table.get("autotests", True)),
    ):
        given = [_joined(folder, t.get("path")) for t in _listed(data.get(section))]
        found |= {Target(root, kind, library) for root in given if root}
        if auto is not False:
            found |= {Target(root, kind, library) for root in _auto(folder, sub, paths)}
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
