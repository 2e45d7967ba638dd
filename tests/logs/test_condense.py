"""Condensing logs: the failure's lines kept, order kept, bounded in bytes, streamed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.logs import condense
from fixbot.logs.condense import (
    condense_file,
    condense_stream,
    condense_text,
    error_lines,
    explaining_lines,
)
from tests.fakes.paths import DATA, ROOT

LOGS = DATA / "logs"


def noise(count: int, start: int = 0) -> str:
    """Passing-test and application-log lines, none of them a key line."""
    return "".join(
        f"tests/test_mod.py::test_case_{i} PASSED{' ' * 10}[ {i % 100}%]\n"
        f"2024-05-01 12:00:{i % 60:02d},123 INFO worker: item {i} done in {i % 9}ms\n"
        for i in range(start, start + count)
    )


FAILURE = (
    "___________________________ test_total ___________________________\n"
    "\n"
    "    def test_total():\n"
    ">       assert total([1, 2]) == 3\n"
    "E       assert 4 == 3\n"
    "E        +  where 4 = total([1, 2])\n"
    "\n"
    "tests/test_total.py:9: AssertionError\n"
)
SUMMARY = (
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_total.py::test_total - assert 4 == 3\n"
    "================== 1 failed, 4000 passed in 12.31s ==================\n"
)


def test_keeps_the_failure_and_the_tail_in_order_with_gaps() -> None:
    text = noise(3000) + FAILURE + noise(3000, 3000) + SUMMARY
    out = condense_text(text, tail_lines=5)
    lines = out.splitlines()
    for expected in [*FAILURE.splitlines()[2:6], *SUMMARY.splitlines()]:
        assert expected in lines
    assert lines.index("E       assert 4 == 3") < lines.index(SUMMARY.splitlines()[1])
    assert lines[0] == "… 6000 lines cut"  # the noise before the failure, counted
    assert any(line.startswith("… ") and line.endswith(" lines cut") for line in lines[1:])
    assert "item 10 done" not in out
    assert len(out.encode()) <= condense.MAX_CONDENSED_BYTES


def test_a_small_log_is_returned_whole_without_ansi() -> None:
    text = "\x1b[32mok\x1b[0m line\n\x1b[31mE   assert 1 == 2\x1b[0m\nplain\n"
    assert condense_text(text) == "ok line\nE   assert 1 == 2\nplain"


def test_ansi_is_stripped_from_condensed_lines() -> None:
    text = noise(2000) + "\x1b[1m\x1b[31mE       assert 4 == 3\x1b[0m\n" + noise(2000, 2000)
    out = condense_text(text)
    assert "E       assert 4 == 3" in out.splitlines()
    assert "\x1b" not in out


@pytest.mark.parametrize("max_bytes", [200, 1000, 5000])
def test_bounded_with_error_lines_first(max_bytes: int) -> None:
    errors = "".join(f"E       assert {i} == {i + 1}\n" for i in range(5))
    text = errors + noise(500) + "".join(f"tail line {i}\n" for i in range(100))
    out = condense_text(text, max_bytes=max_bytes)
    assert len(out.encode()) <= max_bytes
    kept_errors = [line for line in out.splitlines() if line.startswith("E ")]
    assert kept_errors == errors.splitlines()[: len(kept_errors)]
    # the first costs 22 bytes + a gap marker's 24, the next ones (adjacent) 22 each; one
    # marker's room is kept for the end
    assert len(kept_errors) == min(5, max(0, (max_bytes - 2 * condense.GAP_BYTES) // 22))
    if max_bytes >= 1000:
        assert "tail line 99" in out


def test_non_utf8_bytes_are_replaced(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    log.write_bytes(noise(1000).encode() + b"E   assert b'\xff\xfe' == b''\n" + b"\xc3(\n" * 5000)
    out = condense_file(log)
    assert "E   assert b'\ufffd\ufffd' == b''" in out.splitlines()


def test_file_and_text_agree(tmp_path: Path) -> None:
    text = noise(4000) + FAILURE + noise(100) + SUMMARY
    log = tmp_path / "c.log"
    log.write_text(text)
    assert condense_file(log) == condense_text(text)


def test_block_size_does_not_change_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (noise(300) + FAILURE) * 20 + SUMMARY
    expected = condense_stream(io.BytesIO(text.encode()))
    assert max(len(line) for line in text.splitlines()) < 100
    for size in (100, 1000, 4096):  # longer than any line: lines are never split
        monkeypatch.setattr(condense, "BLOCK_BYTES", size)
        assert condense_stream(io.BytesIO(text.encode())) == expected


def test_a_huge_line_without_newline_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(condense, "BLOCK_BYTES", 4096)
    text = "E   " + "x" * 1_000_000
    out = condense_stream(io.BytesIO(text.encode()))
    assert len(out.encode()) <= condense.MAX_CONDENSED_BYTES
    assert out.startswith("E   xxx") and condense.CUT in out


KEY_LINES = {
    "assertion.log": "E       assert 4 == 3",
    "assertion-cargo.log": "assertion `left == right` failed",
    "assertion-jest.log": "\u25cf Cart \u203a applies the discount once",
    "assertion-unittest.log": "AssertionError: 2 != 3",
    "compile.log": "error[E0308]: mismatched types",
    "compile-gcc.log": "m.c:4:12: error: \u2018y\u2019 undeclared (first use in this function)",
    "exception.log": "panic: runtime error: index out of range [3] with length 3 [recovered]",
    "lint.log": "F401 [*] `os` imported but unused",
    "lint-eslint.log": "3:10  error  'formatPrice' is defined but never used",
    "name.log": "E       NameError: name 'seperator' is not defined",
    "syntax.log": "E   SyntaxError: '[' was never closed",
    "test_failure.log": "--- FAIL: TestSplitFields (0.00s)",
    "type.log": "calc.py:10: error: Incompatible return value type",
    "type-tsc.log": "src/cart.ts(27,5): error TS2322",
}


@pytest.mark.parametrize("name", sorted(KEY_LINES))
def test_each_tools_error_line_survives_in_a_large_log(name: str) -> None:
    sample = (LOGS / name).read_text()
    out = condense_text(noise(3000) + sample + noise(3000, 3000), tail_lines=10)
    assert KEY_LINES[name] in out
    assert KEY_LINES[name] in "\n".join(error_lines(out))


MEMORY_PROBE = """
import json, resource, sys, time
from pathlib import Path
from fixbot.logs.condense import condense_file
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = condense_file(Path(sys.argv[1]))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"extra_kb": after - before, "out": out}))
"""


@pytest.mark.slow
def test_a_large_file_is_streamed_in_bounded_memory(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    block = noise(5000).encode()
    with log.open("wb") as out:
        for i in range(60_000_000 // len(block)):
            out.write(block)
            if i == 7:
                out.write(FAILURE.encode())
        out.write(SUMMARY.encode())
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(log)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    figures = json.loads(done.stdout)
    assert figures["extra_kb"] < 64 * 1024
    assert "E       assert 4 == 3" in figures["out"]
    assert SUMMARY.splitlines()[-1] in figures["out"]


def test_the_report_excerpt_shows_the_lines_that_explain_the_failure() -> None:
    """A long condensed log: the first 25 lines stop before the error; the excerpt keeps the
    `ValueError` line, the code above it and the `FAILED` line, within 25 lines."""
    condensed = condense_file(DATA / "logs" / "exception-quoted-typeerror.log")
    setup = "\n".join(f"collecting module_{i} ... ok" for i in range(40))
    log = f"{setup}\n{condensed}\n" + "\n".join(f"warning {i}" for i in range(5))
    excerpt = explaining_lines(log, 25)
    assert len(excerpt.splitlines()) <= 25
    assert "E       ValueError: bad value a" in excerpt
    assert '>       raise ValueError("bad value " + x)' in excerpt  # the line it points at
    assert "FAILED test_v.py::test_parse - ValueError: bad value a" in excerpt
    assert "ValueError" not in "\n".join(log.splitlines()[:25])  # what the old excerpt showed
    assert explaining_lines("a\nb\n", 25) == "a\nb"  # a short log whole
    assert explaining_lines("\n".join(map(str, range(30))), 3) == "27\n28\n29"  # no error: tail
