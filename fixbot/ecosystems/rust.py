"""Rust: Cargo packages and workspaces, tested by `cargo test`; a file under a package's
`tests/` folder is an integration test
(https://doc.rust-lang.org/cargo/guide/project-layout.html)."""

from __future__ import annotations

import re

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
    ),
)
