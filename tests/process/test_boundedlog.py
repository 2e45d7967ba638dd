"""Bounded logs: head and tail kept, the middle counted, long lines cut, redaction applied to
whole lines whatever the chunks the output arrives in (constant memory)."""

from __future__ import annotations

import io
import random

import pytest

from fixbot.process.boundedlog import BoundedLog, LineWriter

SECRET = "s3cr3t-value"


def redact(text: str) -> str:
    return text.replace(SECRET, "[REDACTED]")


def write_in_chunks(data: bytes, cuts: list[int], max_line: int = 64) -> tuple[bytes, int]:
    sink = io.BytesIO()
    writer = LineWriter(sink, redact, max_line)
    points = sorted({c % (len(data) + 1) for c in cuts})
    for start, end in zip([0, *points], [*points, len(data)], strict=True):
        writer.write(data[start:end])
    writer.close()
    return sink.getvalue(), writer.cut_bytes


@pytest.mark.parametrize("seed", range(40))
def test_redaction_does_not_depend_on_how_the_output_is_split(seed: int) -> None:
    rng = random.Random(seed)
    cuts = [rng.randrange(0, 80) for _ in range(rng.randrange(0, 12))]
    data = f"start\nkey={SECRET} here\n{SECRET}\nend without newline {SECRET}".encode()
    out, cut = write_in_chunks(data, cuts)
    assert out == data.replace(SECRET.encode(), b"[REDACTED]") and cut == 0


def test_a_line_longer_than_the_buffer_is_cut_and_counted() -> None:
    data = b"short\n" + b"x" * 1000 + b"\nafter\n"
    for cuts in ([], [3, 10, 500, 900], list(range(0, 1010, 7))):
        out, cut = write_in_chunks(data, cuts, max_line=64)
        assert out == b"short\n" + b"x" * 64 + b" [fixbot] line cut at 64 bytes\nafter\n"
        assert cut == 1000 - 64


def test_head_and_tail_are_kept_and_the_middle_counted() -> None:
    lines = b"".join(f"line {n:05d}\n".encode() for n in range(10_000))  # 11 bytes each
    sink = io.BytesIO()
    log = BoundedLog(sink, max_bytes=1100, redact=None, max_line=4096)
    for start in range(0, len(lines), 777):
        log.feed(lines[start : start + 777])
    log.close()
    text = sink.getvalue().decode()
    assert text.startswith("line 00000\n") and text.endswith("line 09999\n")
    assert log.total == len(lines)
    kept = len(text.encode()) - len(text.split("\n[fixbot] ")[1].split("\n", 1)[0]) - 11
    assert log.dropped == len(lines) - kept
    assert f"[fixbot] {log.dropped} bytes of output dropped here" in text
    assert len(text.encode()) < 1100 + 200


def test_small_output_is_kept_whole_without_a_note() -> None:
    sink = io.BytesIO()
    log = BoundedLog(sink, max_bytes=1 << 20, redact=redact, max_line=4096)
    log.feed(f"a {SECRET}\n".encode())
    log.feed(b"b\n")
    log.close()
    assert sink.getvalue() == b"a [REDACTED]\nb\n" and log.dropped == 0
