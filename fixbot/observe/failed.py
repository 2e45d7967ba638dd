"""The comparison a test's failing assertion made, in every run (the start's run says what
its failing tests compared, which `fixbot.observe.turned` compares the verifying run's with):
`failed_hook`, pytest's `pytest_assertrepr_compare`, streaming the operands' type shapes
(`shapes.py`) of the body's comparison that failed, found by `operands.operand_sources`.

Copied beside the plugin as `<module>_failed` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `operands` part
alone; what its functions use is held as positional defaults, made once at load (the code under
test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_failed`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


operands = _sibling("operands")  # where a body's comparisons read their operands


def failed_hook(
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
    current: list[Any],
) -> Callable[..., Any]:
    """`pytest_assertrepr_compare`, which pytest's rewritten assertion calls when a comparison
    failed: where the frame that compared is the body of the test being called (`current`:
    `[test id, the body's code]`, set by the hook around each call; by identity), streams
    `{"k": "fail", "id": test, "line": n, "op": op, "s": [shape, shape]}` (`n` the line the
    code's line table gives that comparison, as the trace function names it). Returns None, so
    pytest's own explanation stands. A comparison of a helper the body called, or of an
    operator other than a rich comparison or a containment (`is`), is not streamed. A
    containment's item is read as `==`'s operand, its container by its `__contains__`
    (`shapes.SIDES`)."""

    def pytest_assertrepr_compare(
        config: Any,
        op: str,
        left: Any,
        right: Any,
        _send: Any = send,
        _shape: Any = shape,
        _current: list[Any] = current,
        _getframe: Any = sys._getframe,
        _deciders: Mapping[str, tuple[str, ...]] = operands.DECIDERS,
        _sources: Any = operands.operand_sources,
        _values: Any = operands.reading._values,
        _sorted: Any = sorted,
        _sides: Mapping[str, tuple[str, str]] = operands.SIDES,
    ) -> None:
        if _current[0] is None or _current[1] is None or op not in _deciders:
            return None
        frame = _getframe(1)
        # pytest's `_call_reprcompare` is called by the frame that compared
        while frame is not None and frame.f_code.co_name != "_call_reprcompare":
            frame = frame.f_back
        body = frame.f_back if frame is not None else None
        if body is None or body.f_code is not _current[1]:
            return None
        # the comparison that failed: the body's whose operands, as its frame holds them now
        # (the assertion's names are cleared only once it passed), are these, by identity
        for _, (kind, sources, line) in _sorted(_sources(body.f_code).items()):
            values = _values(body, sources) if kind == op else None
            if values and values[0] is left and values[1] is right:  # not None, nor False
                sides = _sides.get(op, (op, op))
                shapes = [_shape(left, sides[0]), _shape(right, sides[1])]
                _send({"k": "fail", "id": _current[0], "line": line, "op": op, "s": shapes})
                break
        return None

    return pytest_assertrepr_compare
