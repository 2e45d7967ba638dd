"""fixbot's side of its observer inside go test binaries (`go/observer.go`): the overlay that adds
it to each package of the check, the folder its records are written to, and their reading.

`go test`'s verdict, its `-json` stream (`fixbot.logs.dialects.go`), is test2json's reading of
the test binary's standard output, which the code under test writes too (an `init()` printing
`--- PASS:` lines and exiting 0 before any test runs). The observer is Go code inside the test
binary: `prepare` writes, into the run's observer folder (`fixbot.observe.channel.Channel`,
readable by the commands' user, writable by fixbot alone), one copy of `go/observer.go` per
package name, its clause made `<name>_test` (the external test package of a folder whose files
say `package <name>`), and an overlay file (`go help build`, `-overlay`) that adds it, as
`<module>_test.go`, to every folder of the work tree holding a `_test.go` file; the check's
environment gets `GOFLAGS=-overlay=<file>` (after the check's own GOFLAGS), so a `go test` that
a Makefile or a script runs builds it too. A folder whose test files define `TestMain` is left
out (two would not compile): its tests run unobserved, said (`Prepared.own_main`). A check
whose GOFLAGS already name an `-overlay` runs unobserved, said (`Prepared.why`).

`go test` starts each test binary with its standard streams alone (os/exec), so the channel's
socket pair never reaches it, and a socket pair has no path to open (by design). The records go
to a folder made for the run (`go/` in the observer folder, 0700, the commands' user's):
`FIXBOT_GO_OBSERVER=<folder><TAB><go nonce>` names it; the observer reads and unsets it in
`TestMain` and writes a file of its own there (O_EXCL), one record a line, `nonce<TAB>json`, in
`fixbot.observe.stream`'s wire format (`start` and `end` with `"runner": "go"`, an `r` record a
test as it ends). The go nonce is not the channel's (the pytest plugin's, which no environment
variable carries). `collect` reads the files after the check's processes are gone, as data
only, bounded (`MAX_FILES`, `MAX_STREAM_BYTES` in all), each line with the go nonce given the
channel's (`Channel.close(more)`), any other line kept as it is, which the stream counts as
forged. The limit, as for the other observers: code that reads the variable by name (an
`init()` runs before `TestMain`) can write records too.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.observed import MAX_STREAM_BYTES
from fixbot.process.nofollow import TooLarge, read_at

VARIABLE = "FIXBOT_GO_OBSERVER"  # the observer's `FIXBOT_GO_OBSERVER`
SOURCE = Path(__file__).with_name("go") / "observer.go"
PLACEHOLDER = "package FIXBOT_PACKAGE"
RECORDS = "go"  # the records folder, in the observer's folder
OVERLAY = "overlay.json"  # `go test -overlay`'s file, in the observer's folder
MAX_FOLDERS = 5000  # folders of the work tree walked at most
MAX_FILES = 4096  # record files read at most (one a test binary)
SKIPPED = frozenset({"vendor", "testdata", "node_modules"})  # go's `./...` skips these too
PACKAGE_RE = re.compile(r"^package[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
MAIN_RE = re.compile(r"^func[ \t]+TestMain[ \t]*\(", re.MULTILINE)
# a file no build takes (`//go:build ignore`, a generator's `package main` beside the package)
IGNORED_RE = re.compile(r"^//[ \t]*(?:go:build|\+build)[ \t]+ignore[ \t]*$", re.MULTILINE)
HEAD_BYTES = 64 * 1024  # a Go file's first bytes read for its package clause


@dataclass
class Prepared:
    """The go observer for one check run: the variables added to its environment (`env`: none
    where it runs unobserved), the records folder, the go nonce, the folders (relative to the
    work tree) left unobserved for their own `TestMain` (`own_main`), and why the check runs
    unobserved ("": it does not)."""

    env: dict[str, str] = field(default_factory=dict)
    records: Path | None = None
    nonce: str = ""
    own_main: list[str] = field(default_factory=list)
    why: str = ""


def test_folders(tree: Path) -> tuple[dict[str, str], list[str]]:
    """The folders of the go work tree `tree` (relative, "." its root) holding a `_test.go` file,
    each with its package's name (the non-test files' package clause, else the test files'
    without `_test`), and those whose test files define `TestMain` (left out). ({}, []) where the
    tree holds no go.mod. Walks `MAX_FOLDERS` at most, following no link, skipping hidden and
    `_` folders, vendor, testdata and node_modules, as go's `./...` does."""
    found: dict[str, str] = {}
    own: list[str] = []
    module = False
    walked = itertools.islice(os.walk(tree), MAX_FOLDERS)
    for top, dirs, files in walked:
        dirs[:] = sorted(d for d in dirs if d[:1] not in "._" and d not in SKIPPED)
        module = module or "go.mod" in files
        _sort(Path(top), os.path.relpath(top, tree), files, found, own)
    return (found, own) if module else ({}, [])


def _sort(folder: Path, rel: str, files: list[str], found: dict[str, str], own: list[str]) -> None:
    """The folder `folder` (`rel` in the work tree) holding `files` added to `found` with its
    package's name where it holds a `_test.go` file, or to `own` where one defines `TestMain`."""
    if not any(f.endswith("_test.go") for f in files):
        return
    name, has_main = _package(folder, sorted(f for f in files if f.endswith(".go")))
    if has_main:
        own.append(rel)
    elif name:
        found[rel] = name


