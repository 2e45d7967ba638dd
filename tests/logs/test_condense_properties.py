"""Property tests (hypothesis) for log condensing (`fixbot.logs.condense`): any bytes condense
without
an error, within the byte bound, without ANSI codes; the error lines survive when they fit; and
the result does not depend on how the stream delivers the log."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from fixbot.logs.condense import (
    GAP_BYTES,
    clean,
    condense_file,
    condense_stream,
    condense_text,
    error_lines,
    is_summary,
)

FAST = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no explain: slow
)

name = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
number = st.integers(0, 99_999).map(str)
# Lines of real check output: error, summary and marker lines of many tools, and noise.
TEMPLATES = (
    "E       assert {n} == {m}",
    "E   {W}Error: {w}",
    "FAILED tests/test_{w}.py::test_{v} - assert {n} == {m}",
    "FAILED",
    "ERROR: {w}",
    "{W}Error: {w} {v}",
    "{w}.py:{n}: error: Name {v!r} is not defined  [name-defined]",
    "src/{w}.c:{n}:{m}: error: {v} undeclared",
    "src/{w}.ts({n},{m}): error TS2322: {v}",
    "{w}.py:{n}:{m}: F401 [*] `{v}` imported but unused",
    "error[E0308]: mismatched types",
    "--- FAIL: Test{W} (0.{n}s)",
    "npm ERR! {w}",
    "\u25cf {W} \u203a {v}",
    "panic: {w}",
    "make: *** [{w}] Error 1",
    "=== {n} failed, {m} passed in 0.{n}s ===",
    "Found {n} errors in {m} files (checked {n} source files)",
    "Ran {n} tests in 0.{m}s",
    "____________ test_{w} ____________",
    "Traceback (most recent call last):",
    '  File "{w}.py", line {n}, in {v}',
    ">       assert {w}({v}) == {n}",
    ">",
    "{w}.py:{n}",
    "  --> src/{w}.rs:{n}:{m}",
    "tests/test_{w}.py::test_{v} PASSED [ {n}%]",
    "2024-05-01 12:00:00,{n} INFO {w}: item {m} done",
    "collecting ... {w}",
    "    {w} = {v}({n})",
    "",
)
ANSI_CODES = ("\x1b[31m", "\x1b[0m", "\x1b[1m\x1b[31m", "\x1b[1;31m", "\x1b[K", "\x1b[2K")


@st.composite
def log_line(draw: st.DrawFn, ansi: bool = True, progress: bool = True) -> str:
    """One line of a check's output, maybe coloured, after a `\\r` progress bar, or long."""
    w, v = draw(name), draw(name)
    n, m = draw(number), draw(number)
    line = draw(st.sampled_from(TEMPLATES)).format(w=w, v=v, W=w.capitalize(), n=n, m=m)
    if draw(st.integers(0, 9)) == 0:
        line += " " + "x" * draw(st.integers(100, 3000))  # longer than a kept line
    if ansi and draw(st.booleans()):
        code = draw(st.sampled_from(ANSI_CODES))
        cut = draw(st.integers(0, len(line)))
        line = code + line[:cut] + draw(st.sampled_from(ANSI_CODES)) + line[cut:] + "\x1b[0m"
    if progress and draw(st.integers(0, 5)) == 0:
        line = f"{draw(number)}%|####  | {draw(number)}/100\r" + line  # overwritten by the line
    return line


def log(ansi: bool = True, progress: bool = True) -> st.SearchStrategy[str]:
    """A log of 0 to 300 lines, `\\n` or `\\r\\n` line endings, maybe without a final newline."""
    return st.builds(
        lambda lines, end, last: end.join(lines) + last,
        st.lists(log_line(ansi, progress), max_size=300),
        st.sampled_from(("\n", "\r\n")),
        st.sampled_from(("", "\n")),
    )


any_bytes = st.lists(
    st.one_of(
        st.binary(max_size=200),
        log_line().map(str.encode),
        st.sampled_from((b"\n", b"\r", b"\r\n", b"\x00", b"\xff\xfe", b"\xc3(", b"\x1b[", b"\x1b")),
        st.integers(500, 20_000).map(lambda n: b"y" * n),  # a line longer than MAX_LINE_BYTES
    ),
    max_size=60,
).map(b"".join)


