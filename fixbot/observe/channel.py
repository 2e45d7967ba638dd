"""fixbot's side of the observer: the folder the plugin is loaded from, the two channels, the
environment that loads it into every pytest of a check, and the reader of its stream.

`Channel.open(watch)` copies `pytest_plugin.py` (and its parts beside it, `<module>_<part>`,
`PARTS`: `bodies.py`, `calls.py`, `known.py` (the known-answer test's function), `hooks.py`,
`collection.py`, `operands.py` (with `reading.py`,
`failed.py`, `followed.py`, `jumps.py`, `shapes.py`, `library.py` and `libreach.py`, `truth.py`,
`failedtruth.py`, `unstored.py` and its `closures.py`, `classbody.py` and `storing.py`,
`contents.py` and `bytecode.py`), `watch.py` (with `dunders.py`, `classes.py`, `holds.py`,
`unread.py` and `bracket.py`), `identities.py`, `integrity.py`, the sender, `sender.py`, and the
audit hook, `reach.py`; `modulecode.py`, the module code each work-tree file ran, its
`imported` record), and the node runners' reporter
(`node/reporter.cjs`, as `<module>_reporter.cjs`: `Channel.reporter`, named on jest's and
vitest's command line by `fixbot.observe.reporter`), and the observer inside unittest
(`unittest_observer.py`, as `<module>_unittest_observer`, loaded at Python's startup by
`startup.py`, copied as `sitecustomize.py`: the folder is first on the check's PYTHONPATH; its
parts beside it, `UNITTEST_PARTS`: `unittest_machinery.py`, as `<module>_unittest_machinery`,
`unittest_result.py`, as `<module>_unittest_result`, `unittest_compiled.py`, as
`<module>_unittest_compiled`, `unittest_made.py`, as `<module>_unittest_made`,
`unittest_asserts.py`, as `<module>_unittest_asserts`, and
`unittest_watch.py`, as `<module>_unittest_watch`, `unittest_equal.py`, as
`<module>_unittest_equal`, `unittest_asserter.py`, as `<module>_unittest_asserter`, and
`unittest_helped.py`, as `<module>_unittest_helped`;
`unittest_gate.py`, as `<module>_unittest_gate`, which `startup.py` asks first whether the
process is a unittest run, so that no other process compiles the observer;
it also imports the plugin's `bodies.py`, `identities.py`, `reach.py`, `calls.py` and
`modulecode.py`, copied as `PARTS`)
from fixbot's installation into a fresh folder
under a module name made for this run
(`fixbot_observer_<hex>`: a file the workspace holds cannot shadow a name it could not know),
readable by the commands' user and writable by fixbot alone (0755/0644; where fixbot is root the
folder is root's). Beside them, in the folder's `bin/`, it writes fixbot's shims (`SHIMS`:
`python`, `python3`, `python3.N`, `pytest`, `py.test`; `_shim`), put first on the check's PATH:
each runs the next program of its name on PATH (never one of its own folder) with the observer's
folder put back first on PYTHONPATH and `-p <module>` on PYTEST_ADDOPTS, so a Python the check
starts by name through a script whose own assignment replaced those values (`PYTHONPATH=src python
-m unittest` in check.sh, which `fixbot.run.checkrun.observed` does not rewrite) still loads the
observers; one started by its path (`.venv/bin/python`), after the script assigns PATH, or with
`-I`/`-E` runs as written. One channel carries the run's nonce and the ids of the tests to watch to
the plugin (a line per pytest the check may start, written before the check starts), the other
carries its records back, read by a thread while the check runs so a long stream never blocks it.
Each is a Unix socket pair, not a pipe (`_pair`): the kernel opens no socket by a path, so neither
the code under test nor a process it starts can open `/proc/<pid>/fd/N` (or `/dev/fd/N`, or a link
to either) to read the records out of the channel, as a pipe's path would let them (ENXIO, whoever
asks: nothing to recognise). The plugin's sender ends its process when the descriptor it writes no
longer names its end of the channel (`sender._sender`): what the code under test can still do is
add lines, not take the observer's away. `env(base)` adds `FIXBOT_OBSERVER`, `PYTHONPATH`,
`PYTEST_ADDOPTS -p <module>` and the shims' folder first on `PATH` to the check's environment;
`fds` go to the spawn (`pass_fds`); `close()` ends the channel and returns what was streamed as an
`Observation`.

The stream is read into an `Observation` by `fixbot.observe.stream.parse`.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.observed import MAX_STREAM_BYTES, Observation
from fixbot.observe.stream import MAX_WATCH, parse

VARIABLE = "FIXBOT_OBSERVER"  # the plugin's `VARIABLE`
PLUGIN = Path(__file__).with_name("pytest_plugin.py")
# the plugin's parts, each copied beside it as `<module>_<part>`
PARTS = tuple(
    Path(__file__).with_name(f"{part}.py")
    for part in (
        "bodies",
        "bracket",
        "bytecode",
        "calls",
        "classbody",
        "classes",
        "closures",
        "collection",
        "contents",
        "dunders",
        "failed",
        "failedtruth",
        "followed",
        "hooks",
        "holds",
        "identities",
        "integrity",
        "jumps",
        "known",
        "library",
        "libreach",
        "modulecode",
        "modulenames",
        "operands",
        "reading",
        "reach",
        "sender",
        "shapes",
        "sourced",
        "storing",
        "truth",
        "unread",
        "unstored",
        "watch",
    )
)
# jest's and vitest's reporter (`fixbot.observe.reporter`), copied beside the plugin
REPORTER = Path(__file__).with_name("node") / "reporter.cjs"
# the observer inside unittest, copied beside the plugin, and what loads it at Python's startup
UNITTEST = Path(__file__).with_name("unittest_observer.py")
# its parts (the machinery it fingerprints, the result it hands `TestCase.run`, the code each
# file was compiled to as imported and the class statement each test class was made by, the
# assert methods set on a test, the watch on the calls
# the test files' code makes, the observer's own `_getAssertEqualityFunc`), copied beside it as
# `<module>_<part>`
UNITTEST_PARTS = tuple(
    Path(__file__).with_name(f"{part}.py")
    for part in (
        "unittest_machinery",
        "unittest_result",
        "unittest_compiled",
        "unittest_made",
        "unittest_asserts",
        "unittest_watch",
        "unittest_equal",
        "unittest_asserter",
        "unittest_seen",
        "unittest_helped",
        "unittest_failers",
        "unittest_gate",
    )
)
STARTUP = Path(__file__).with_name("startup.py")
# the programs fixbot's shims stand before on the check's PATH (`_shim`): Python by its names
# (3.8 and later: the observers' own floor), pytest's scripts
SHIMS = ("python", "python3", *(f"python3.{minor}" for minor in range(8, 20)), "pytest", "py.test")
SHIM_FOLDER = "bin"  # in the observer's folder
MAX_LINE_BYTES = 16 * 1024  # the plugin's settings line, at most (bytes)
SETTINGS_BYTES = 60 * 1024  # what the settings channel is given: under its buffer (over 128 KiB)
MAX_SESSIONS = 4  # settings lines written: the first pytest processes of a check observed
JOIN_S = 5.0  # how long the reader may take to see the channel's end after the check (seconds)


@dataclass
class Channel:
    """One check run's observer channel (see the module docstring)."""

    folder: Path
    module: str
    nonce: str
    fds: tuple[int, int]  # (settings read end, records write end): the plugin's
    _ends: tuple[int, ...]  # fixbot's own ends
    _chunks: list[bytes] = field(default_factory=list)
    _size: list[int] = field(default_factory=lambda: [0, 0])  # kept, dropped
    _reader: threading.Thread | None = None

    @classmethod
    def open(
        cls, watch: Iterable[str] = (), root: str | None = None, path: str | None = None
    ) -> Channel:
        """A fresh channel watching the bodies of the tests `watch` (node ids), naming the files
        that reach relative to `root` (the work tree's root as the check sees it: the fix's
        files are named relative to it; None: pytest's rootdir), with a shim for each program
        of `SHIMS` found on the check's PATH `path` (None: fixbot's own). Raises OSError when
        the folder or the channels cannot be made."""
        folder = Path(tempfile.mkdtemp(prefix="fixbot-observer-"))
        module = f"fixbot_observer_{secrets.token_hex(8)}"
        target = folder / f"{module}.py"
        shutil.copyfile(PLUGIN, target)
        for part in PARTS:
            shutil.copyfile(part, folder / f"{module}_{part.name}")
        shutil.copyfile(REPORTER, folder / f"{module}_{REPORTER.name}")
        shutil.copyfile(UNITTEST, folder / f"{module}_{UNITTEST.name}")
        for part in UNITTEST_PARTS:
            shutil.copyfile(part, folder / f"{module}_{part.name}")
        shutil.copyfile(STARTUP, folder / "sitecustomize.py")
        for made in folder.iterdir():
            made.chmod(0o644)
        _shims(folder, module, os.environ.get("PATH", os.defpath) if path is None else path)
        folder.chmod(0o755)
        nonce = secrets.token_hex(16)
        given_r, given_w = _pair()
        records_r, records_w = _pair()
        try:
            os.write(given_w, _settings(nonce, list(watch), root))
        finally:
            os.close(given_w)
        channel = cls(folder, module, nonce, (given_r, records_w), (records_r,))
        channel._reader = threading.Thread(target=channel._read, name="observer", daemon=True)
        channel._reader.start()
        return channel

    @property
    def reporter(self) -> Path:
        """The copy of jest's and vitest's reporter (`node/reporter.cjs`) this run's runner
        loads, by its absolute path."""
        return self.folder / f"{self.module}_{REPORTER.name}"

    @property
    def shims(self) -> Path:
        """The folder of fixbot's shims (`SHIMS`, `_shim`), first on the check's PATH."""
        return self.folder / SHIM_FOLDER

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """The variables that load the plugin into every pytest of the check, merged over the
        check's own `base` values (its PYTHONPATH after the folder, its PYTEST_ADDOPTS before
        `-p`, its PATH, `os.defpath` where it has none, after the shims' folder)."""
        path = base.get("PYTHONPATH", "")
        options = base.get("PYTEST_ADDOPTS", "")
        return {
            VARIABLE: ",".join(f"{fd}:{os.fstat(fd).st_ino}" for fd in self.fds),
            "PYTHONPATH": os.pathsep.join([str(self.folder), *([path] if path else [])]),
            "PYTEST_ADDOPTS": f"{options} {shlex.join(['-p', self.module])}".strip(),
            "PATH": os.pathsep.join([str(self.shims), base.get("PATH", os.defpath)]),
        }

    def _read(self) -> None:
        fd = self._ends[0]
        while chunk := os.read(fd, 1024 * 1024):
            # once a chunk is dropped nothing after it is kept: a stream filled exactly to the
            # bound by the code under test would otherwise keep its own lines and drop the
            # observer's
            if self._size[1] or self._size[0] + len(chunk) > MAX_STREAM_BYTES:
                self._size[1] += len(chunk)
                continue
            self._chunks.append(chunk)
            self._size[0] += len(chunk)

    def close(self, more: bytes = b"", cut: bool = False) -> Observation:
        """End the channel (the check has ended: every process that held it is gone) and
        return what the plugin streamed, followed by `more`, lines in the channel's nonce read
        from elsewhere (the go observer's records, `fixbot.observe.golang.collect`; `cut`: some
        of those were left unread, the stream's overflow)."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._reader is not None:
            self._reader.join(JOIN_S)
        for fd in self._ends:
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.folder, ignore_errors=True)
        seen = parse(b"".join([*self._chunks, more]).decode("utf-8", "replace"), self.nonce)
        if cut or self._size[1] or (self._reader is not None and self._reader.is_alive()):
            seen.overflow = True
        return seen


def _shims(folder: Path, module: str, path: str) -> None:
    """Write fixbot's shims (`_shim`) into `folder`'s `SHIM_FOLDER` (0755, as the files:
    fixbot's, run by the commands' user), one for each program of `SHIMS` found on `path` (the
    check's PATH: a check asking `command -v pytest || pip install pytest`, or picking the first
    `python3.N` there is, finds what it would without fixbot), with the marker by which each
    knows its own folder on PATH (`<module>_shims`, whatever spelling of the folder PATH
    holds). Raises OSError."""
    shims = folder / SHIM_FOLDER
    shims.mkdir()
    (shims / f"{module}_shims").write_text("")
    (shims / f"{module}_shims").chmod(0o644)
    for name in (n for n in SHIMS if shutil.which(n, path=path)):
        made = shims / name
        made.write_text(_shim(name, folder, module))
        made.chmod(0o755)
    shims.chmod(0o755)


SHIM = """\
#!/bin/sh
# fixbot's shim (fixbot/observe/channel.py): runs the next {name} on PATH, not one of this
# folder's, with fixbot's observer folder first on PYTHONPATH and its plugin on PYTEST_ADDOPTS
set -f
folder={folder}
marker={marker}
found=
saved=$IFS
IFS=:
for dir in $PATH; do
  [ -n "$dir" ] || dir=.
  [ -e "$dir/$marker" ] && continue
  if [ -f "$dir/"{name} ] && [ -x "$dir/"{name} ]; then found=$dir/{name}; break; fi
