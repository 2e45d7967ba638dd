"""Cancellation: a cancelled workflow sends SIGTERM; the run stops at once and saves its state."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from fixbot.core.errors import Cancelled

__all__ = ["Cancelled", "sigterm_cancels"]


@contextmanager
def sigterm_cancels() -> Iterator[None]:
    """While active, SIGTERM raises `Cancelled` in the main thread (a cancelled workflow)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Cancelled(
            f"cancelled (signal {signum}); the state is saved: run the same command to continue"
        )

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
