"""One way the fake servers serve: a daemon thread that stops at once.

`socketserver.BaseServer.serve_forever` checks for `shutdown()` every `poll_interval` seconds
(0.5 by default), so every test that stopped a fake server waited up to half a second. At 10 ms
the wait is negligible and the idle cost is about a hundred wake-ups a second per live server.
"""

from __future__ import annotations

import threading
from socketserver import BaseServer

POLL_INTERVAL_S = 0.01


def serve(server: BaseServer) -> threading.Thread:
    """A daemon thread that serves `server` until `server.shutdown()` (not started)."""
    return threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True
    )
