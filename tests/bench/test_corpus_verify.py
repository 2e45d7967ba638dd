"""`fixbot bench --verify` on the whole shipped corpus (slow: downloads and environments on the
first run, cached under FIXBOT_BENCH_CACHE or ~/.cache/fixbot/bench afterwards).

Without network a case cannot be prepared: outside CI that skips the test, under `CI=true` it
fails, so CI never passes with a corpus it did not check.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixbot.bench.corpus import CORPUS, load_corpus
from fixbot.bench.prepare import cache_root
from fixbot.bench.verify import verify_all

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
CACHE = cache_root()  # read before conftest.py gives each test a throw-away HOME


@pytest.mark.slow
def test_every_case_of_the_corpus_holds() -> None:
    verdicts = verify_all(load_corpus(CORPUS), Path(CACHE))
    unreachable = [v for v in verdicts if any("cannot be reached" in p for p in v.problems)]
    if unreachable and not IN_CI:
        pytest.skip(f"{len(unreachable)} case(s) need a registry this machine cannot reach")
    failed = {v.case.id: v.problems for v in verdicts if not v.ok}
    assert failed == {}
