"""What the observer's trust rests on is in no cell the code under test can swap unseen.

The sender, its check of the descriptor, the fail-closed end and the self-check hold what they
use as positional defaults (replaced only by writing `__defaults__`, an audited act that ends
the process), serialize with the observer's own encoder (not `json`, whose module globals the
project can rebind), and a closure cell or hook implementation found changed ends the process
rather than being reported through what may be the changed sender.
"""

from __future__ import annotations

import builtins
import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixbot.core.observed import Observation
from fixbot.observe import judge, sender
from fixbot.observe.channel import Channel
from tests.fakes.pythons import PROJECT_PYTHON

APP = "def add(a, b):\n    return a + b\n"
TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
ADD = "tests/test_app.py::test_add"
PYTEST = f"{PROJECT_PYTHON} -m pytest -q -p no:cacheprovider tests"

# what a record holds: str keys; str, int, bool, None, floats, lists and dicts of those
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), VALUES, max_size=6))
def test_a_record_encoded_by_the_observer_is_what_json_reads_back(record: dict[str, Any]) -> None:
    assert json.loads(sender._encode(record)) == record


def test_an_object_json_cannot_write_is_written_as_its_str() -> None:
    record = {"k": "x", "o": Path("a/b"), "t": (1, '\x00"\\')}
    assert json.loads(sender._encode(record)) == {"k": "x", "o": "a/b", "t": [1, '\x00"\\']}


class _Forging(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        return '{"k": "forged"}'


def _sent(send: Any, reader: socket.socket, record: dict[str, Any]) -> bytes:
    send(record)
    return reader.recv(65536)


def test_the_sender_writes_the_same_line_with_json_and_builtins_rebound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`json.dumps` follows its module's globals (`JSONEncoder`, `c_make_encoder`) and the
    builtins, which the code under test can rebind: the sender's line does not."""
    reader, writer = socket.socketpair()
    try:
        send = sender._sender(writer.fileno(), "n" * 32)
        record = {"k": "exit", "id": "t::x", "how": "raised", "n": [1, None, True]}
        before = _sent(send, reader, record)
        real = builtins.isinstance, builtins.str
        with monkeypatch.context() as patch:
            patch.setattr(json, "JSONEncoder", _Forging)
            patch.setattr(json, "dumps", lambda *a, **k: '{"k": "forged"}')
            patch.setattr(json.encoder, "c_make_encoder", None)
            builtins.isinstance = lambda *a: False  # type: ignore[assignment]
            builtins.str = bytes  # type: ignore[misc]
            try:
                after = _sent(send, reader, record)
            finally:
                builtins.isinstance, builtins.str = real  # type: ignore[misc]
    finally:
        reader.close()
        writer.close()
    assert after == before
    nonce, _, line = before.decode().rstrip("\n").partition("\t")
    assert (nonce, json.loads(line)) == ("n" * 32, record)


# a conftest finding the observer as a cheat does (its plugin in pluggy's list, its sender in
# the closure of one of its hooks) as the watched test's call begins
FIND = """\
def _ours(config):
    pm = config.pluginmanager
    return [p for n, p in pm.list_name_plugin() if str(n).endswith('-observer')][0]


def _send(config):
    hook = vars(_ours(config))['pytest_runtest_logreport']
    return [c for c in hook.__closure__ if getattr(c.cell_contents, '__name__', '') == 'send'][0]


def pytest_runtest_call(item):
    config = item.config
    TAMPER
    open('after', 'w').close()
"""
# each way to change what the sender trusts once the observer is sealed
TAMPERS = {
    # written: the audit hook ends the process at once
    "defaults-written": "s = _send(config).cell_contents; s.__defaults__ = s.__defaults__",
    "kwdefaults-written": "s = _send(config).cell_contents; s.__kwdefaults__ = {}",
    "code-written": "s = _send(config).cell_contents; s.__code__ = (lambda record: 0).__code__",
    # called by the project's code (lines with the nonce that would speak for a session it
    # then ends): the sender answers only the observer's own code
    "sender-called": "_send(config).cell_contents({'k': 'end', 'status': 0})",
    # swapped silently: the next self-check (the first test's teardown) ends the process
    "cell-swapped": "c = _send(config); real = c.cell_contents; c.cell_contents = lambda r: 0",
    "hook-swapped": (
        "impl = [i for i in config.pluginmanager.hook.pytest_runtest_logreport.get_hookimpls()"
        " if i.plugin is _ours(config)][0]; real = impl.function;"
        " impl.function = lambda report: real(report)"
    ),
}


def run(tmp_path: Path, conftest: str) -> tuple[subprocess.CompletedProcess[bytes], Observation]:
    """pytest over a passing `test_add` with `conftest`, under a fresh channel watching it: the
    process and what the observer streamed."""
    files = {"app.py": APP, "tests/test_app.py": TEST, "tests/conftest.py": conftest}
    for rel, text in files.items():
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


@pytest.mark.slow
@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_what_the_sender_trusts_changed_ends_the_process(tmp_path: Path, tamper: str) -> None:
    done, seen = run(tmp_path, FIND.replace("TAMPER", TAMPERS[tamper]))
    # (its words on standard error go to pytest's capture of the call, where the write is)
    assert done.returncode == sender.FAIL_CLOSED, done
    assert seen.sessions == 1 and seen.ended == 0, seen
    found = judge.findings(seen, seen)
    assert [f for f in found if f.startswith("observer-cut-short")], found
    # a write ends the process before the statement after it
    assert (tmp_path / "after").exists() == tamper.endswith("swapped")


@pytest.mark.slow
def test_the_sender_read_alone_is_streamed_and_ends_nothing(tmp_path: Path) -> None:
    done, seen = run(tmp_path, FIND.replace("TAMPER", "_send(config).cell_contents.__defaults__"))
    assert done.returncode == 0, done
    assert seen.ended == 1 and seen.tests.get(ADD) == "passed", seen
    assert "observer: __defaults__ of send read by tests/conftest.py" in seen.machinery
