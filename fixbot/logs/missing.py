"""A missing dependency, told from a missing module of the code, with the repository at hand.

`named(text)` reads the package a loader reported missing (pure): Python's `No module named
'x'`, node's `Cannot find module 'x'` and `Cannot find package 'x' imported from` (bare names
only: `./x` is a file of the project), Go's `no required module provides package x`, rustc's
`unresolved module or unlinked crate `x``, and what `fixbot.logs.absent` reads (a plugin's
fixture, a program the tests run). `refine` then decides with the repository's files:
a name the repository holds (a module or package folder, the package's own or a workspace
member's name, the Go module's own path, a Rust module file, a fixture its Python files
define, a file named as the program) is the code's problem (the
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

import os
import re
from pathlib import Path

from fixbot.core.failure import Classification, ErrorClass, MissingDependency
from fixbot.core.secrets import DEFAULT_STATE_DIR
from fixbot.logs.absent import PLUGIN_FIXTURES, absent
from fixbot.logs.classify import MISSING, classify

LOADERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("python", re.compile(r"\bModuleNotFoundError: No module named '(?P<name>[\w.]+)'")),
    ("npm", re.compile(r"Cannot find (?:module|package) '(?P<name>(?![./~]|node:|@/)[^'\s]+)'")),
    ("go", re.compile(r"no required module provides package (?P<name>[\w./~-]+)")),
    (
        "cargo",
        re.compile(
            r"use of (?:unresolved module or unlinked|undeclared) crate(?: or module)? "
            r"`(?P<name>\w+)`|can't find crate for `(?P<crate>\w+)`"
        ),
    ),
)
# Where projects keep their test and development dependencies, most specific first.
MANIFESTS = {
    "python": (
        "tests/requirements.txt",
        "requirements-test.txt",
        "requirements-tests.txt",
        "test-requirements.txt",
        "requirements/test.txt",
        "requirements/tests.txt",
        "requirements-dev.txt",
        "dev-requirements.txt",
        "requirements/dev.txt",
        "pyproject.toml",
        "requirements.txt",
        "setup.cfg",
    ),
    "npm": ("package.json",),
    "go": ("go.mod",),
    "cargo": ("Cargo.toml",),
    "program": (),
}
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", ".tox", ".nox", "target", "__pycache__"}
SKIP_DIRS |= {"site-packages", "dist", "build", DEFAULT_STATE_DIR}
MAX_ENTRIES = 50_000  # a bounded walk: a huge tree answers "not found" rather than stall


def named(text: str) -> tuple[str, str] | None:
    """(ecosystem, top-level name) of the first package a loader reported missing in `text`:
    a Python top-level module, an npm package (`@scope/name` kept whole), a Go package path, a
    Rust crate, a pytest plugin's fixture (`fixture`, see `fixbot.logs.absent`), a program the
    tests run (`program`); None when nothing said so."""
    found = [(m.start(), eco, m) for eco, pattern in LOADERS if (m := pattern.search(text))]
    other = absent(text)
    if other is not None and (not found or other[2] < min(f[0] for f in found)):
        return other[0], other[1]
    if not found:
        return None
    _, ecosystem, match = min(found, key=lambda item: item[0])
    name = match.group("name") or match.groupdict().get("crate") or ""
    if ecosystem == "python":
        return ecosystem, name.split(".")[0]
    if ecosystem == "npm":
        parts = name.split("/")
        return ecosystem, "/".join(parts[:2] if name.startswith("@") else parts[:1])
    return ecosystem, name


def _walk(repo: Path) -> list[tuple[Path, list[str], list[str]]]:
    """The repository's folders (bounded, without dependency and build folders)."""
    found, seen = [], 0
    for root, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        found.append((Path(root), dirs, files))
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES:
            break
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _holds_python(folder: Path) -> bool:
    """True when `folder` has a `.py` file of its own (an unreadable one has none we can see)."""
    try:
        return any(p.suffix == ".py" for p in folder.iterdir())
    except OSError:
        return False


