"""A line tracer for the coverage spectrum, run inside the project's own Python processes.

Standard library only, and the syntax of CPython 3.8: `fixbot.agent.spectrum` copies this file
as `sitecustomize.py` into a folder of its own put first on the check's PYTHONPATH, so that
every Python process of the check (`pytest`, `python -m unittest`, a tox or nox environment's
interpreter, a subprocess) imports it at start-up (`site`, https://docs.python.org/3/library/site.html)
with the interpreter the project chose, whatever its version. Nothing happens unless
`FIXBOT_TRACE_OUT` (a folder) and `FIXBOT_TRACE_ROOT` (the repository's root as the check saw
it) are both set.

It records, with `sys.settrace` (and `threading.settrace`), which lines of the files under the
root each test ran: a test is a function or method whose name starts with `test` in a file
under the root, and everything a test's frame runs until it returns is that test's (the
`test_function` dynamic context of coverage.py, https://coverage.readthedocs.io/en/latest/contexts.html).
Its context is `<module path, dotted>.<class>.<function>`, with pytest's parametrization
appended when the plugin below names the test (`test_f[1-a]`: each parameter set passes or fails
on its own, so each is a test of the spectrum); lines run outside any test have the context ''.
Files of an installed package (`site-packages`, `dist-packages`) and of a virtual environment
under the root are not traced. Nor is what pytest's own code calls while a test runs (the `repr`
of the values in a failed assertion's message, the `str` of an exception that
`pytest.raises(match=...)` checks), with all it calls: that code runs because the test failed,
or to check it, not as the test's work, and would rank first as the lines only failing tests
ran. At exit each process writes
`FIXBOT_TRACE_OUT/<pid>.json`: `{"tests": [context, ...], "files": {path: {"contexts": {line:
[index, ...]}, "raised": {line: [index, ...]}}}}`,
paths relative to the root, the shape of coverage.py's JSON report with contexts, each context
given by its index in `"tests"` (the names once, however many lines a test ran) and lines run
outside any test left out; `fixbot.agent.tracerank.parse` reads it. `"raised"` holds the lines
an exception passed through (`sys.settrace`'s "exception" event: each frame it leaves or is
caught in, at the line running then), by the same contexts: an error a library catches itself
(a command-line framework turning it into an exit status) leaves no traceback in the output,
and the lines it unwound through are where the test's run went wrong.

CPython stops calling a trace function that raised, and one does when the traced code recurses
past the limit (a `RecursionError` in the code under test, the usual failure of a recursion
bug): every later test would go untraced. So the tracer is armed again at the start of each
test: `unittest.TestCase.run` is wrapped (unittest's tests and pytest's unittest-style ones),
and pytest loads `fixbot_linetrace_plugin` (named in `PYTEST_PLUGINS` by
`fixbot.agent.spectrum`), whose `pytest_runtest_call` re-arms it before each test function and
tells it the test's name (`item.name`, parametrization included).

After installing itself it runs the project's own `sitecustomize`, if one comes later on
`sys.path`, so that a project's start-up code is not lost.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
from types import FrameType
from typing import Any

OUT = os.environ.get("FIXBOT_TRACE_OUT", "")
ROOT = os.environ.get("FIXBOT_TRACE_ROOT", "")
SKIP_PARTS = ("site-packages", "dist-packages", ".tox", ".nox", ".venv", "node_modules")

_hits: dict[str, dict[int, set[str]]] = {}  # path -> line -> the contexts that ran it
_raised: dict[str, dict[int, set[str]]] = {}  # path -> line -> the contexts an exception left by
_files: dict[str, str | None] = {}  # a code object's file name -> its path under the root
_test: list[Any] = [None, ""]  # the running test's frame and context
_item = [""]  # the name pytest gives the next test (`test_f[1-a]`: its parametrization)
_quiet: list[Any] = [None]  # the frame pytest itself called during a test (module docstring)
REPORTER = os.sep + "_pytest" + os.sep  # in the file name of pytest's own code
_root = ""


def _relative(filename: str) -> str | None:
    """`filename` relative to the root when it is a source file under it, else None."""
    if filename in _files:
        return _files[filename]
    found = None
    if filename and not filename.startswith("<"):
        full = os.path.realpath(filename)
        if full.startswith(_root + os.sep) and full.endswith(".py"):
            rel = full[len(_root) + 1 :].replace(os.sep, "/")
            if not any(part in SKIP_PARTS for part in rel.split("/")):
                found = rel
    _files[filename] = found
    return found


def _context(frame: FrameType, rel: str) -> str:
    """`<module>.<class>.<function>` of a test's frame, with pytest's parametrization when the
    plugin named this test (`rearm`): `tests.t.test_f[1-a]`, one context per parameter set."""
    parts = [rel[:-3].replace("/", ".")]
    owner = frame.f_locals.get("self")
    if owner is not None:
        parts.append(type(owner).__name__)
    name = frame.f_code.co_name
    item = _item[0]
    parts.append(item if item.startswith(name + "[") else name)
    return ".".join(parts)


def _local(frame: FrameType, event: str, arg: Any) -> Any:
    if event == "line" or event == "exception":
        rel = _files.get(frame.f_code.co_filename)
        if rel and _quiet[0] is None:
            lines = (_hits if event == "line" else _raised).setdefault(rel, {})
            lines.setdefault(frame.f_lineno, set()).add(_test[1])
    elif event == "return":
        if frame is _quiet[0]:
            _quiet[0] = None
        if frame is _test[0]:
            _test[0], _test[1] = None, ""
    return _local


def _global(frame: FrameType, event: str, arg: Any) -> Any:
    rel = _relative(frame.f_code.co_filename)
    if rel is None:
        return None
    if _test[0] is None:
        if frame.f_code.co_name.startswith("test"):
            _test[0], _test[1] = frame, _context(frame, rel)
    elif _quiet[0] is None and frame.f_back and _reporting(frame.f_back.f_code.co_filename):
        _quiet[0] = frame
    return _local


def _reporting(filename: str) -> bool:
    """Whether `filename` is pytest's own code, installed (not the repository's: pytest's own
    repository is traced as any other)."""
    return REPORTER in filename and _relative(filename) is None


def _write() -> None:
    sys.settrace(None)
    tests: dict[str, int] = {}
    files: dict[str, Any] = {}
    for field, hits in (("contexts", _hits), ("raised", _raised)):
        for rel, lines in hits.items():
            contexts = {}
            for n, ctx in sorted(lines.items()):
                ids = sorted(tests.setdefault(c, len(tests)) for c in ctx if c)
                if ids:
                    contexts[str(n)] = ids
            if contexts:
                files.setdefault(rel, {})[field] = contexts
    path = os.path.join(OUT, f"{os.getpid()}.json")
    try:
        with open(path, "w") as handle:
            # one value a line: the log that carries it back cuts lines longer than 64 KiB
            json.dump(
                {"tests": sorted(tests, key=tests.__getitem__), "files": files}, handle, indent=0
            )
    except OSError:
        pass  # an unwritable folder loses this process's lines, never the check's result


def _chain() -> None:
    """Import the next `sitecustomize` on `sys.path` (the project's or the system's)."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        __import__("sitecustomize")
    except ImportError:
        pass
    except Exception:  # the project's own start-up code failing is the project's to report
        pass
    finally:
        sys.path[:] = saved
        if ours is not None:
            sys.modules["sitecustomize"] = ours


def rearm(item: str = "") -> None:
    """Trace again from here on, with no test running (before each test; see the docstring);
    `item` is the name pytest gives the test about to run (its parametrization in brackets)."""
    if _root:
        _test[0], _test[1], _quiet[0] = None, "", None
        _item[0] = item
        sys.settrace(_global)


def _wrap_unittest() -> None:
    import unittest

    run = unittest.TestCase.run

    def traced_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        rearm()
        return run(self, *args, **kwargs)

    unittest.TestCase.run = traced_run  # type: ignore[method-assign]


def install() -> None:
    """Start tracing this process when both variables are set (module docstring)."""
    global _root
    if not OUT or not ROOT or not os.path.isdir(OUT):
        return
    _root = os.path.realpath(ROOT)
    atexit.register(_write)
    _wrap_unittest()
    threading.settrace(_global)
    sys.settrace(_global)


if __name__ == "sitecustomize":
    install()
    _chain()
    sys.modules.setdefault("fixbot_linetrace", sys.modules[__name__])  # for the pytest plugin
