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
environment gets `GOFLAGS=-overlay=<file> -vet=off -count=1 -exec=<program>` (after the check's
own GOFLAGS; `-exec`: go runs each test binary through fixbot's program, `fixbot.observe.goexec`,
which gives it the environment the check would have had without fixbot, no GOFLAGS of fixbot's
naming the overlay to tell the observed run from another;
go 1.19's vet reads files from disk, not the overlay's: a green fix's check runs again as written
before it is committed, `fixbot.run.phases.judging.as_written`; `-count=1`: go's test result cache
would answer an unchanged package's run from an earlier one, the binary never run, nothing
streamed), so a `go test` that a Makefile or a script runs builds it too. A folder whose test
files define their own `TestMain` gets theirs folded in: the file defining it is overlaid by a
copy with `TestMain` renamed `fixbotMain` (`folded`), and the observer's copy there, in that
file's package, defines no `fixbotMain` of its own and runs theirs; one that cannot be read so
is left out, its tests unobserved, said (`Prepared.own_main`). A check whose GOFLAGS already
name an `-overlay` or an `-exec` runs unobserved, said (`Prepared.why`).

`go test` starts each test binary with its standard streams alone (os/exec), so the channel's
socket pair never reaches it, and a socket pair has no path to open (by design). The records go
to a folder made for the run (`go/` in the observer folder, 0700, the commands' user's),
written into the observer's copies (no variable names it: the binary's environment is the
check's own); the observer's `TestMain` writes a file of its own there (O_EXCL), one record a
line, `mac<TAB>json`, in
`fixbot.observe.stream`'s wire format (`start` and `end` with `"runner": "go"`, an `r` record a
test as it ends), mac the hex HMAC-SHA256 (`line_mac`) under a key of 32 bytes made per run and
written into the observer's copies alone (`source`, two arrays whose xor it is): never into the
environment an `init()` reads before `TestMain`, nor into the records file, which the binary's
own code can read back and add to through the descriptor the observer opened (nor into its
environment, which `-exec` gives back as the check's own). The MAC covers
the file's name and the line's index in it, so a line copied to another file or place fails.
`collect` reads the files after the check's processes are gone, as data only, bounded
(`MAX_FILES`, `MAX_STREAM_BYTES` in all), each line whose MAC verifies given the channel's nonce
(`Channel.close(more)`), any other line kept as it is, which the stream counts as forged. The
limit, as for the other observers' "by name": the key is in the test binary (its data, by the
symbols' names, or reflect and unsafe from the code) and in the copies' source, which the go
command reads as the commands' user: code that finds the `-overlay=` path of the go command's
GOFLAGS (no longer the binary's own, but its parent's, `/proc/<pid>/environ`) and follows it to
the overlay file and the copies it names, readable by that user, learns the key and can write
records.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from fixbot.core.observed import MAX_STREAM_BYTES
from fixbot.observe import goexec
from fixbot.process.nofollow import TooLarge, read_at

SOURCE = Path(__file__).with_name("go") / "observer.go"
PLACEHOLDER = "package FIXBOT_PACKAGE"
KEY_BYTES = 32  # the run's HMAC-SHA256 key (`Prepared.key`)
RECORDS = "go"  # the records folder, in the observer's folder
OVERLAY = "overlay.json"  # `go test -overlay`'s file, in the observer's folder
EXEC = "goexec.sh"  # `go test -exec`'s program (`fixbot.observe.goexec`), in the observer's folder
MAX_FOLDERS = 5000  # folders of the work tree walked at most
MAX_FILES = 4096  # record files read at most (one a test binary)
SKIPPED = frozenset({"vendor", "testdata", "node_modules"})  # go's `./...` skips these too
PACKAGE_RE = re.compile(r"^package[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
MAIN_RE = re.compile(r"^func[ \t]+TestMain[ \t]*\(", re.MULTILINE)
# a build constraint (a file some builds leave out)
CONSTRAINED_RE = re.compile(r"^//[ \t]*(?:go:build|\+build)[ \t]", re.MULTILINE)
# a file no build takes (`//go:build ignore`, a generator's `package main` beside the package)
IGNORED_RE = re.compile(r"^//[ \t]*(?:go:build|\+build)[ \t]+ignore[ \t]*$", re.MULTILINE)
HEAD_BYTES = 1024 * 1024  # a Go file's first bytes read for its package clause and TestMain
MAX_SOURCE_BYTES = 4 * 1024 * 1024  # a test file defining TestMain folded in, at most (bytes)
OWN_MAIN = "// FIXBOT_OWN_MAIN"  # the observer's own `fixbotMain` follows, dropped when folded


@dataclass
class Prepared:
    """The go observer for one check run: the variables added to its environment (`env`: none
    where it runs unobserved), the records folder, the run's key (`KEY_BYTES`, written into the
    observer's copies alone, never the environment), the folders (relative to the work tree)
    left unobserved, their own `TestMain` not folded in (`own_main`), why the check runs
    unobserved ("": it does not), and the `-exec` program (`fixbot.observe.goexec`: None where
    it runs unobserved), which `fixbot.run.checkrun` writes again with every variable the
    observed run adds."""

    env: dict[str, str] = field(default_factory=dict)
    records: Path | None = None
    key: bytes = b""
    own_main: list[str] = field(default_factory=list)
    why: str = ""
    program: Path | None = None


class Folder(NamedTuple):
    """A folder of the work tree with tests: the package clause of the observer's copy there
    (`<name>_test`, the external test package; where the folder's tests define their own
    `TestMain`, the package of the file defining it) and that file's name ("": none)."""

    package: str
    main: str = ""


def test_folders(tree: Path) -> tuple[dict[str, Folder], list[str]]:
    """The folders of the go work tree `tree` (relative, "." its root) holding a `_test.go` file,
    each with its `Folder` (its package's name read from the non-test files' package clause,
    else the test files' without `_test`), and those whose test file defining `TestMain` has
    no package clause read (left out). ({}, []) where the tree holds no go.mod. Walks
    `MAX_FOLDERS` at most, following no link, skipping hidden and `_` folders, vendor, testdata
    and node_modules, as go's `./...` does."""
    found: dict[str, Folder] = {}
    own: list[str] = []
    module = False
    walked = itertools.islice(os.walk(tree), MAX_FOLDERS)
    for top, dirs, files in walked:
        dirs[:] = sorted(d for d in dirs if d[:1] not in "._" and d not in SKIPPED)
        module = module or "go.mod" in files
        _sort(Path(top), os.path.relpath(top, tree), files, found, own)
    return (found, own) if module else ({}, [])


def _sort(
    folder: Path, rel: str, files: list[str], found: dict[str, Folder], own: list[str]
) -> None:
    """The folder `folder` (`rel` in the work tree) holding `files` added to `found` where it
    holds a `_test.go` file, or to `own` where its `TestMain` cannot be folded in."""
    if not any(f.endswith("_test.go") for f in files):
        return
    name, main, clause = _package(folder, sorted(f for f in files if f.endswith(".go")))
    if main and clause:
        found[rel] = Folder(clause, main)
    elif main:
        own.append(rel)
    elif name:
        found[rel] = Folder(f"{name}_test")


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


def _clause(path: Path) -> tuple[str, bool] | None:
    """The package clause's name of the Go file `path` ("": none, or a file defining `TestMain`
    under a build constraint, which a build may leave out: its folder is left out, `_sort`) and
    whether it defines `TestMain`; None where it is not read (`_head`)."""
    head = _head(path)
    if head is None:
        return None
    found = PACKAGE_RE.search(head)
    has_main = bool(MAIN_RE.search(head))
    if has_main and CONSTRAINED_RE.search(head):  # built only under its tags: not folded
        return "", True
    return (found.group(1) if found else ""), has_main


def _package(folder: Path, files: list[str]) -> tuple[str, str, str]:
    """The package name of `folder`'s go `files` ("" where none is read; a file no build takes
    left out, `_head`), the test file that defines `TestMain` ("": none) and its package
    clause."""
    names: list[str] = []
    tested: list[str] = []
    mains: list[tuple[str, str]] = []
    for name in files:
        read = _clause(folder / name)
        clause, has_main = read if read is not None else ("", False)
        if not name.endswith("_test.go"):
            names += [clause] if clause else []
            continue
        mains += [(name, clause)] if has_main else []
        tested += [clause.removesuffix("_test")] if clause else []
    chosen = names or tested
    main, clause_of_main = mains[0] if mains else ("", "")
    return (max(sorted(set(chosen)), key=chosen.count) if chosen else ""), main, clause_of_main


def source(package: str, key: bytes, records: Path, folded: bool = False) -> str:
    """The observer's Go source in the package `package` (a package clause's name), its records
    written into the folder `records` (absolute), MACed under `key` (`KEY_BYTES`, written as two
    arrays whose xor it is: no run of the key's bytes in the binary), running the folder's own
    `TestMain` (renamed `fixbotMain`, `folded`) or its own. Raises ValueError for a key of
    another length."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a go observer key is {KEY_BYTES} bytes, not {len(key)}")
    mask = secrets.token_bytes(KEY_BYTES)
    text = SOURCE.read_text(encoding="utf-8").replace(PLACEHOLDER, f"package {package}", 1)
    halves = bytes(a ^ b for a, b in zip(key, mask, strict=True)), mask
    text = text.replace("FIXBOT_KEY_A", ", ".join(map(str, halves[0])), 1)
    text = text.replace("FIXBOT_KEY_B", ", ".join(map(str, halves[1])), 1)
    text = text.replace("FIXBOT_FOLDED", "true" if folded else "false")
    text = text.replace("FIXBOT_RECORDS", json.dumps(str(records), ensure_ascii=False), 1)
    return text.split(OWN_MAIN, 1)[0] if folded else text


def line_mac(key: bytes, name: str, index: int, body: bytes) -> str:
    """The MAC of the record `body` (its JSON, no newline) at line `index` (from 0, empty lines
    not counted) of the records file `name` (its name alone) under the run's `key`: the
    lowercase hex of HMAC-SHA256 over `<name>\\t<index>\\t<body>`, as the observer writes it."""
    message = f"{name}\t{index}\t".encode() + body
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def copy_name(module: str, found: Folder) -> str:
    """The file name of the observer's copy for `found`'s package in the observer's folder."""
    return f"{module}_go_{found.package}{'_folded' if found.main else ''}.go"


def overlay(
    folders: dict[str, Folder], seen_as: Path, folder: Path, module: str
) -> dict[str, object]:
    """The `-overlay` JSON for `folders` (`test_folders`'s) under the work tree as the check sees
    it (`seen_as`): each gets `<module>_test.go`, the copy of the observer written into the
    observer's `folder` for its package (`copy_name`), and a folder whose tests define their
    own `TestMain` gets that file replaced by its copy with `TestMain` renamed (`main_name`,
    `folded`)."""
    replace = {}
    for rel, found in sorted(folders.items()):
        target = Path(os.path.normpath(seen_as / rel))
        replace[str(target / f"{module}_test.go")] = str(folder / copy_name(module, found))
        if found.main:
            replace[str(target / found.main)] = str(folder / main_name(module, rel))
    return {"Replace": replace}


def main_name(module: str, rel: str) -> str:
    """The file name of the folder `rel`'s own `TestMain` file, folded, in the observer's folder."""
    return f"{module}_main_{hashlib.sha256(rel.encode()).hexdigest()[:16]}.go"


def folded(path: Path) -> str | None:
    """The Go file `path` (a test file defining `TestMain`) with `TestMain` renamed `fixbotMain`,
    the observer's own `TestMain` then running it; None where it cannot be read (a link,
    anything but a regular file, larger than `MAX_SOURCE_BYTES`)."""
    if path.is_symlink() or not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_SOURCE_BYTES:
        return None
    text = data.decode("utf-8", "surrogateescape")
    renamed = MAIN_RE.sub("func fixbotMain(", text, count=1)
    return renamed if renamed != text else None


def _fold(
    folders: dict[str, Folder], tree: Path, folder: Path, module: str, own: list[str]
) -> dict[str, Folder]:
    """`folders` with each own `TestMain`'s file copied renamed into the observer's `folder`
    (`folded`, named `main_name`); one that cannot be is dropped and added to `own`. Raises
    OSError."""
    kept: dict[str, Folder] = {}
    for rel, found in sorted(folders.items()):
        text = folded(tree / rel / found.main) if found.main else ""
        if text is None:
            own.append(rel)
            continue
        if found.main:
            copy = folder / main_name(module, rel)
            copy.write_bytes(text.encode("utf-8", "surrogateescape"))
            copy.chmod(0o644)
        kept[rel] = found
    return kept


def _first(trees: Sequence[Path]) -> tuple[Path, dict[str, Folder], list[str]]:
    """The first of `trees` holding a go module with tests, with its `test_folders` (the last
    tree and nothing where none does)."""
    tree = Path()
    folders: dict[str, Folder] = {}
    own: list[str] = []
    for tree in trees:
        folders, own = test_folders(tree)
        if folders or own:
            break
    return tree, folders, own


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
    the copies, the folded `TestMain` files, the overlay file, the records folder (0700; owned
    by `owner`, (uid, gid), where the commands run as another user) and the environment.
    Nothing (an empty `Prepared`) where the tree is no go module with tests. Raises OSError."""
    tree, folders, own = _first(trees)
    flags = base.get("GOFLAGS", "")
    if folders and ("-overlay" in flags or "-exec" in flags):
        why = "the check's GOFLAGS name an -overlay or an -exec of their own"
        return Prepared(own_main=own, why=why)
    folders = _fold(folders, tree, folder, module, own) if folders else {}
    if not folders:
        return Prepared(own_main=own)
    key = secrets.token_bytes(KEY_BYTES)
    records = folder / RECORDS
    for found in set(folders.values()):
        copy = folder / copy_name(module, found)
        copy.write_text(source(found.package, key, records, bool(found.main)), encoding="utf-8")
        copy.chmod(0o644)
    path = folder / OVERLAY
    path.write_text(json.dumps(overlay(folders, seen_as, folder, module)), encoding="utf-8")
    path.chmod(0o644)
    records.mkdir(mode=0o700)
    if owner is not None:
        os.chown(records, *owner)
    program = folder / EXEC
    env = {"GOFLAGS": f"{flags} -overlay={path} -vet=off -count=1 -exec={program}".strip()}
    goexec.write(program, env, base)
    return Prepared(env, records, key, sorted(own), program=program)


def collect(
    prepared: Prepared, nonce: str, reader: tuple[int, int] | None = None
) -> tuple[bytes, bool]:
    """The records the go observer wrote in `prepared`'s folder, read after the check's processes
    are gone: regular files only, reached without a link, readable by the commands' user
    `reader` (uid, gid), `MAX_FILES` of them in name order, `MAX_STREAM_BYTES` in all; each line
    whose MAC verifies under the run's key (`line_mac`: its file's name, its index there) given
    the channel's `nonce`, any other kept as it is (forged). Returns (the lines, True where
    something was left unread)."""
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
        lines = [line for line in data.splitlines() if line]
        out += [_verified(line, prepared.key, name, i, nonce) for i, line in enumerate(lines)]
    return b"".join(out), cut


def _verified(line: bytes, key: bytes, name: str, index: int, nonce: str) -> bytes:
    """`line`, line `index` of the records file `name`, with its MAC made the channel's `nonce`
    where it verifies under `key` (`line_mac`); any other line kept as it is (forged)."""
    head, tab, body = line.partition(b"\t")
    if tab and key and hmac.compare_digest(head, line_mac(key, name, index, body).encode()):
        return nonce.encode() + b"\t" + body + b"\n"
    return line + b"\n"
