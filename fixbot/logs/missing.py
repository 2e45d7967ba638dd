"""A missing dependency, told from a missing module of the code, with the repository at hand.

`named(text)` reads the package a loader reported missing (pure), by each ecosystem's
`Missing.loader` (`fixbot.ecosystems`): Python's `No module named 'x'`, node's `Cannot find
module 'x'` and `Cannot find package 'x' imported from` (bare names only: `./x` is a file of
the project), Go's `no required module provides package x`, rustc's `unresolved module or
unlinked crate `x``, Ruby's `cannot load such file -- x`. `refine` then decides with the
repository's files (the ecosystem's `Missing.holds`, `Dependencies.declared_in`):
a name the repository holds (a module or package folder, the package's own or a workspace
member's name, the Go module's own path, a Rust module file) is the code's problem (the
classifier's table without `missing_dependency`: "import" or whatever else the log shows);
a name it does not hold is `missing_dependency` (permanent: no fixer runs), with the file
where the project declares such dependencies (`manifest`) and whether it names it already.
Whether a Python package is installed is the check's interpreter's to say: `fixbot.run.verify`
asks it (a top-level package that is installed makes `No module named 'pkg.sub'` a code
problem again); an npm package is installed when `node_modules/<name>` exists.

Python module names are compared with the names in the requirement files as they are (with
`-` and `_` alike): a module whose distribution is named otherwise (`yaml` from `PyYAML`) reads
as not declared.
"""

from __future__ import annotations

import re
from pathlib import Path

from fixbot.core.failure import Classification, ErrorClass, MissingDependency
from fixbot.ecosystems import registry
from fixbot.logs.classify import MISSING, classify


def named(text: str) -> tuple[str, str] | None:
    """(ecosystem, top-level name) of the first package a loader reported missing in `text`:
    a Python top-level module, an npm package (`@scope/name` kept whole), a Go package path, a
    Rust crate, ... (each ecosystem's `Missing.loader`); None when no loader said so."""
    found = registry.missing_package(text)
    return None if found is None else (found[0].name, found[1])


def in_repository(ecosystem: str, name: str, repo: Path) -> bool:
    """True when the repository holds `name` (see the module doc): the failure is the code's."""
    known = registry.find(ecosystem)
    missing = known.missing if known else None
    return missing is not None and missing.holds(name, registry.tree(repo))


def declaration(ecosystem: str, name: str, repo: Path) -> tuple[str | None, bool]:
    """(the repository-relative file where the project declares its `ecosystem` dependencies,
    whether it names `name`): the first of its `declared_in` that exists, or the first that names
    `name`; (None, False) when there is none."""
    token = re.escape(name).replace("_", "[-_]").replace(r"\-", "[-_]")
    names = re.compile(rf"""(?:^|["'\s`])(?i:{token})(?=[\s"'<>=!~;\[,@]|$)""", re.MULTILINE)
    known = registry.find(ecosystem)
    present = [m for m in (known.dependencies.declared_in if known else ()) if (repo / m).is_file()]
    tree = registry.tree(repo)
    declaring = [m for m in present if names.search(tree.read(m))]
    if declaring:
        return declaring[0], True
    return (present[0] if present else None), False


def refine(
    classification: Classification, condensed: str, repo: Path, *, exit_code: int | None
) -> Classification:
    """`classification` decided again with the repository's files (see the module doc): a
    missing package the repository does not hold -> `missing_dependency` (permanent, with
    `missing`); a "missing dependency" the repository holds -> the table without that rule."""
    if classification.category not in ("import", MISSING):
        return classification
    found = registry.missing_package(condensed)
    if found is None:
        return classification
    ecosystem, name, _ = found
    manifest, declared = declaration(ecosystem.name, name, repo)
    if in_repository(ecosystem.name, name, repo):
        return _the_codes(classification, condensed, exit_code, f"`{name}` is in the repository")
    if ecosystem.missing and ecosystem.missing.fetches_declared and declared:
        return _the_codes(classification, condensed, exit_code, f"{manifest} declares `{name}`")
    missing = MissingDependency(
        ecosystem=ecosystem.name, name=name, manifest=manifest, declared=declared
    )
    return Classification(
        error_class=ErrorClass.PERMANENT,
        category=MISSING,
        rule=MISSING,
        note=f"`{name}` is neither in the repository nor installed",
        missing=missing,
    )


def _the_codes(
    classification: Classification, condensed: str, exit_code: int | None, why: str
) -> Classification:
    """The decision without the `missing_dependency` rule: the import fails in the code."""
    if classification.category != MISSING:
        return classification
    again = classify(condensed, exit_code=exit_code, timed_out=False, without=frozenset({MISSING}))
    return again.model_copy(update={"note": f"{why}: the import fails in the code, not the set-up"})
