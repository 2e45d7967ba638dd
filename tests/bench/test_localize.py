"""The localization measure over reference fixes (pure)."""

from __future__ import annotations

from fixbot.bench.localize import measure, request_text, targets

FIX = """diff --git a/pkg/core.py b/pkg/core.py
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,4 +1,4 @@
 def mean(values):
     if not values:
         return 0.0
-    return total(values) / (len(values) + 1)
+    return total(values) / len(values)
@@ -10,2 +10,3 @@
 def spread(values):
     low = min(values)
+    return max(values) - low
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+X = 1
"""


def test_targets_are_the_removed_lines_and_the_line_before_an_insertion() -> None:
    found = targets(FIX)
    assert found.files == {
        "pkg/core.py": ["return total(values) / (len(values) + 1)", "low = min(values)"]
    }  # a new file is no target: it cannot be shown before it exists


def test_a_request_with_the_file_and_half_the_lines_localizes() -> None:
    shown = measure(FIX, "pkg/core.py:4\n    return total(values) / (len(values) + 1)")
    assert shown.localized and shown.lines_shown == 1 and shown.lines == 2
    assert not measure(FIX, "pkg/core.py was mentioned, no line").localized
    assert not measure(FIX, "return total(values) / (len(values) + 1)\nlow = min(values)").localized


def test_request_text_joins_every_message() -> None:
    body = {"messages": [{"role": "system", "content": "a"}, {"role": "user", "content": "b"}]}
    assert request_text(body) == "a\nb"


def _fix_request(text: str, *earlier: dict[str, object]) -> dict[str, object]:
    tools = [{"type": "function", "function": {"name": n}} for n in ("read_file", "finish")]
    opening = [{"role": "system", "content": "rules"}, {"role": "user", "content": text}]
    return {"messages": [*opening, *earlier], "tools": tools}


def _names(reply: dict[str, object]) -> list[str]:
    calls = reply.get("tool_calls") or []
    assert isinstance(calls, list)
    return [c["function"]["name"] for c in calls]


def test_the_oracle_reads_the_files_first_when_the_first_request_did_not_show_them() -> None:
    from fixbot.bench.oracle import reference_answer

    answer = reference_answer({"pkg/core.py": "fixed"}, FIX)
    shown = "pkg/core.py\nreturn total(values) / (len(values) + 1)\nlow = min(values)"
    assert _names(answer(_fix_request(shown))) == ["write_file", "finish"]  # localized
    first = answer(_fix_request("tests/test_core.py:4: AssertionError"))
    assert _names(first) == ["read_file"]  # a model has to see the code it changes
    read = {"role": "tool", "tool_call_id": "1", "content": "1| def mean(values):"}
    after = answer(_fix_request("tests/test_core.py:4", first, read))
    assert _names(after) == ["write_file", "finish"]  # what it read is no first request
    wrote = answer(_fix_request("tests/test_core.py:4", first, read, after, read))
    assert _names(wrote) == ["finish"]
    assert _names(reference_answer({"pkg/core.py": "fixed"})(_fix_request("x"))) == [
        "write_file",
        "finish",
    ]  # without the patch: no reading round
