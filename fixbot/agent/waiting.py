"""Waiting for a model's reply: a hard deadline whatever the HTTP client does, and a heartbeat
while the reply takes long (plain output would otherwise print nothing for minutes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

HEARTBEAT_S = 30.0  # seconds between "still waiting for the model" lines


def within(
    seconds: float,
    call: Callable[[], Any],
    on_timeout: Callable[[], Exception],
    heartbeat: Callable[[float], None] | None = None,
    every: float = HEARTBEAT_S,
) -> Any:
    """`call()`, or raise `on_timeout()` once `seconds` have passed without it returning.

    The call runs in a daemon thread so the wait ends on time whatever the HTTP client does; a
    call still running then is abandoned (its reply, if one comes, is dropped). `heartbeat`
    is called with the seconds waited so far every `every` seconds while the call runs.
    """
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="fixbot-model-request", daemon=True).start()
    started = time.monotonic()
    while not done.is_set():
        left = seconds - (time.monotonic() - started)
        if left <= 0:
            raise on_timeout()
        if not done.wait(min(left, every)) and heartbeat and left > every:
            heartbeat(time.monotonic() - started)
    if "error" in box:
        raise box["error"]
    return box["value"]


def quiet(text: str) -> None:
    """Drop a progress line (the default `notify`)."""
