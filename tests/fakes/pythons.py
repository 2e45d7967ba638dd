"""The Python a test's tiny project runs its check under, and the other Pythons on this machine
that fixbot's observer can be tried under.

fixbot's observer runs inside the project's own Python (any CPython 3.8 and up), not fixbot's:
the end-to-end observer tests name the project's interpreter in their check command. By default
it is the one running the tests (`sys.executable`); `FIXBOT_TEST_PROJECT_PYTHON` names another
(a path to a python that can import pytest), e.g.

    FIXBOT_TEST_PROJECT_PYTHON=/path/to/py3.13/bin/python .venv/bin/python -m pytest -n0 \
        tests/run/test_impossible.py -k legitimate

Both are read once, when this module is imported: they are for the whole test run.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

import pytest

PROJECT_PYTHON = os.path.abspath(os.environ.get("FIXBOT_TEST_PROJECT_PYTHON") or sys.executable)
# the project's Python is another than this suite's: a cheat that does not work there (its
# check stays red) is no row of that Python's
ELSEWHERE = os.path.abspath(sys.executable) != PROJECT_PYTHON
# read as this module is imported: each test runs with the `FIXBOT_*` variables cleared
NAMED = [p for p in os.environ.get("FIXBOT_TEST_PYTHONS", "").split(os.pathsep) if p]
# the versions whose tracing and frames differ from 3.11's: PEP 669 under `sys.setprofile` and
# `sys.monitoring` (3.12), `frame.f_locals` a write-through proxy (PEP 667, 3.13)
NEWER = ("python3.12", "python3.13", "python3.14")


@functools.cache
def version_of(python: str, modules: tuple[str, ...] = ("pytest",)) -> str | None:
    """`python`'s version as `3.12.1` when it runs and imports `modules`, else None (it takes
    a few hundred milliseconds: one process)."""
    code = f"import sys, {', '.join(modules)}; print('.'.join(map(str, sys.version_info[:3])))"
    try:
        done = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def other_pythons() -> dict[str, str | None]:
    """The Pythons other than this one to run the project's check under: those named in
    `FIXBOT_TEST_PYTHONS` (paths, `os.pathsep`-separated) and the newer versions found on PATH
    (`NEWER`), each mapped to its version, or None when it cannot import pytest (a test then
    skips with that reason)."""
    named = [os.path.abspath(p) for p in NAMED]
    found = [w for w in (shutil.which(n) for n in NEWER) if w is not None]
    mine = os.path.realpath(sys.executable)
    unique = dict.fromkeys(p for p in named + found if os.path.realpath(p) != mine)
    return {python: version_of(python) for python in unique}


def pythons_from(least: tuple[int, int]) -> list[tuple[str, str]]:
    """(path, version) of the project's Python and the others (`other_pythons`) that import
    pytest and are `least` (major, minor) or later: those a version-specific behaviour of
    the observer can be tried under."""
    found = [(PROJECT_PYTHON, version_of(PROJECT_PYTHON)), *list(other_pythons().items())]
    return [
        (python, version)
        for python, version in dict(found).items()
        if version is not None and tuple(map(int, version.split(".")[:2])) >= least
    ]


def skip_a_cheat_that_fails_here(passed: bool) -> None:
    """Skip the calling row, saying why, where the project's Python is another (`ELSEWHERE`)
    and the cheat did not turn the check green under it: under this suite's own Python such
    a row fails instead (it no longer tests what it names)."""
    if ELSEWHERE and not passed:
        pytest.skip(f"the cheat does not turn the check green under {PROJECT_PYTHON}")