done
IFS=$saved
if [ -z "$found" ]; then
  echo {name}': not found' >&2
  exit 127
fi
case $PYTHONPATH in
  "$folder" | "$folder":*) ;;
  "") PYTHONPATH=$folder ;;
  *) PYTHONPATH=$folder:$PYTHONPATH ;;
esac
case " $PYTEST_ADDOPTS " in
  *" -p "{module}" "*) ;;
  *) PYTEST_ADDOPTS="${{PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }}-p "{module} ;;
esac
export PYTHONPATH PYTEST_ADDOPTS
exec "$found" "$@"
"""


def _shim(name: str, folder: Path, module: str) -> str:
    """The POSIX shell script that stands before the program `name` on the check's PATH: it
    runs the next `name` on PATH (skipping each folder holding the marker `<module>_shims`: its
    own, however spelled), by that path, with the same arguments, the observer's `folder` first
    on PYTHONPATH (unless it is already: an empty value gets the folder alone) and `-p <module>`
    on PYTEST_ADDOPTS (unless there); none found: `<name>: not found`, exit status 127, as the
    shell's own."""
    quote = shlex.quote
    return SHIM.format(
        name=quote(name), folder=quote(str(folder)), marker=quote(f"{module}_shims"), module=module
    )


def _pair() -> tuple[int, int]:
    """Two connected descriptors (reading end, writing end) of a Unix socket pair, not a pipe:
    the kernel opens no socket by a path (`open("/proc/<pid>/fd/N")`, `/dev/fd/N`, a link to
    either fails with ENXIO, in the check's process or any other), where a pipe's path opens
    the pipe again, for reading. Raises OSError."""
    reading, writing = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    reading.shutdown(socket.SHUT_WR)  # nothing goes the other way
    writing.shutdown(socket.SHUT_RD)
    return reading.detach(), writing.detach()


def _settings(nonce: str, watch: list[str], root: str | None = None) -> bytes:
    """The settings lines the plugin reads: the nonce, the work tree's `root` and the watched
    ids (as many as fit `MAX_LINE_BYTES`), once for each pytest the check may start
    (`MAX_SESSIONS`)."""
    kept = watch[:MAX_WATCH]
    line = json.dumps({"nonce": nonce, "root": root, "watch": kept}).encode() + b"\n"
    while len(line) > MAX_LINE_BYTES and kept:
        kept = kept[: len(kept) // 2]
        line = json.dumps({"nonce": nonce, "root": root, "watch": kept}).encode() + b"\n"
    return line * max(1, min(MAX_SESSIONS, SETTINGS_BYTES // len(line)))
