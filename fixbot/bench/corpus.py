"""The bench's corpus: one TOML file per real CI failure, `bench/corpus/<family>/<id>.toml`.

A case is a recipe, not vendored code: a package release on PyPI or npm (or a file of Debian's
archive, pinned by its sha256), a patch that makes the
broken repository (for a shipped regression: the fixed release's new test), the check that fails,
the reference fix and hidden tests applied only when grading. `load_corpus` reads and validates
every file and raises one `CorpusError` listing every problem found, so a contributor fixes them
all in one pass.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = Path(__file__).resolve().parent / "corpus"  # in the wheel (pyproject's force-include)
# the repository's own in a clone (where contributors add cases), else the wheel's
CORPUS = ROOT / "bench" / "corpus" if (ROOT / "bench" / "corpus").is_dir() else SHIPPED

CaseId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80)]
Text = Annotated[str, StringConstraints(min_length=1)]


class Family(StrEnum):
    """How the failure came about."""

    REGRESSION = "regression"  # a release shipped a bug; the next patch release fixed it
    WORLD_MOVED = "world-moved"  # an unchanged release fails under a newer Python or tool
    TOOL_UPGRADE = "tool-upgrade"  # a lint or type check fails after a rule change
    TEST_CHANGE = "test-change"  # the real fix changed a test file or the test configuration too


class Part(StrEnum):
    """Which part of the corpus a case is in (`part_of`): localization may be tuned on `dev`;
    `held-out` is reported, never tuned on."""

    DEV = "dev"
    HELD_OUT = "held-out"


SPLIT_SALT = "fixbot-bench-split-2026-11"  # fixed once, before any held-out result was seen
HELD_OUT_FIFTHS = 2  # a case is held out when its hash falls in the first 2 of 5 buckets


def part_of(case_id: str) -> Part:
    """The part of the corpus the case `case_id` is in, by a rule fixed before any result: the
    SHA-256 of `SPLIT_SALT:<id>`, its first 8 hex digits as a number, modulo 5; below
    `HELD_OUT_FIFTHS` is held out (two fifths expected, never moved by adding other cases)."""
    digest = hashlib.sha256(f"{SPLIT_SALT}:{case_id}".encode()).hexdigest()
    return Part.HELD_OUT if int(digest[:8], 16) % 5 < HELD_OUT_FIFTHS else Part.DEV


class Ecosystem(StrEnum):
    """Where the release comes from and how its environment is made."""

    PYTHON = "python"  # sdist from PyPI, a venv with `requirements`
    NPM = "npm"  # tarball from npm, node_modules with `requirements` as devDependencies
    GO = "go"  # a module from Debian's archive, `go` offline with a shared build cache
    RUST = "rust"  # a crate from Debian's archive, `cargo` offline, its build in the repository


# a file under Debian's pool/: component, hash folder, source package, file name (the tarball of a
# source package, e.g. `x_1.0.orig.tar.gz`, or a binary package `x_1.0-1_all.deb`); Debian's
# names: https://www.debian.org/doc/debian-policy/ch-controlfields.html#source
DEBIAN_POOL = (
    r"^(main|contrib|non-free|non-free-firmware)/(lib)?[0-9a-z]/[a-z0-9][a-z0-9.+-]+/"
    r"[A-Za-z0-9][A-Za-z0-9.+~_-]*\.(tar\.(gz|xz|bz2)|deb)$"
)
FOLDER = r"^[A-Za-z0-9._+~@-]+(/[A-Za-z0-9._+~@-]+)*$"


# the ecosystems whose registry is not reached (only Debian's archive is): what a release is
# there, and what its tests may need
DEBIAN_ONLY = {
    Ecosystem.GO: ("Go module", "Go's standard library"),
    Ecosystem.RUST: ("crate", "Rust's standard library (dev-dependencies removed by [broken])"),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Package(_Strict):
    """The release the broken repository starts from: `name` and `version` on the ecosystem's
    registry, or, with `debian`, a file of Debian's archive instead.

    `debian` is the file's path under the archive's `pool/` (a source package's tarball or a
    binary `.deb`), `sha256` its digest (mandatory: Debian's mirrors serve plain http, the pin
    is what makes the download trustworthy), `root` the folder inside the archive, from its
    top, that is the project's root ("." for the archive's top itself); `name` and `version`
    then only name the release in reports.

    `into` (None: the repository's root) is the folder of the repository the release is
    unpacked into, for a monorepo whose package lives in a subfolder (`packages/<name>`): the
    patches then name their files from the repository's root, and the check runs there too.
    """

    name: Text
    version: Text
    debian: str | None = Field(default=None, pattern=DEBIAN_POOL)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    root: str | None = Field(default=None, pattern=FOLDER)
    into: str | None = Field(default=None, pattern=FOLDER)

    @field_validator("root")
    @classmethod
    def _inside(cls, root: str | None) -> str | None:
        if root is not None and root != "." and {".", ".."} & set(root.split("/")):
            raise ValueError("root is a folder inside the archive: no '.' or '..' part")
        return root

    @field_validator("into")
    @classmethod
    def _a_subfolder(cls, into: str | None) -> str | None:
        parts = [] if into is None else into.split("/")
        if {".", ".."} & set(parts):
            raise ValueError("into is a subfolder of the repository: no '.' or '..' part")
        if parts and parts[0] in (".git", "node_modules"):
            # git's own folder, or where an npm case's dependencies are linked
            raise ValueError(f"into may not be under {parts[0]}/")
        return into

    @model_validator(mode="after")
    def _pinned(self) -> Package:
        given = [f for f in ("debian", "sha256", "root") if getattr(self, f) is not None]
        if given and len(given) != 3:
            missing = sorted({"debian", "sha256", "root"} - set(given))
            raise ValueError(
                f"a Debian archive file needs debian, sha256 and root together; {missing} missing"
            )
        return self


class Environment(_Strict):
    """What the check needs besides the release's own files.

    `python` is a version such as "3.12" (None: the running interpreter); `requirements` are pip
    requirement strings or npm `name@version` specs, pinned; `variables` are extra environment
    variables for the check and hidden command (e.g. PYTHONPATH = "src").
    """

    python: str | None = Field(default=None, pattern=r"^3\.\d+$")
    requirements: list[Text] = []
    variables: dict[str, str] = {}


class Check(_Strict):
    """The failing check: a shell command run in the repository, and a substring of its output
    that shows it failed the recorded way."""

    command: Text
    expect: Text


class Patch(_Strict):
    """A unified diff (`git apply` format) applied in the repository's root."""

    patch: Text


class Broken(_Strict):
    """The patch that turns the release into the broken repository; empty when the release
    itself fails (a "world-moved" case: the world, not the code, changed)."""

    patch: str = ""


class Hidden(_Strict):
    """Tests the fixer never sees: `patch` is applied to the final tree, then `command` run."""

    patch: Text
    command: Text


class Case(_Strict):
    """One real CI failure; see bench/corpus/README.md for the fields."""

    id: CaseId
    family: Family
    ecosystem: Ecosystem
    summary: Text
    source: list[Text] = Field(min_length=1)
    package: Package
    environment: Environment = Environment()
    check: Check
    broken: Broken = Broken()
    fix: Patch
    hidden: Hidden

    @model_validator(mode="after")
    def _debian_only_needs_nothing_installed(self) -> Case:
        if self.ecosystem in DEBIAN_ONLY:
            what, tool = DEBIAN_ONLY[self.ecosystem]
            if self.package.debian is None:
                raise ValueError(
                    f"a {self.ecosystem.value} case names its source in Debian's archive "
                    f"([package] debian, sha256 and root): no {what} registry is reached"
                )
            if self.environment.requirements or self.environment.python:
                raise ValueError(
                    f"a {self.ecosystem.value} case installs nothing: [environment] requirements "
                    f"and python stay empty (pick a {what} whose tests need only {tool})"
                )
        return self

    @property
    def path_hint(self) -> str:
        """Where the case lives in the corpus, relative to `CORPUS`."""
        return f"{self.family.value}/{self.id}.toml"


class CorpusError(ValueError):
    """One or more case files are invalid; `problems` lists each as "file: what is wrong"."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in the bench corpus:\n{lines}")


_PATCH_START = re.compile(r"^(diff --git |--- )", re.MULTILINE)


def _problems(case: Case, path: Path) -> list[str]:
    """What pydantic cannot see: the file's place, the patches' shape, the sources."""
    found: list[str] = []
    if path.stem != case.id:
        found.append(f"id {case.id!r} differs from the file name {path.name!r}")
    if path.parent.name != case.family.value:
        found.append(f"family {case.family.value!r} differs from its folder {path.parent.name!r}")
    found += _patch_problems(case)
    if case.package.into and not _outside(case.broken.patch, case.package.into):
        found.append(
            f"[package] into = {case.package.into!r} needs a [broken] patch that also makes "
            "what the monorepo's root holds (a README, a second package): no file of it is "
            "outside that folder"
        )
    if not any(s.startswith("https://") for s in case.source):
        found.append("source cites no https:// address (a changelog, an issue, a release)")
    return found


def _patch_problems(case: Case) -> list[str]:
    """The patches that are not unified diffs (an empty [broken] one is allowed: the release
    itself fails)."""
    patches = (
        ("broken", case.broken.patch),
        ("fix", case.fix.patch),
        ("hidden", case.hidden.patch),
    )
    return [
        f"[{name}] patch is not a unified diff (no '--- ' or 'diff --git' line)"
        for name, text in patches
        if (text or name != "broken") and not _PATCH_START.search(text)
    ]


_PATCH_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)


def _outside(patch: str, folder: str) -> list[str]:
    """The files `patch` makes or changes (its `+++` lines) that are not under `folder`."""
    return [
        name
        for name in _PATCH_FILE.findall(patch)
        if name != "/dev/null" and not name.startswith(f"{folder}/")
    ]


def _located(error: ValidationError) -> list[str]:
    """Each pydantic error as "field.path: message"."""
    return [
        f"{'.'.join(str(p) for p in item['loc']) or '(top)'}: {item['msg']}"
        for item in error.errors()
    ]


def read_case(path: Path) -> tuple[Case | None, list[str]]:
    """Parse one case file: the case (None when it cannot be built) and its problems, each
    prefixed with the file name. Never raises for a bad file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return None, [f"{path}: cannot read as TOML: {error}"]
    try:
        case = Case.model_validate(data)
    except ValidationError as error:
        return None, [f"{path}: {line}" for line in _located(error)]
    return case, [f"{path}: {line}" for line in _problems(case, path)]


def load_corpus(
    root: Path = CORPUS, only: Iterable[str] = (), families: Iterable[str] = ()
) -> list[Case]:
    """Every case under `root/<family>/*.toml`, sorted by family then id; with `only`, just the
    cases with those ids; with `families`, just the cases of those families (both given: the
    cases either names).

    Raises `CorpusError` listing every problem at once: invalid files, duplicate ids, ids in
    `only` that no file has, an empty corpus.
    """
    cases, problems = _read_all(root)
    wanted, kinds = list(only), list(families)
    problems += _unknown_choices(root, wanted, kinds, {case.id for case in cases})
    if not cases and not problems:
        problems.append(f"{root}: no case files (<family>/<id>.toml)")
    if problems:
        raise CorpusError(problems)
    chosen = [
        c for c in cases if not (wanted or kinds) or c.id in wanted or c.family.value in kinds
    ]
    return sorted(chosen, key=lambda c: (c.family.value, c.id))


def _read_all(root: Path) -> tuple[list[Case], list[str]]:
    """Every valid case under `root/<family>/*.toml`, and the problems of the files (an id used
    twice among them)."""
    problems: list[str] = []
    cases: list[Case] = []
    seen: dict[str, Path] = {}
    for path in sorted(root.glob("*/*.toml")):
        case, found = read_case(path)
        problems.extend(found)
        if case is None:
            continue
        if case.id in seen:
            problems.append(f"{path}: id {case.id!r} is also used by {seen[case.id]}")
        seen[case.id] = path
        cases.append(case)
    return cases, problems


def _unknown_choices(root: Path, wanted: list[str], kinds: list[str], ids: set[str]) -> list[str]:
    """The ids in `wanted` no case has (`ids`) and the names in `kinds` that are no family."""
    known = [family.value for family in Family]
    problems = [f"no case has the id {w!r} (see {root})" for w in wanted if w not in ids]
    return problems + [
        f"no family {k!r} (one of {', '.join(known)})" for k in kinds if k not in known
    ]