class ShortReads(io.BytesIO):
    """A stream whose `read` returns fewer bytes than asked, in the given sizes (like a pipe)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        super().__init__(data)
        self.sizes, self.turn = sizes, 0

    def read(self, size: int | None = -1) -> bytes:
        step = self.sizes[self.turn % len(self.sizes)]
        self.turn += 1
        return super().read(step if size is None or size < 0 else min(step, size))


def condense_bytes(data: bytes, max_bytes: int, tail_lines: int) -> tuple[str, str]:
    """`data` condensed from a file (as `fixbot.logs.digest` does, and without the diagnostics
    callback: the same text) and from a stream."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "check.log"
        path.write_bytes(data)
        whole = condense_file(path, max_bytes=max_bytes, tail_lines=tail_lines)
        found: list[bytes] = []
        digested = condense_file(
            path, max_bytes=max_bytes, tail_lines=tail_lines, on_diagnostic=found.append
        )
    assert digested == whole
    return whole, condense_stream(io.BytesIO(data), max_bytes=max_bytes, tail_lines=tail_lines)


@settings(FAST, max_examples=150)
@given(any_bytes, st.integers(0, 4_000), st.integers(0, 50))
@example(b"\x00", 0, 0)  # the gap marker alone is longer than the bound
def test_any_bytes_condense_within_the_bound(data: bytes, max_bytes: int, tail_lines: int) -> None:
    whole, streamed = condense_bytes(data, max_bytes, tail_lines)
    for out in (whole, streamed):
        assert isinstance(out, str) and len(out.encode()) <= max_bytes
    text = data.decode("utf-8", errors="replace")
    assert len(condense_text(text, max_bytes=max_bytes).encode()) <= max_bytes


@settings(FAST, max_examples=100)
@given(log(), st.integers(200, 6_000))
@example("\x1b[1;31m" * 400 + "E   boom\n", 12_000)  # the 2,000-byte cut split a code
def test_no_ansi_code_reaches_the_condensed_text(text: str, max_bytes: int) -> None:
    out = condense_text(text, max_bytes=max_bytes, tail_lines=10)
    assert "\x1b" not in out and len(out.encode()) <= max_bytes


MARKERS = "tests/test_x.py:12\n" * 300  # marker lines, enough to fill any bound


def key_errors(text: str) -> tuple[list[str], int]:
    """The cleaned lines of `text` that state an error, and the bytes that the error and summary
    lines (the first priority) cost in `fixbot.logs.condense.render`: each line, a newline and a gap
    marker, plus the marker at the end."""
    errors, cost = [], GAP_BYTES
    for raw in text.encode().split(b"\n"):
        line = clean(raw)
        if error_lines(line):
            errors.append(line)
        if error_lines(line) or is_summary(line):
            cost += len(line.encode()) + 1 + GAP_BYTES
    return errors, cost


@settings(FAST, max_examples=150)
@given(log(), st.integers(500, 12_000))
@example(">\nE       assert 1 == 2\n" + MARKERS, 500)  # `>\s` took the newline
@example("FAILED\r\n" + MARKERS.replace("\n", "\r\n"), 500)  # `$` is not before \r\n
@example("50%|####  |\rE       assert 1 == 2\n" + MARKERS, 500)  # a progress bar first
@example("  \x1b[31mE       assert 1 == 2\n" + MARKERS, 500)  # colour after the indent
def test_every_error_line_survives_when_the_error_lines_fit(text: str, max_bytes: int) -> None:
    errors, cost = key_errors(text)
    out = condense_text(text, max_bytes=max_bytes, tail_lines=5)
    kept = out.splitlines()
    if cost <= max_bytes:
        assert [line for line in errors if line not in kept] == []
    assert error_lines(out) == [line for line in error_lines(out) if line in errors]


@settings(FAST, max_examples=100)
@given(log(), st.integers(300, 8_000), st.lists(st.integers(1, 500), min_size=1, max_size=8))
def test_the_result_does_not_depend_on_how_the_stream_is_read(
    text: str, max_bytes: int, sizes: list[int]
) -> None:
    data = text.encode()
    seen: list[list[bytes]] = [[], [], []]
    results = [
        condense_stream(stream, max_bytes=max_bytes, tail_lines=10, on_diagnostic=found.append)
        for stream, found in zip(
            (io.BytesIO(data), io.BytesIO(data), ShortReads(data, sizes)), seen, strict=True
        )
    ]
    assert results[0] == results[1] == results[2]  # deterministic, whatever the read sizes
    assert seen[0] == seen[1] == seen[2]  # the diagnostics handed to `fixbot.logs.facts` too


@settings(FAST, max_examples=60)
@given(log(), st.integers(300, 8_000))
def test_file_and_text_agree(text: str, max_bytes: int) -> None:
    whole, _ = condense_bytes(text.encode(), max_bytes, 40)
    assert whole == condense_text(text, max_bytes=max_bytes)