def _python_local(name: str, repo: Path) -> bool:
    """A module `name.py`, an extension `name.*.so` or a package folder `name/` anywhere in the
    repository (pytest puts test folders on `sys.path`, so `tests/helpers.py` is `helpers`)."""
    for root, dirs, files in _walk(repo):
        if name in dirs and _holds_python(root / name):
            return True
        if f"{name}.py" in files or any(
            f.startswith(f"{name}.") and f.endswith(".so") for f in files
        ):
            return True
    return False


def _npm_local(name: str, repo: Path) -> bool:
    """The repository's own package (a self-reference) or one of its workspace packages, or
    one installed in `node_modules` (then it is found, and the import fails for another
    reason)."""
    if (repo / "node_modules" / name / "package.json").is_file():
        return True
    quoted = re.compile(rf'"name"\s*:\s*"{re.escape(name)}"')
    return any(
        "package.json" in files and quoted.search(_read(root / "package.json"))
        for root, _, files in _walk(repo)
    )


def _go_local(name: str, repo: Path) -> bool:
    """A package under the module's own path (`module example.com/m` in go.mod)."""
    module = re.search(r"^module\s+(\S+)", _read(repo / "go.mod"), re.MULTILINE)
    return module is not None and (name == module[1] or name.startswith(module[1] + "/"))


def _cargo_local(name: str, repo: Path) -> bool:
    """A module file (`name.rs`, `name/mod.rs`) or a workspace crate named `name`."""
    crate = re.compile(rf'^name\s*=\s*"{re.escape(name).replace("_", "[-_]")}"', re.MULTILINE)
    for root, dirs, files in _walk(repo):
        if f"{name}.rs" in files or (name in dirs and (root / name / "mod.rs").is_file()):
            return True
        if "Cargo.toml" in files and crate.search(_read(root / "Cargo.toml")):
            return True
    return False


def _fixture_local(name: str, repo: Path) -> bool:
    """A fixture `name` the repository's Python files define (`def name(` or `name="name"`
    in a fixture decorator): then pytest missed it for the code's reason (a conftest out of
    reach, a typo), not for a plugin the set-up did not install."""
    word = re.escape(name)
    defines = re.compile(rf"^\s*(?:async\s+)?def {word}\(|name=['\"]{word}['\"]", re.M)
    return any(
        defines.search(_read(root / f))
        for root, _, files in _walk(repo)
        for f in files
        if f.endswith(".py")
    )


def _program_local(name: str, repo: Path) -> bool:
    """A file named `name` in the repository (the tests run one of the project's scripts, and
    it is not where they look: the code's problem)."""
    return any(name in files for _, _, files in _walk(repo))


LOCAL = {
    "python": _python_local,
    "npm": _npm_local,
    "go": _go_local,
    "cargo": _cargo_local,
    "fixture": _fixture_local,
    "program": _program_local,
}


def in_repository(ecosystem: str, name: str, repo: Path) -> bool:
    """True when the repository holds `name` (see the module doc): the failure is the code's."""
    return LOCAL[ecosystem](name, repo)


def declaration(ecosystem: str, name: str, repo: Path) -> tuple[str | None, bool]:
    """(the repository-relative file where the project declares its `ecosystem` dependencies,
    whether it names `name`): the first of `MANIFESTS` that exists, or the first that names
    `name`; (None, False) when there is none."""
    token = re.escape(name).replace("_", "[-_]").replace(r"\-", "[-_]")
    names = re.compile(rf"""(?:^|["'\s`])(?i:{token})(?=[\s"'<>=!~;\[,@]|$)""", re.MULTILINE)
    present = [m for m in MANIFESTS[ecosystem] if (repo / m).is_file()]
    declaring = [m for m in present if names.search(_read(repo / m))]
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
    if ecosystem == "cargo" and declared:  # cargo fetches what Cargo.toml declares
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
