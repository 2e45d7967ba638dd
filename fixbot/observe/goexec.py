"""fixbot's `go test -exec` program for an observed go check: a small shell script, written per
run into the observer's folder, that go runs in place of each test binary (`go help test`,
`-exec xprog`: "run the test binary using xprog"), given through GOFLAGS with the overlay that
adds the observer (`fixbot.observe.golang`).

The observed run's environment differs from the check's as written in the variables fixbot
adds: GOFLAGS' `-overlay=<file>` (which names the overlay file and, through it, the observer's
copies and the run's key), the Python observer's variables (`fixbot.observe.channel`), the
shims' folder on PATH. go hands its own environment to each test binary (os/exec), so the code
under test could read them by name and tell the observed run from any other (there behave, and
everywhere else forge go's report). The script puts each variable back as the check would have
had it without fixbot, then `exec`s the binary: for each variable fixbot set, the first place
its value appears in the variable's current value (the check may have added words of its own
around it, `GOFLAGS="-mod=vendor $GOFLAGS"`) is replaced by the check's own value, and a
variable the check did not have and that is left empty is unset. A variable the check itself
changed so that fixbot's value no longer appears in it is left as the check made it.
`FIXBOT_COMMAND_MARK` (`fixbot.process.sandbox`) is not fixbot's observer's and stays: every
command carries it, the run as written too, and the sweep finds a command's processes by it.

The limit: the go command that runs the binary still holds GOFLAGS, and its environment is
readable by the commands' user (proc(5): `/proc/<pid>/environ`), so code that walks to its
parent's environment still finds the overlay (a strict xfail in
tests/run/test_runner_attacks_round38.py and tests/run/test_runner_attacks_round36.py).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a variable name a POSIX shell can assign


def script(added: Mapping[str, str], base: Mapping[str, str]) -> str:
    """The `-exec` program's text (POSIX sh): each variable of `added` (its name to the value
    fixbot gave it) put back to its value in the check's own environment `base` (unset where
    `base` has none and nothing else is left), then the test binary, its first argument, run
    with the rest. Raises ValueError for a name a shell cannot assign."""
    lines = ["#!/bin/sh", "# fixbot's: the test binary run with the check's own environment"]
    for name, value in sorted(added.items()):
        if not NAME_RE.fullmatch(name):
            raise ValueError(f"not a variable name a shell can assign: {name!r}")
        was = base.get(name)
        lines.append(f"_v={shlex.quote(value)} _o={shlex.quote(was or '')}")
        lines.append(
            f'case "${{{name}-}}" in *"$_v"*) '
            f'{name}="${{{name}%%"$_v"*}}$_o${{{name}#*"$_v"}}" ;; esac'
        )
        if was is None:
            lines.append(f'[ -n "${{{name}-}}" ] || unset {name}')
    lines += ["unset _v _o", 'exec "$@"', ""]
    return "\n".join(lines)


def write(path: Path, added: Mapping[str, str], base: Mapping[str, str]) -> None:
    """Write the `-exec` program (`script`) at `path`, executable and readable by all (the
    commands' user runs it; the observer's folder is fixbot's alone to write). Raises OSError,
    ValueError (`script`)."""
    path.write_text(script(added, base), encoding="utf-8")
    path.chmod(0o755)
