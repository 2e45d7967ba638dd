"""The fast tier's rule, observed: a test not marked `slow` that starts a Python fails.

CONTRIBUTING: `slow` marks a test that starts fixbot or a Python in a subprocess. An audit hook
(PEP 578; Python's docs, "Audit events table": `subprocess.Popen`, `os.posix_spawn`,
`os.spawn`, `os.system`) sees every program this process starts, from any thread. While a test
not marked `slow` is set up and runs, a program started that is a Python (`is_python`: an
interpreter by its real file's name, or a script whose `#!` line runs one, as fixbot's and
pytest's console scripts do), directly or as a command word of a shell's `-c` command, is
recorded, and the test fails naming it. A Python a started program starts in turn (a Makefile's)
is not seen.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

INTERPRETER = re.compile(r"python[0-9.]*")
SHELLS = {"sh", "bash", "dash", "zsh"}
# Words that run the next word as the command (`exec pytest`, `env A=1 python`).
PREFIXES = {"exec", "env", "command", "nohup", "nice", "time", "builtin"}
# Programs that run the command they are given: fixbot's own isolation and user switches.
WRAPPERS = {"unshare", "setpriv", "sudo", "env", "nice", "timeout", "setsid", "runuser", "nohup"}
OPERATORS = {";", "&&", "||", "|", "&", "(", ")", "{", "}", "!", "then", "do", "else"}
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

_watching = [False]
_started: list[str] = []


def is_python(program: str, path: str | None) -> bool:
    """True when `program` (a name looked up in `path`, the child's PATH, or a path) is a
    Python interpreter or a script a `#!` line hands to one."""
    found = shutil.which(program, path=path) if "/" not in program else program
    if found is None or not os.path.isfile(found):
        return False
    if INTERPRETER.fullmatch(Path(os.path.realpath(found)).name):
        return True
    try:
        with open(found, "rb") as script:
            first = script.readline(256)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def command_words(command: str) -> Iterator[str]:
    """The words of a shell command that name a program: the first word of each simple
    command, after assignments and `PREFIXES`. A command shlex cannot split yields nothing."""
    for line in command.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.wordchars += "/.-+=:~%@"
        try:
            words = list(lexer)
        except ValueError:
            continue
        at_start = True
        for word in words:
            if word in OPERATORS or set(word) <= set(";&|()<>"):
                at_start = True
            elif at_start and (ASSIGNMENT.match(word) or word in PREFIXES):
                continue
            elif at_start:
                at_start = False
                yield word


def pythons_in(argv: Sequence[str], env: Mapping[str, str] | None) -> list[str]:
    """The Pythons `argv` starts: itself, or command words of a shell's `-c` command, also
    behind a program that runs another (`WRAPPERS`: `unshare ... /bin/sh -c CMD`)."""
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    words = [str(word) for word in argv]
    while words and Path(words[0]).name in WRAPPERS:
        # the wrapped command: the first later word that is a program (a path, or a shell)
        rest = words[1:]
        at = next((i for i, w in enumerate(rest) if "/" in w or w in SHELLS), len(rest))
        words = rest[at:]
    if not words:
        return []
    program = words[0]
    if Path(program).name in SHELLS and "-c" in words[1:-1]:
        command = words[words.index("-c") + 1]
        return [word for word in command_words(command) if is_python(word, path)]
    return [program] if is_python(program, path) else []


def _argv(args: object) -> list[str]:
    if isinstance(args, str | bytes | os.PathLike):
        return [os.fsdecode(args)]
    if isinstance(args, Sequence):
        return [
            os.fsdecode(a) if isinstance(a, str | bytes | os.PathLike) else str(a) for a in args
        ]
    return []


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _watching[0] or event not in ("subprocess.Popen", "os.posix_spawn", "os.system"):
        return
    try:  # an audit hook that raises would fail the spawn itself
        if event == "os.system":
            argv, env = ["/bin/sh", "-c", os.fsdecode(args[0])], None  # type: ignore[arg-type]
        elif event == "subprocess.Popen":
            executable, argv, env = args[0], _argv(args[1]), args[3]
            if executable is not None and argv:
                argv[0] = os.fsdecode(executable)  # type: ignore[arg-type]
        else:
            argv, env = _argv(args[1]), args[2]
        names = pythons_in(argv, env if isinstance(env, Mapping) else None)
        if names:
            _started.append(f"{' '.join(argv)[:200]} (starts {', '.join(dict.fromkeys(names))})")
    except Exception:  # observing must never change what the test does
        pass


def take() -> list[str]:
    """The Pythons recorded since the test's set-up began, forgotten once taken."""
    taken = list(_started)
    _started.clear()
    return taken


def pytest_configure(config: pytest.Config) -> None:
    sys.addaudithook(_hook)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    _started.clear()
    _watching[0] = item.get_closest_marker("slow") is None
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    try:
        result = yield
    finally:
        _watching[0] = False
    started = take()
    if item.get_closest_marker("slow") is None and started:
        pytest.fail(
            "this test is not marked slow but starts a Python (CONTRIBUTING, test tiers): "
            + "; ".join(started)
            + ". Mark it `@pytest.mark.slow`, or test the code in this process.",
            pytrace=False,
        )
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    _watching[0] = False
