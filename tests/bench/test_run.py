"""fixbot, the oracle, the deterministic tier and the one-request baseline on real tiny cases
(real git, real pytest, litellm's real HTTP path to a scripted model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixbot.bench.oracle import ScriptedModel, message
from fixbot.bench.run import Grade, Job, Options, Runner, run_all, run_case, verdict
from tests.bench.cases import STATS_BROKEN, STATS_FIXED, slug_case, stats_case, world_case


def test_the_verdict_of_a_final_tree() -> None:
    assert verdict(True, True) is Grade.FIXED
    assert verdict(True, None) is Grade.FIXED  # a case without hidden tests
    assert verdict(True, False) is Grade.WRONG
    assert verdict(False, True) is Grade.ESCALATED
    assert verdict(True, True, "fixed") is Grade.FIXED
    # green, but fixbot did not say it fixed it (e.g. it gave up and the tree happens to pass)
    assert verdict(True, True, "escalated") is Grade.UNCLAIMED
    assert verdict(True, True, "passed") is Grade.UNCLAIMED


@pytest.mark.slow
def test_a_case_whose_check_never_fails_is_graded_never_failed_not_fixed(tmp_path: Path) -> None:
    job = stats_case(tmp_path / "a")
    (job.repo / "stats" / "core.py").write_text(STATS_FIXED)  # the prepared tree is already fixed
    _commit(job.repo)
    for runner in (Runner.ORACLE, Runner.DETERMINISTIC):
        result = run_case(job, runner, Options())
        assert result.grade is Grade.NEVER_FAILED, (runner, result.grade, result.reason)
        assert result.model_calls == 0 and "passes on the prepared tree" in result.reason
        assert result.outcome == ""  # judged before fixbot ran
    # fixbot's own first check judging the start (the corpus test's way): the same grade (the
    # deterministic runner: the oracle's reference fix no longer applies to this fixed tree)
    judged = run_case(job, Runner.DETERMINISTIC, Options(start_by_engine=True))
    assert judged.grade is Grade.NEVER_FAILED, (judged.grade, judged.reason)
    assert judged.model_calls == 0 and "passes on the prepared tree" in judged.reason
    assert judged.outcome == "passed" and judged.check_passes  # fixbot ran, and the plain check
    assert run_case(job, Runner.LOCALIZE, Options()).grade is Grade.NEVER_FAILED


def _commit(repo: Path) -> None:
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "f"],
        cwd=repo,
        check=True,
    )


@pytest.mark.slow
def test_the_oracle_fixes_every_case_with_no_false_alarm(tmp_path: Path) -> None:
    jobs = [stats_case(tmp_path / "a"), slug_case(tmp_path / "b")]
    results = run_all(jobs, [Runner.ORACLE], Options(), workers=2)
    assert [(r.id, r.grade) for r in results] == [
        ("stats-mean", Grade.FIXED),
        ("text-slug", Grade.FIXED),
    ], [r.reason for r in results]
    for r in results:
        assert r.hidden_passes and r.check_passes and r.false_alarms == []
        assert r.outcome == "fixed" and r.attempts == 1 and r.model_calls == 2  # fix, review
        assert r.localization is not None and r.localization.naive_chars
        assert r.over_budget == []


@pytest.mark.slow
def test_a_fix_that_fits_only_the_visible_test_is_verified_but_wrong(tmp_path: Path) -> None:
    job = stats_case(tmp_path / "a")
    cheat = STATS_BROKEN.replace(
        "    return total(values) / (len(values) + 1)", "    return 3 if values == [2, 4] else 0.0"
    )
    wrong = job.model_copy(update={"fix_patch": _patch(job, "stats/core.py", cheat)})
    result = run_case(wrong, Runner.ORACLE, Options())
    assert result.grade is Grade.WRONG and result.check_passes and result.hidden_passes is False


def _patch(job: Job, path: str, text: str) -> str:
    import difflib

    old = (job.repo / path).read_text().splitlines(keepends=True)
    body = difflib.unified_diff(old, text.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(body)


@pytest.mark.slow
def test_the_deterministic_tier_fixes_a_world_moved_case_with_no_model(tmp_path: Path) -> None:
    result = run_case(world_case(tmp_path / "w"), Runner.DETERMINISTIC, Options())
    assert result.grade is Grade.FIXED, result.reason
    assert result.model_calls == 0 and result.tokens == 0 and result.outcome == "fixed"


@pytest.mark.slow
def test_the_baseline_asks_once_applies_the_blocks_and_is_graded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-key-for-tests")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    old = "    return total(values) / (len(values) + 1)\n"
    new = STATS_FIXED.split("def mean")[1].splitlines()[3] + "\n"
    reply = f"stats/core.py\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return message(content=reply)

    with ScriptedModel(answer) as server:
        options = Options(model="openai/scripted", api_base=server.url)
        result = run_case(stats_case(tmp_path / "a"), Runner.BASELINE, options)
        [asked] = server.requests
    assert result.grade is Grade.FIXED and result.model_calls == 1, result.notes
    user = asked["messages"][1]["content"]
    assert "1 failed" in user and "tests/test_stats.py" in user  # the log and the file it names


@pytest.mark.slow
def test_the_localize_runner_measures_the_first_request_and_grades_nothing(tmp_path: Path) -> None:
    requests = tmp_path / "requests"
    job = stats_case(tmp_path / "a")
    result = run_case(job, Runner.LOCALIZE, Options(requests_dir=requests))
    assert result.grade is Grade.MEASURED and result.attempts == 1, result.reason
    assert result.check_passes is False and result.hidden_passes is None  # not graded
    assert result.localization is not None and result.localization.files == ["stats/core.py"]
    first = (requests / "stats-mean.txt").read_text()
    assert result.localization.request_chars == len(first) and "stats/core.py" in first
    assert (job.repo / "stats" / "core.py").read_text() == STATS_BROKEN  # nothing changed


def test_the_oracle_answers_a_crlf_file_with_its_line_ends(tmp_path: Path) -> None:
    import subprocess

    from fixbot.bench.oracle import fixed_files

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "lib.rs").write_bytes(b"fn a() -> u8 {\r\n    1\r\n}\r\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    _commit(repo)
    patch = (
        "diff --git a/lib.rs b/lib.rs\n--- a/lib.rs\n+++ b/lib.rs\n"
        "@@ -1,3 +1,3 @@\n fn a() -> u8 {\r\n-    1\r\n+    2\r\n }\r\n"
    )
    assert fixed_files(repo, patch) == {"lib.rs": "fn a() -> u8 {\r\n    2\r\n}\r\n"}
