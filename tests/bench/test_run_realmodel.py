"""A real small model (SmolLM2-135M served by llama-cpp-python, as in tests/test_realmodel_e2e.py)
completes a bench run bounded and honest: the case ends with a grade for each runner (fixbot and
the one-request baseline), within its budget of attempts and tokens, and its model calls are
bounded by the budget. A 135M model rarely fixes anything; the grades are whatever the final
trees say. One case: a second one asked nothing new of the bench and doubled the module's time
(434 s under load at stop 35, the suite's longest test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.bench.run import Budget, Grade, Options, Runner, run_all
from tests.bench.cases import stats_case
from tests.test_realmodel_e2e import REQUEST_TIMEOUT_S

# the model server fixture, imported under its own name so pytest finds it in this module
from tests.test_realmodel_e2e import llama_server as llama_server

pytestmark = [pytest.mark.slow, pytest.mark.realmodel]

ATTEMPTS = 1
MAX_TOOL_CALLS = 30  # the default: the run's own bound, not the test's
# attempt 1's tool loop and the self-review or escalation analysis, each with its retries
MAX_CALLS = ATTEMPTS * (MAX_TOOL_CALLS + 2) + 4


def test_smollm2_completes_a_bench_run_within_its_budget(
    tmp_path: Path,
    llama_server: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, _ = llama_server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-no-key-local-server")
    budget = Budget(attempts=ATTEMPTS, tokens=60_000, usd=0.01, seconds=60)
    options = Options(
        model="openai/smollm2",
        api_base=base,
        edit_protocol="text",
        budget=budget,
        request_timeout=REQUEST_TIMEOUT_S,
    )
    jobs = [stats_case(tmp_path / "a")]
    results = run_all(jobs, [Runner.FIXBOT, Runner.BASELINE], options, workers=1)
    assert sorted(r.runner for r in results) == sorted([Runner.FIXBOT, Runner.BASELINE])
    for r in results:
        assert r.grade in (Grade.FIXED, Grade.WRONG, Grade.ESCALATED), (r.id, r.reason)
        assert r.over_budget == [], (r.id, r.over_budget)
        assert 1 <= r.model_calls <= MAX_CALLS
        if r.grade is Grade.FIXED:  # honest: a fix is one the hidden tests confirm
            assert r.check_passes and r.hidden_passes
