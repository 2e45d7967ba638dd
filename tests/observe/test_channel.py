"""The observer's channel as the code under test finds it: a descriptor it may replace (the
observer then ends the process, its stream without an end) and a socket no path opens."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import channel as channel_module
from fixbot.observe import judge, sender
from fixbot.observe.channel import Channel
from tests.fakes.pythons import PROJECT_PYTHON, version_of

APP = "def add(a, b):\n    return a + b\n"
ADD = "tests/test_app.py::test_add"
PYTEST = f"{PROJECT_PYTHON} -m pytest -q -p no:cacheprovider tests"
# the test body finds the channel as a cheat does: the one socket at or above the observer's
# high descriptor number
FIND = """
import os, stat


def channel():
    for fd in range(700, 800):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass
    raise AssertionError('no channel')
"""


def run(tmp_path: Path, test: str) -> tuple[subprocess.CompletedProcess[bytes], Observation]:
    """pytest over `tests/test_app.py` holding `test`, under a fresh channel watching
    `test_add`: the process and what the observer streamed."""
    for rel, text in {"app.py": APP, "tests/test_app.py": test}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    opened = Channel.open([ADD])
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    try:
        done = subprocess.run(
            PYTEST,
            shell=True,
            cwd=tmp_path,
            env={**env, **opened.env(env)},
            pass_fds=opened.fds,
            capture_output=True,
            check=False,
        )
    finally:
        seen = opened.close()
    return done, seen


# a pipe of the test's own put under the channel's number (the real one copied aside), and what
# would rewrite the stream after: an atexit handler and a thread the interpreter waits for
REPLACED = (
    FIND
    + """

def test_add():
    import atexit, fcntl, threading
    fd = channel()
    real = os.dup(fd)
    r, w = os.pipe()
    SWAP
    atexit.register(lambda: open('atexit-ran', 'w').close())
    later = threading.Event()  # never set: the thread writes after the session, at exit
    threading.Thread(target=lambda: later.wait(5) or open('thread-ran', 'w').close()).start()
    assert real is not None  # an identity: nothing streamed during the call
"""
)


# each way to put another file under the number, or none
SWAPS = {
    "dup2": "os.dup2(w, fd)",
    "closed-and-reopened": "os.closerange(fd, fd + 1); fcntl.fcntl(w, fcntl.F_DUPFD, fd)",
    "closed": "os.close(fd)",
    # the same socket under the number, shut down for writing through a copy
    "shut-down": (
        "import socket; socket.fromfd(fd, socket.AF_UNIX, socket.SOCK_STREAM)"
        ".shutdown(socket.SHUT_WR)"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_channel_replaced_under_its_number_ends_the_process_cut_short(
    tmp_path: Path, swap: str
) -> None:
    done, seen = run(tmp_path, REPLACED.replace("SWAP", SWAPS[swap]))
    assert done.returncode == sender.FAIL_CLOSED, done
    assert sender.FAIL_WORDS in done.stderr
    assert seen.sessions == 1 and seen.ended == 0 and seen.forged == 0
    found = judge.findings(seen, seen)
    cut = [f for f in found if f.startswith("observer-cut-short")]
    assert cut and f"status {sender.FAIL_CLOSED}" in cut[0], found
    # nothing of the test's ran after the observer's end: no atexit handler, no thread
    assert not (tmp_path / "atexit-ran").exists() and not (tmp_path / "thread-ran").exists()


# every path to the channel, this process's and its own through a child, and a link to one
OPENED = (
    FIND
    + """

def test_add():
    import subprocess, tempfile
    from app import add
    fd = channel()
    paths = [f'/proc/self/fd/{fd}', f'/dev/fd/{fd}', f'/proc/{os.getpid()}/fd/{fd}',
             f'/proc/thread-self/fd/{fd}']
    link = os.path.join(tempfile.mkdtemp(), 'link')
    os.symlink(paths[0], link)
    opened = []
    for path in paths + [link]:
        for flags in (os.O_RDONLY, os.O_RDWR, os.O_RDONLY | os.O_NONBLOCK):
            try:
                os.close(os.open(path, flags))
                opened.append(path)
            except OSError:
                pass
    child = subprocess.run(['sh', '-c', 'exec 3< "$0"', paths[2]], capture_output=True)
    # a copy of the descriptor is the observer's end: what it reads is what fixbot sends, nothing
    import socket
    copy = socket.fromfd(fd, socket.AF_UNIX, socket.SOCK_STREAM)
    assert copy.recv(100, socket.MSG_DONTWAIT) == b''
    open('opened', 'w').write(repr((opened, child.returncode != 0)))
    assert add(2, 2) == 5
