"""Bounded, redacted command logs: keep a head and a tail of the output, redact while streaming.

A command may write any amount of output (`yes` writes gigabytes before its timeout). The log
keeps at most `max_bytes`: the first half as it arrives (redacted line by line and written at
once), the last half in a ring buffer written when the command ends, and between them one line
`[fixbot] N bytes of output dropped here ...`. Memory is constant: the ring buffer, one line
(at most `max_line` bytes: a longer line is cut and the rest of it dropped, counted) and one read
chunk. Bytes that are not UTF-8 pass through unchanged (surrogateescape).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

Redact = Callable[[str], str]
DEFAULT_MAX_LINE = 64 * 1024  # bytes of one line kept before the line is cut
NOTE_PREFIX = "[fixbot]"


def _identity(text: str) -> str:
    return text


class LineWriter:
    """Write complete lines to `sink`, each passed through `redact`; cut lines over `max_line`.

    `cut_bytes` counts the bytes dropped from cut lines. Call `close()` to flush a final line
    that has no newline.
    """

    def __init__(self, sink: BinaryIO, redact: Redact | None, max_line: int) -> None:
        self.sink = sink
        self.redact = redact or _identity
        self.max_line = max_line
        self.pending = bytearray()
        self.skipping = False
        self.cut_bytes = 0
        self.written = 0

    def write(self, data: bytes) -> None:
        """Feed `data` (any split of the byte stream)."""
        view = memoryview(data)
        while view:
            if self.skipping:
                at = bytes(view).find(b"\n")
                if at < 0:
                    self.cut_bytes += len(view)
                    return
                self.cut_bytes += at  # the newline itself ends the cut line
                view = view[at + 1 :]
                self.skipping = False
                continue
            view = self._take(view)

    def _take(self, view: memoryview) -> memoryview:
        """Consume complete lines from `view`; keep a partial one; return what is left."""
        last = bytes(view).rfind(b"\n")
        if last < 0:
            room = self.max_line - len(self.pending)
            if len(view) <= room:
                self.pending += view
                return view[len(view) :]
            self.pending += view[:room]
            self._cut()
            return view[room:]
        block = bytes(self.pending) + bytes(view[: last + 1])
        self.pending.clear()
        self._emit_block(block)
        return view[last + 1 :]

    def _emit_block(self, block: bytes) -> None:
        """Write a run of complete lines, cutting any that is longer than `max_line`."""
        if len(block) <= self.max_line or max(map(len, block.split(b"\n"))) <= self.max_line:
            self._emit(block)
            return
        for line in block.split(b"\n")[:-1]:
            if len(line) <= self.max_line:
                self._emit(line + b"\n")
            else:
                self.cut_bytes += len(line) - self.max_line
                self._emit(line[: self.max_line] + self._cut_note())

    def _cut(self) -> None:
        """The pending line reached `max_line`: write it with a note, drop the rest of it."""
        self._emit(bytes(self.pending) + self._cut_note())
        self.pending.clear()
        self.skipping = True

    def _cut_note(self) -> bytes:
        return f" {NOTE_PREFIX} line cut at {self.max_line} bytes\n".encode()

    def _emit(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "surrogateescape")
        out = self.redact(text).encode("utf-8", "surrogateescape")
        self.sink.write(out)
        self.written += len(out)

    def close(self) -> None:
        """Flush the last line (no newline added)."""
        if self.pending:
            self._emit(bytes(self.pending))
            self.pending.clear()
        self.skipping = False


class BoundedLog:
    """The log of one command: head written as it comes, tail kept in memory, both redacted.

    `max_bytes` bounds the output kept (half head, half tail; the notes and redaction marks
    come on top); `total` counts every byte fed; after `close()`, `dropped` is the number of
    output bytes not in the log (the middle, and the rest of cut lines).
    """

    def __init__(
        self, sink: BinaryIO, max_bytes: int, redact: Redact | None, max_line: int
    ) -> None:
        self.head_limit = max_bytes // 2
        self.tail_limit = max_bytes - self.head_limit
        self.writer = LineWriter(sink, redact, max_line)
        self.total = 0
        self.head = 0
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        """Add output bytes."""
        self.total += len(chunk)
        if self.head < self.head_limit:
            take = chunk[: self.head_limit - self.head]
            self.head += len(take)
            self.writer.write(take)
            chunk = chunk[len(take) :]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def close(self) -> None:
        """Write the tail (after a note of the dropped bytes, when any) and flush."""
        if len(self.tail) > self.tail_limit:
            del self.tail[: len(self.tail) - self.tail_limit]
        middle = self.total - self.head - len(self.tail)
        tail = bytes(self.tail)
        if middle > 0:
            newline = tail.find(b"\n")
            skip = newline + 1 if 0 <= newline < len(tail) - 1 else 0
            middle += skip
            tail = tail[skip:]
            self.writer.close()
            self.writer.sink.write(
                f"\n{NOTE_PREFIX} {middle} bytes of output dropped here "
                f"(max-log-bytes keeps {self.head_limit + self.tail_limit} bytes: "
                "the first half and the last half)\n".encode()
            )
        self.writer.write(tail)
        self.writer.close()
        self.dropped = max(0, middle) + self.writer.cut_bytes
        self.tail = bytearray()


def read_tail(path: Path, size: int) -> str:
    """The last `size` bytes of `path`, decoded as UTF-8 with errors replaced ('' if size <= 0)."""
    if size <= 0:
        return ""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - size))
        return handle.read().decode("utf-8", errors="replace")
