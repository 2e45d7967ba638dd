"""The flake record in the run history (format version 2)."""

from __future__ import annotations

from fixbot.github.publish import memory
from fixbot.github.publish.memory import Rerun, Verdict


def rerun(run: int = 7) -> Rerun:
    return Rerun(run=run, sha="a" * 40, why="network", at=1_700_000_000, url="https://x/7")


def test_a_version_1_block_reads_as_version_2_without_re_runs() -> None:
    found = memory.decode('<!-- fixbot:memory {"v":1,"runs":[]} -->')
    assert (found.v, found.reruns) == (memory.VERSION, [])
    assert '"v":2' in memory.encode(found)


def test_a_re_run_is_settled_once_flaky_or_real() -> None:
    history = memory.add_rerun(memory.History(), rerun())
    flaky = memory.settle(history, 7, passed=True, attempt=2)
    assert flaky is not None and (flaky.verdict, flaky.attempt) == (Verdict.FLAKY, 2)
    real = memory.settle(history, 7, passed=False, attempt=2)
    assert real is not None and real.verdict is Verdict.REAL
    settled = memory.add_rerun(history, flaky)
    assert memory.settle(settled, 7, passed=False, attempt=3) is None  # already settled
    assert memory.settle(history, 8, passed=True, attempt=2) is None  # never re-run


def test_re_runs_survive_the_round_trip_and_are_bounded() -> None:
    history = memory.History()
    for n in range(memory.MAX_RERUNS + 5):
        history = memory.add_rerun(history, rerun(n))
    assert [r.run for r in history.reruns] == list(range(5, memory.MAX_RERUNS + 5))
    assert memory.decode(memory.encode(history)) == history


def test_squeezing_drops_the_oldest_re_runs_last() -> None:
    history = memory.History(reruns=[rerun(n) for n in range(10)])
    kept = memory.decode(memory.encode(history, limit=600))
    assert kept.reruns and kept.reruns[-1].run == 9 and len(kept.reruns) < 10