"""
)


@pytest.mark.slow
def test_no_path_opens_the_channel_to_read_it(tmp_path: Path) -> None:
    """The records travel over a socket, which the kernel opens by no path (ENXIO): neither
    the code under test nor a process it starts can read them out of the channel."""
    done, seen = run(tmp_path, OPENED)
    assert (tmp_path / "opened").read_text() == repr(([], True)), done.stdout
    assert seen.sessions == seen.ended == 1 and seen.statuses == [1]
    assert seen.tests[ADD] == "failed"


def test_nothing_after_a_dropped_chunk_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream filled to the bound and then topped up with what still fits would keep the
    filler's lines and drop the observer's: once a chunk is dropped, the rest is dropped too."""
    monkeypatch.setattr(channel_module, "MAX_STREAM_BYTES", 100)
    opened = channel_module.Channel.open()
    written = 0
    for chunk in (b"a" * 60, b"b" * 60, b"c" * 10):  # the second is dropped, the third fits
        os.write(opened.fds[1], chunk)
        written += len(chunk)
        deadline = time.monotonic() + 30
        while sum(opened._size) < written and time.monotonic() < deadline:
            time.sleep(0.01)  # the reader thread takes each chunk before the next is written
    seen = opened.close()
    assert seen.overflow and opened._size == [60, 70]
    assert b"".join(opened._chunks) == b"a" * 60


# --- fixbot's shims: a Python the check's script starts by name after assigning PYTHONPATH ---

UNITTESTS = """\
import unittest

from app import add


class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 2), 4)
"""


