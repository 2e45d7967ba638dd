"""Benchmark: the cost of one `assertEqual` probe call (`fixbot/observe/unittest_equal.py`
`_comparer`'s `compared`), the place of each operand's class decided at every call (`_place`).

Run: .venv/bin/python bench/bench_unittest_equal.py [--calls 20000] [--src CHECKOUT]
`--src` a fixbot checkout whose `fixbot.observe.unittest_equal` is timed (this one by default:
another's, main's, to compare). Timed: `compared(test, value, 4)` called `--calls` times for a
work-tree class with an `__eq__` of its own, `mock.ANY` (a library's, skipped) and a built-in
int (nothing to ask); after the first call the probe's key is known, so the time is the part
every call pays. Printed: microseconds per call.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import timeit
import types
import unittest
import unittest.mock as mock
from pathlib import Path

FIELD = """\
class Field:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return self.value == other

    __hash__ = object.__hash__
"""


class _Case(unittest.TestCase):
    def test_a(self) -> None:
        """A test to name the probe's records."""


def main() -> None:
    """Time `compared` per call for three operands and print microseconds per call."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parent.parent))
    args = parser.parse_args()
    sys.path.insert(0, args.src)
    from fixbot.observe import unittest_equal as equal

    root = tempfile.mkdtemp() + "/"
    Path(root, "app.py").write_text(FIELD)
    app = types.ModuleType("app")
    app.__file__ = root + "app.py"
    sys.modules["app"] = app
    exec(compile(FIELD, app.__file__, "exec"), vars(app))
    test = _Case("test_a")
    print(f"timed: {equal.__file__}")
    for label, value in (("work-tree class", app.Field(4)), ("mock.ANY", mock.ANY), ("int", 4)):
        compared = equal._comparer(root)
        took = timeit.timeit(lambda v=value, c=compared: c(test, v, 4), number=args.calls)
        print(f"{label}: {took / args.calls * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
