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
from tests.fakes.pythons import PROJECT_PYTHON

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
