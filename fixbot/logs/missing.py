"""A missing dependency, told from a missing module of the code, with the repository at hand.

`named(text)` reads the package a loader reported missing (pure), by each ecosystem's
`Missing.loader` (`fixbot.ecosystems`): Python's `No module named 'x'`, node's `Cannot find
module 'x'` and `Cannot find package 'x' imported from` (bare names only: `./x` is a file of
the project), Go's `no required module provides package x`, rustc's `unresolved module or
unlinked crate `x``, Ruby's `cannot load such file -- x`; and what `fixbot.logs.absent` reads (a
plugin's fixture, a program the tests run). `refine` then decides with the repository's files
(the ecosystem's `Missing.holds`, `Dependencies.declared_in`):
a name the repository holds (a module or package folder, the package's own or a workspace
member's name, the Go module's own path, a Rust module file, a fixture its Python files
define, a file named as the program) is the code's problem (the
classifier's table without `missing_dependency`: "import" or whatever else the log shows);
a name it does not hold is `missing_dependency` (permanent: no fixer runs), with the file
where the project declares such dependencies (`manifest`) and whether it names it already.
Whether a Python package is installed is the check's interpreter's to say: `fixbot.run.checkdigest`
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
from fixbot.ecosystems.tree import Tree
from fixbot.logs.absent import PLUGIN_FIXTURES, absent
from fixbot.logs.classify import MISSING, classify


def named(text: str) -> tuple[str, str] | None:
    """(ecosystem, top-level name) of the first package a loader reported missing in `text`:
    a Python top-level module, an npm package (`@scope/name` kept whole), a Go package path, a
    Rust crate, ... (each ecosystem's `Missing.loader`), a pytest plugin's fixture (`fixture`,
    see `fixbot.logs.absent`), a program the tests run (`program`); None when nothing said so."""
    found = registry.missing_package(text)
    other = absent(text)
    if other is not None and (found is None or other[2] < found[2]):
        return other[0], other[1]
    return None if found is None else (found[0].name, found[1])


def _fixture_local(name: str, tree: Tree) -> bool:
    """A fixture `name` the repository's Python files define (`def name(` or `name="name"`
    in a fixture decorator): then pytest missed it for the code's reason (a conftest out of
    reach, a typo), not for a plugin the set-up did not install."""
    word = re.escape(name)
    defines = re.compile(rf"^\s*(?:async\s+)?def {word}\(|name=['\"]{word}['\"]", re.M)
    return any(
        defines.search(tree.read(root / f))
        for root, _, files in tree.folders()
        for f in files
        if f.endswith(".py")
    )


def _program_local(name: str, tree: Tree) -> bool:
    """A file named `name` in the repository (the tests run one of the project's scripts, and
    it is not where they look: the code's problem)."""
    return any(name in files for _, _, files in tree.folders())


# What `absent` reads is no ecosystem's: a fixture's plugin is found through the fixture
OTHERS = {"fixture": _fixture_local, "program": _program_local}


def in_repository(ecosystem: str, name: str, repo: Path) -> bool:
    """True when the repository holds `name` (see the module doc): the failure is the code's."""
    if ecosystem in OTHERS:
        return OTHERS[ecosystem](name, registry.tree(repo))
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
    found = named(condensed)
    if found is None:
        return classification
    ecosystem, name = found
    if in_repository(ecosystem, name, repo):
        return _the_codes(classification, condensed, exit_code, f"`{name}` is in the repository")
    provides, note = "", f"`{name}` is neither in the repository nor installed"
    if ecosystem == "fixture":  # the plugin that registers it is the missing package
        ecosystem, name, provides = "python", PLUGIN_FIXTURES[name], f"the fixture `{name}`"
        note = f"{provides} comes from the pytest plugin `{name}`, which is not installed"
    elif ecosystem == "program":
        note = f"the tests run `{name}`, which is not on the check's PATH"
    manifest, declared = declaration(ecosystem, name, repo)
    known = registry.find(ecosystem)
    if known and known.missing and known.missing.fetches_declared and declared:
        return _the_codes(classification, condensed, exit_code, f"{manifest} declares `{name}`")
    missing = MissingDependency(
        ecosystem=ecosystem, name=name, manifest=manifest, declared=declared, provides=provides
    )
    return Classification(
        error_class=ErrorClass.PERMANENT,
        category=MISSING,
        rule=MISSING,
        note=note,
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