def scripted(tmp_path: Path, script: str, path: str) -> tuple[int, str, Observation]:
    """`sh check.sh` (`script`) over src/app.py and test_app.py (unittest's and pytest's) under
    a fresh channel, the check's PATH `path`: (exit status, output, what was streamed)."""
    for rel, text in {"src/app.py": APP, "test_app.py": UNITTESTS, "check.sh": script}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    opened = Channel.open(["test_app.py::T::test_add"], path=path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FIXBOT_", "PYTEST_"))}
    env["PATH"] = path
    try:
        done = subprocess.run(
            ["sh", "check.sh"],
            cwd=tmp_path,
            env={**env, **opened.env(env)},
            pass_fds=opened.fds,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        seen = opened.close()
    return done.returncode, done.stdout + done.stderr, seen


@pytest.mark.slow
def test_a_python_the_checks_script_names_is_observed_whatever_pythonpath_it_assigns(
    tmp_path: Path,
) -> None:
    """The script's own `PYTHONPATH=src` replaces the observer's folder (round 23's
    `pythonpath_set_by_the_check_s_script`): the shim before `python` on PATH puts it back;
    `python -I` (no PYTHON* variable) runs as written, unobserved."""
    path = os.pathsep.join([os.path.dirname(PROJECT_PYTHON), os.environ.get("PATH", "")])
    status, output, seen = scripted(tmp_path, "PYTHONPATH=src python -m unittest\n", path)
    assert status == 0, output
    assert seen.sessions == 1 and seen.runners == ["unittest"], output
    assert seen.tests == {"test_app.T.test_add": "passed"}
    status, output, seen = scripted(
        tmp_path, "cd src && python -I -m unittest ../test_app.py\n", path
    )
    assert seen.sessions == 0, output


@pytest.mark.slow
def test_a_pytest_the_checks_script_names_is_observed_whatever_options_it_assigns(
    tmp_path: Path,
) -> None:
    """`PYTEST_ADDOPTS=-q` in the script replaces `-p <module>`: the shim adds it back."""
    if version_of(PROJECT_PYTHON) is None:
        pytest.skip("the project's Python has no pytest")
    path = os.pathsep.join([os.path.dirname(PROJECT_PYTHON), os.environ.get("PATH", "")])
    script = "PYTEST_ADDOPTS=-q PYTHONPATH=src python -m pytest -p no:cacheprovider test_app.py\n"
    status, output, seen = scripted(tmp_path, script, path)
    assert status == 0, output
    assert seen.sessions == 1 and seen.tests == {"test_app.py::T::test_add": "passed"}, output


SHOW_ENV = (
    '#!/bin/sh\nprintf "%s|%s|%s|" "$0" "$PYTHONPATH" "$PYTEST_ADDOPTS"\nprintf "<%s>" "$@"\n'
)


def test_a_shim_runs_the_next_program_of_its_name_never_one_of_its_own_folder(
    tmp_path: Path,
) -> None:
    """Its own folder on PATH however spelled is passed over (no shim runs itself for ever);
    the arguments go through unchanged; the observer's folder is put first on PYTHONPATH once
    (an empty value: the folder alone, no `:` adding the current folder) and `-p <module>` on
    PYTEST_ADDOPTS once; no program of its name: status 127, as the shell's own. (Each is run
    as `sh <shim>`: the same script, by a name the suite's tiers do not take for a Python.)"""
    real = tmp_path / "real"
    real.mkdir()
    for name in ("python3", "pytest"):
        (real / name).write_text(SHOW_ENV)
        (real / name).chmod(0o755)
    opened = Channel.open(path=str(real))
    try:
        shims, folder, module = opened.shims, str(opened.folder), opened.module
        # a shim for each program the check's PATH holds, none for one it does not
        assert sorted(p.name for p in shims.iterdir()) == [f"{module}_shims", "pytest", "python3"]
        spelled = [f"{shims}/", f"{opened.folder}//bin", str(shims)]
        env = {
            "PATH": os.pathsep.join([*spelled, str(real), "/usr/bin", "/bin"]),
            "PYTHONPATH": "src",
            "PYTEST_ADDOPTS": "-x",
        }
        shown = subprocess.run(
            ["sh", str(shims / "python3"), "a b", "$c"], env=env, capture_output=True, text=True
        )
        assert shown.stdout == (f"{real}/python3|{folder}:src|-x -p {module}|<a b><$c>"), (
            shown.stderr
        )
        again = {**env, "PYTHONPATH": f"{folder}:src", "PYTEST_ADDOPTS": f"-p {module} -x"}
        shown = subprocess.run(
            ["sh", str(shims / "pytest")], env=again, capture_output=True, text=True
        )
        assert shown.stdout == f"{real}/pytest|{folder}:src|-p {module} -x|<>", shown.stderr
        empty = {"PATH": env["PATH"], "PYTHONPATH": ""}
        shown = subprocess.run(
            ["sh", str(shims / "python3")], env=empty, capture_output=True, text=True
        )
        assert shown.stdout == f"{real}/python3|{folder}|-p {module}|<>"
        (real / "pytest").unlink()  # gone since: as the shell says it
        missing = subprocess.run(
            ["sh", str(shims / "pytest")], env=env, capture_output=True, text=True
        )
        assert missing.returncode == 127 and "pytest: not found" in missing.stderr
        # fixbot's files: the commands run them, nobody but fixbot writes them
        assert {(p.stat().st_mode & 0o777) for p in shims.iterdir()} == {0o755, 0o644}
        assert shims.stat().st_mode & 0o777 == 0o755
        assert opened.env({})["PATH"] == os.pathsep.join([str(shims), os.defpath])
        assert set(channel_module.SHIMS) >= {"python", "python3", "python3.13", "pytest"}
    finally:
        opened.close()


def _imported_at_start(tmp_path: Path, argv: list[str]) -> str:
    """What `python -X importtime <argv>` in `tmp_path` reports importing, with the channel's
    environment (the observer's folder first on PYTHONPATH: its `sitecustomize`)."""
    opened = Channel.open([])
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    try:
        done = subprocess.run(
            [PROJECT_PYTHON, "-X", "importtime", *argv],
            cwd=tmp_path,
            env={**env, **opened.env(env)},
            pass_fds=opened.fds,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        opened.close()
    return done.stderr


@pytest.mark.slow
def test_a_process_that_is_no_unittest_run_never_imports_the_unittest_observer(
    tmp_path: Path,
) -> None:
    """Every Python process of a check runs the observer's `sitecustomize`: one that is no
    unittest run asks the small gate alone (`unittest_gate.py`) and neither imports nor
    compiles the observer (some 400 lines, compiled from source in each process); a unittest
    run imports both."""
    (tmp_path / "test_one.py").write_text(
        "import unittest\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        pass\n"
    )
    silent = _imported_at_start(tmp_path, ["-c", "pass"])
    assert "_unittest_gate" in silent
    assert "_unittest_observer" not in silent
    run = _imported_at_start(tmp_path, ["-m", "unittest", "-q", "test_one"])
    assert "_unittest_gate" in run and "_unittest_observer" in run
