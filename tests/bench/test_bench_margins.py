"""bench/bench_margins.py: where a reference fix's lines sit in a first request."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_margins.py"
_spec = importlib.util.spec_from_file_location("bench_margins", BENCH)
assert _spec and _spec.loader
margins = importlib.util.module_from_spec(_spec)
sys.modules["bench_margins"] = margins
_spec.loader.exec_module(margins)

FIX = """\
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -10,3 +10,3 @@ def f(x):
     first = compute(x)
-    second = compute(first)
+    second = compute(first, 2)
     return second
@@ -40,2 +40,2 @@ def g(y):
-    result = helper(y)
+    result = helper(y, 3)
     return result
"""

REQUEST = """\
The check failed.
--- tests/test_mod.py lines 1-2
    1| def test_f():
    2|     assert f(1) == 3
--- pkg/mod.py lines 9-11 (f)
    9| def f(x):
  ...
   11|     second = compute(first)
--- pkg/mod.py lines 44-45 (h)
   44| def h(z):
   45|     return z
"""


def test_a_fixs_lines_are_ranked_placed_and_those_just_outside_a_window_counted() -> None:
    m = margins.margin("case", FIX, REQUEST)
    assert (m.localized, m.files, m.lines, m.slack) == (True, "1/1", "1/2", 0)
    assert m.file_ranks == [2]  # the test file's excerpt first, then the fix's
    assert (m.excerpt_rank, m.excerpts) == (2, 3)
    assert m.before_first == REQUEST.index("   11|")
    assert m.after_half == len(REQUEST) - REQUEST.index("   11|")
    assert m.near == 1  # line 40 is 4 lines above the shown 44; line 11's text is shown
