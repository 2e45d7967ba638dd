"""Whether a process is a unittest run fixbot's observer loads into (`wanted`), asked at
Python's startup before the observer itself is imported: `startup.py` (copied as
`sitecustomize.py`) imports this small module in every Python process of a check, and the
observer inside unittest (`unittest_observer.py`, some 400 lines, and its parts) only where it
says yes, so a process that is no unittest run (a pytest, a script, a tool the tests start)
compiles this file alone, not the observer's (the observer's files are compiled from source in
each process: no bytecode cache of theirs is read).

Copied beside the observer as `<module>_unittest_gate` (`fixbot.observe.channel`); runs inside
the project's own Python (3.8 or later); imports `os` and `sys` alone. The observer asks it
again as it loads (`unittest_observer._load`): one decision, made by these functions.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "FIXBOT_OBSERVER"  # the channel's descriptors, as the observers read them
SCRIPT_BYTES = 1024 * 1024  # a script's text read for the word `unittest` (bytes)
MODULES = ("unittest", "unittest.__main__")  # `python -m` of these is a unittest run


def wanted() -> bool:
    """Whether this process holds the channel (`_channel`) and is a unittest run (`_mode`):
    False where either is missing, the observer then neither imported nor compiled."""
    return _channel(os.environ.get(VARIABLE, "")) is not None and _mode() is not None


def _channel(value: str) -> tuple[int, int] | None:
    """The settings end and the records end `FIXBOT_OBSERVER` names, where each descriptor is
    the socket it names by inode (a process that did not inherit them may hold other files
    under those numbers); else None."""
    try:
        (given, given_ino), (out, out_ino) = (
            (int(fd), int(ino)) for fd, _, ino in (part.partition(":") for part in value.split(","))
        )
        if (os.fstat(given).st_ino, os.fstat(out).st_ino) != (given_ino, out_ino):
            return None
    except (OSError, ValueError):
        return None
    return given, out


def _command() -> list[str]:
    """This process's command line, the interpreter first."""
    given = getattr(sys, "orig_argv", None)
    if given:
        return list(given)
    try:
        with open("/proc/self/cmdline", "rb") as file:
            return [w.decode("utf-8", "replace") for w in file.read().split(b"\0") if w]
    except OSError:
        return []


def _module(words: list[str]) -> str | None:
    """The module `words` (a command line, the interpreter first) runs with `-m` (`-m name`
    or `-mname`), or None."""
    if "-m" in words:
        return words[at] if (at := words.index("-m") + 1) < len(words) else None
    for word in words[1:]:
        if word.startswith("-m"):
            return word[2:]
    return None


def _program(words: list[str]) -> str:
    """The program text `words` (a command line, the interpreter first) runs with `-c` (`-c
    text` or `-ctext`, the first such word), or ""."""
    for at, word in enumerate(words[1:], 1):
        if word == "-c":
            return words[at + 1] if at + 1 < len(words) else ""
        if word.startswith("-c"):
            return word[2:]
    return ""


def _mode() -> str | None:
    """ "module" where this process is `python -m unittest`, "script" where it runs a script,
    or a `-c` program, whose text names `unittest` (round 44: `python -c "import unittest;
    unittest.main(module='test_app')"` ran unobserved, its exit code trusted), else None (no
    unittest run of the observer's)."""
    words = _command()
    if sys.argv[:1] == ["-m"]:
        return "module" if _module(words) in MODULES else None
    script = sys.argv[0] if sys.argv else ""
    if script == "-c":
        return "script" if "unittest" in _program(words) else None
    if script in ("", "-") or not os.path.isfile(script):
        return None
    try:
        with open(script, "rb") as file:
            text = file.read(SCRIPT_BYTES)
    except OSError:
        return None
    return "script" if b"unittest" in text else None
