"""The bench's cache of downloads and environments: where it is, the lock parallel prepares
take on its entries, and what of our environment the steps that fill it run with.

`cache_root()` is `~/.cache/fixbot/bench/`, or `FIXBOT_BENCH_CACHE`; `fixbot.bench.releases`
fills its `archives/`, `fixbot.bench.environments` its `envs/`, `fixbot.bench.prepare` its
`work/`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from fixbot.bench.archives import PrepareError

# what of our environment a download or install step, and a case's check, is given
PASSED = ("HOME", "LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CERT")
PASSED_PROXY = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


def cache_root() -> Path:
    """`FIXBOT_BENCH_CACHE`, else `~/.cache/fixbot/bench`."""
    given = os.environ.get("FIXBOT_BENCH_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "fixbot" / "bench"


def program(name: str, advice: str) -> str:
    """The absolute path of `name` on PATH. Raises `PrepareError` giving `advice` without it."""
    found = shutil.which(name)
    if not found:
        raise PrepareError(f"{name} is not on PATH: {advice}")
    return found


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (parallel prepares share one cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