def _head(path: Path) -> str | None:
    """The first `HEAD_BYTES` of the Go file `path` as text, None for a link, anything but a
    regular file, a file that cannot be read, or one no build takes (`//go:build ignore`)."""
    if path.is_symlink() or not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return None if IGNORED_RE.search(head) else head


def _package(folder: Path, files: list[str]) -> tuple[str, bool]:
    """The package name of `folder`'s go `files` ("" where none is read; a file no build takes
    left out, `_head`) and whether a test file of them defines `TestMain`."""
    names: list[str] = []
    tested: list[str] = []
    has_main = False
    for name in files:
        head = _head(folder / name)
        clause = PACKAGE_RE.search(head) if head is not None else None
        if head is not None and name.endswith("_test.go"):
            has_main = has_main or bool(MAIN_RE.search(head))
            tested += [clause.group(1).removesuffix("_test")] if clause else []
        elif clause:
            names.append(clause.group(1))
    chosen = names or tested
    return (max(sorted(set(chosen)), key=chosen.count) if chosen else ""), has_main


def source(package: str) -> str:
    """The observer's Go source as the external test package of `package` (`<package>_test`)."""
    text = SOURCE.read_text(encoding="utf-8")
    return text.replace(PLACEHOLDER, f"package {package}_test", 1)


def overlay(folders: dict[str, str], seen_as: Path, folder: Path, module: str) -> dict[str, object]:
    """The `-overlay` JSON for `folders` (`test_folders`'s) under the work tree as the check sees
    it (`seen_as`): each gets `<module>_test.go`, the copy of the observer written into the
    observer's `folder` for its package's name (`<module>_go_<name>.go`)."""
    replace = {}
    for rel, name in sorted(folders.items()):
        target = Path(os.path.normpath(seen_as / rel))
        replace[str(target / f"{module}_test.go")] = str(folder / f"{module}_go_{name}.go")
    return {"Replace": replace}


def prepare(
    folder: Path,
    module: str,
    trees: Sequence[Path],
    seen_as: Path,
    base: Mapping[str, str],
    owner: tuple[int, int] | None = None,
) -> Prepared:
    """The go observer for a check run in the work tree read at the first of `trees` holding a go
    module with tests (fixbot's clone, then the workspace; `seen_as` the check's view), written
    into the observer's `folder` (`module` its run's name) with the check's environment `base`:
    the copies, the overlay file, the records folder (0700; owned by
    `owner`, (uid, gid), where the commands run as another user) and the environment. Nothing
    (an empty `Prepared`) where the tree is no go module with tests. Raises OSError."""
    folders: dict[str, str] = {}
    own: list[str] = []
    for tree in trees:
        folders, own = test_folders(tree)
        if folders or own:
            break
    if not folders:
        return Prepared(own_main=own)
    flags = base.get("GOFLAGS", "")
    if "-overlay" in flags:
        return Prepared(own_main=own, why="the check's GOFLAGS name an -overlay of their own")
    for name in sorted(set(folders.values())):
        copy = folder / f"{module}_go_{name}.go"
        copy.write_text(source(name), encoding="utf-8")
        copy.chmod(0o644)
    path = folder / OVERLAY
    path.write_text(json.dumps(overlay(folders, seen_as, folder, module)), encoding="utf-8")
    path.chmod(0o644)
    records = folder / RECORDS
    records.mkdir(mode=0o700)
    if owner is not None:
        os.chown(records, *owner)
    nonce = secrets.token_hex(16)
    env = {
        VARIABLE: f"{records}\t{nonce}",
        "GOFLAGS": f"{flags} -overlay={path} -vet=off".strip(),
    }
    return Prepared(env, records, nonce, own)


def collect(
    prepared: Prepared, nonce: str, reader: tuple[int, int] | None = None
) -> tuple[bytes, bool]:
    """The records the go observer wrote in `prepared`'s folder, read after the check's processes
    are gone: regular files only, reached without a link, readable by the commands' user
    `reader` (uid, gid), `MAX_FILES` of them in name order, `MAX_STREAM_BYTES` in all; each line
    with the go nonce given the channel's `nonce`, any other kept as it is (forged). Returns
    (the lines, True where something was left unread)."""
    if prepared.records is None:
        return b"", False
    try:
        names = sorted(os.listdir(prepared.records))
    except OSError:
        return b"", False
    out: list[bytes] = []
    left = MAX_STREAM_BYTES
    cut = len(names) > MAX_FILES
    for name in names[:MAX_FILES]:
        try:
            data = read_at(prepared.records, name, left, reader)
        except TooLarge:
            cut = True
            break
        except OSError:
            continue
        left -= len(data)
        out += [_renonced(line, prepared.nonce, nonce) for line in data.splitlines() if line]
    return b"".join(out), cut


def _renonced(line: bytes, given: str, nonce: str) -> bytes:
    """`line` with the go nonce `given` made the channel's `nonce` (a line without it kept)."""
    head, tab, body = line.partition(b"\t")
    if tab and head == given.encode():
        return nonce.encode() + b"\t" + body + b"\n"
    return line + b"\n"
