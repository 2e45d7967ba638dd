"""Where the tests find the repository and its vendored data, wherever a test module lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # the repository's root
DATA = ROOT / "tests" / "data"  # vendored public data (see tests/data/README.md)
