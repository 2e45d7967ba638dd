"""Print the cache key of fixbot's virtual environment in the runner mode (runner/action.yml).

The key changes whenever what runner/install.sh would install changes: constraints.txt,
pyproject.toml or any file of the fixbot package (compiled `.pyc` files aside). Standard library
only: it runs under the Python that actions/setup-python provides, before fixbot is installed.

Usage: python runner/cache_key.py PREFIX   (prints PREFIX-<20 hex digits of a SHA-256>)
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def inputs(root: Path) -> list[Path]:
    """The files the key covers, in a stable order."""
    package = [p for p in (root / "fixbot").rglob("*") if p.is_file() and p.suffix != ".pyc"]
    return sorted([root / "constraints.txt", root / "pyproject.toml", *package])


def cache_key(root: Path, prefix: str) -> str:
    """`prefix`-<digest> over the relative path and the bytes of every file of `inputs`."""
    digest = hashlib.sha256()
    for path in inputs(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"{prefix}-{digest.hexdigest()[:20]}"


if __name__ == "__main__":
    print(cache_key(ROOT, sys.argv[1] if len(sys.argv) > 1 else "fixbot-venv"))
