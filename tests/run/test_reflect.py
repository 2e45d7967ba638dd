"""After a failed attempt, in-process with a real check in a real repository: the diagnosis, the
recovery plan of a failure code cannot fix, divergence, the best tree kept, and the event log."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from fixbot.core.diagnosis import Diagnosis
from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.policy.divergence import REASON as DIVERGING
from fixbot.run import engine
from fixbot.run.agents import Agents
from fixbot.run.eventlog import read_events
from fixbot.run.request import RunRequest
from tests.agent.test_diagnose import ANSWER
from tests.fakes.agent_repo import BUGGY_LINE, FIXED_LINE, model_settings
from tests.fakes.agent_repo import make_repo as make_calc_repo
from tests.fakes.fixer import ScriptedAnalyst, ScriptedDiagnoser, ScriptedFixer
from tests.fakes.model_server import InProcessModel, tool_call
from tests.fakes.repo import git, make_repo, state_of
from tests.run.test_engine import CHECK, value_repo

WHY = Diagnosis.model_validate(
    {
        "why": ["test_b still fails", "value.txt lists b", "the fix removed only a"],
        "root_cause": {"category": "code_bug", "description": "b stays listed", "confidence": 0.8},
        "evidence": ["FAILED test_value.py::test_b"],
        "next_step": "remove b as well",
    }
)


def run(repo: Path, agents: Agents, **kw: object):  # type: ignore[no-untyped-def]
    settings = Settings(check=str(kw.pop("check", CHECK)), **kw)  # type: ignore[arg-type]
    return engine.run(settings, repo, env=dict(os.environ), agents=agents, sleep=lambda s: None)


@pytest.mark.slow
def test_a_failed_attempt_is_diagnosed_and_the_next_attempt_opens_with_it(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b")
    fixer = ScriptedFixer().enqueue({"value.txt": "b\n"}, {"value.txt": "ok\n"})
    diagnoser = ScriptedDiagnoser([WHY])
    outcome, state = run(repo, Agents(fixer, diagnoser=diagnoser))
    assert outcome.outcome is OutcomeKind.FIXED
    [(asked, tried)] = diagnoser.history
    assert asked.attempt == 1 and tried == "scripted edit 1"
    assert asked.failure is not None and "test_b" in asked.failure.condensed
    assert "test_a" not in asked.failure.condensed  # the failure after the attempt, not before
    assert fixer.history[0].diagnosis is None and fixer.history[1].diagnosis == WHY
    saved = json.loads((state_of(repo) / "state.json").read_text())
    first = saved["attempts"][1]
    assert first["diagnosis"]["why"] == WHY.why and first["hypothesis"] == "hypothesis 1"
    assert first["diagnosis"]["root_cause"] == {
        "category": "code_bug",
        "description": "b stays listed",
        "confidence": 0.8,
    }
    assert state.tokens == 7  # the diagnosis is counted in the run's budget
    report = Path(outcome.report_path or "").read_text()
    assert "Diagnosis after each failed attempt" in report
    assert "root cause `code_bug` (confidence 0.8): b stays listed" in report
    assert "3. the fix removed only a" in report and "Next step: remove b as well" in report


@pytest.mark.slow
def test_a_malformed_diagnosis_is_noted_and_the_run_goes_on(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b")
    fixer = ScriptedFixer().enqueue({"value.txt": "b\n"}, {"value.txt": "ok\n"})
    outcome, state = run(repo, Agents(fixer, diagnoser=ScriptedDiagnoser([None])))
    assert outcome.outcome is OutcomeKind.FIXED
    assert state.attempts[1].diagnosis is None
    assert "malformed" in (state.attempts[1].diagnosis_problem or "")
    assert any("attempt 1: the model's diagnosis was malformed" in n for n in state.notes)
    assert (
        "no diagnosis (the model's diagnosis was malformed"
        in Path(outcome.report_path or "").read_text()
    )


@pytest.mark.slow
def test_a_hopeless_failure_costs_no_more_checks_and_one_diagnosis(tmp_path: Path) -> None:
    def hopeless(with_model: bool) -> tuple[int, ScriptedDiagnoser, ScriptedAnalyst, object]:
        repo = value_repo(tmp_path / str(with_model), "a")
        fixer = ScriptedFixer().enqueue(lambda root: {"noise.txt": str(len(fixer.history))})
        diagnoser, analyst = ScriptedDiagnoser([WHY]), ScriptedAnalyst()
        agents = Agents(fixer, analyst=analyst, diagnoser=diagnoser if with_model else None)
        outcome, state = run(repo, agents, circuit_breaker=4)
        checks = len(list((state_of(repo) / "attempts").glob("*/check*.log")))
        assert "same failure occurred 4 times" in outcome.reason
        return checks, diagnoser, analyst, state

    checks, diagnoser, analyst, state = hopeless(True)
    plain_checks, _, plain_analyst, _ = hopeless(False)
    assert checks == plain_checks == 4  # the breaker opens after the same number of checks
    assert len(diagnoser.history) == 1  # attempt 2 did not change the failure: no new call
    second = state.attempts[2].diagnosis  # type: ignore[attr-defined]
    assert second is not None and second.repeated and second.why == WHY.why
    # the diagnosis explains the failure the run escalates with: no analysis call on top
    assert len(analyst.history) == 0 and len(plain_analyst.history) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("in_action", "named"), [(True, "the `setup-command` input"), (False, "--setup-command")]
)
def test_the_recovery_names_the_actions_input_only_when_the_action_asked(
    tmp_path: Path, in_action: bool, named: str
) -> None:
    """The request says who asked, not the environment: a `fixbot run` in a workflow step
    (GITHUB_ACTIONS=true) is the CLI's, and its user sets flags, not the Action's inputs."""
    repo = value_repo(tmp_path, "a")
    check = f"{sys.executable} -m fixbot_missing_runner_xyz -q"
    outcome, _ = engine.run(
        Settings(check=check),
        repo,
        env={**os.environ, "GITHUB_ACTIONS": "true"},
        agents=Agents(ScriptedFixer()),
        request=RunRequest(in_action=in_action),
        sleep=lambda s: None,
    )
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert named in outcome.reason


@pytest.mark.slow
def test_a_missing_check_program_escalates_with_the_fix_and_no_model_call(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer, diagnoser, analyst = ScriptedFixer(), ScriptedDiagnoser([WHY]), ScriptedAnalyst()
    check = f"{sys.executable} -m fixbot_missing_runner_xyz -q"
    outcome, state = run(repo, Agents(fixer, None, analyst, diagnoser=diagnoser), check=check)
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert fixer.history == [] and diagnoser.history == [] and analyst.history == []
    assert state.attempts[0].category == "command_not_found"
    assert "python module fixbot_missing_runner_xyz is missing" in outcome.reason
    assert "--setup-command" in outcome.reason
    assert state.recovery is not None and len(state.recovery.alternatives) == 2
    report = Path(outcome.report_path or "").read_text()
    assert "## Recovery plan" in report and "runner mode" in report


@pytest.mark.slow
def test_a_timed_out_check_suggests_a_longer_timeout_with_the_measured_time(
    tmp_path: Path,
) -> None:
    repo = value_repo(tmp_path, "a")
    check = f"{sys.executable} -c 'import time; time.sleep(30)'"
    outcome, _ = run(
        repo, Agents(ScriptedFixer()), check=check, timeout=0.5, max_transient_retries=0
    )
    assert outcome.outcome is OutcomeKind.ESCALATED and "transient (timeout)" in outcome.reason
    assert "raise --timeout above 0.5 s" in outcome.reason
    ran = re.search(r"it ran (\d+\.\d) s", outcome.reason)  # measured, not the setting
    assert ran is not None and 0.5 <= float(ran.group(1)) < 30, outcome.reason
    report = Path(outcome.report_path or "").read_text()
    assert "narrow the check" in report


@pytest.mark.slow
def test_a_diverging_run_restores_the_best_tree_then_escalates(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue(
        {"value.txt": "a,b\n"},
        {"value.txt": "a,b,c\n"},  # two attempts worse than the start: restore it
        {"value.txt": "a,x\n"},
        {"value.txt": "a,x,y\n"},  # a second divergence: escalate
    )
    outcome, state = run(repo, Agents(fixer), max_attempts=8)
    assert outcome.outcome is OutcomeKind.ESCALATED and outcome.reason.startswith(DIVERGING)
    assert outcome.attempts == 4
    assert [a.counts.problems for a in state.attempts] == [1, 2, 3, 2, 3]
    assert state.attempts[2].restored_to == 0
    third = fixer.history[2]
    assert third.diverged is not None and "restored to the start (1 failing)" in third.diverged
    assert third.failure is not None and "test_b" not in third.failure.condensed  # the start's
    assert fixer.history[3].diverged is None
    assert (repo / "value.txt").read_text() == "a\n"  # the best tree: the start
    assert git(repo, "status", "--porcelain") == ""
    report = Path(outcome.report_path or "").read_text()
    assert "The working directory holds the start (1 failing)" in report
    assert "line [1, 2, 3, 2, 3]" in report  # the chart shows every attempt


@pytest.mark.slow
def test_an_escalated_run_keeps_the_best_attempt_not_the_last(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b,c")
    fixer = ScriptedFixer().enqueue({"value.txt": "a\n"}, {"value.txt": "a,b,c,d,e\n"})
    outcome, state = run(repo, Agents(fixer), max_attempts=2)
    assert "all 2 fix attempts" in outcome.reason
    assert (repo / "value.txt").read_text() == "a\n"
    assert state.best_snapshot == state.attempts[1].snapshot_sha
    assert state.kept is not None and state.kept.startswith("attempt 1 (1 failing)")


@pytest.mark.slow
def test_the_event_log_has_every_step_one_json_object_a_line(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b")
    fixer = ScriptedFixer().enqueue({"value.txt": "b\n"}, {"value.txt": "ok\n"})
    _, state = run(repo, Agents(fixer, diagnoser=ScriptedDiagnoser([WHY])))
    events = read_events(state_of(repo) / "log.jsonl")
    assert [(e["event"], e["attempt"]) for e in events] == [
        ("check", 0),
        ("classification", 0),
        ("fix", 1),
        ("check", 1),
        ("classification", 1),
        ("diagnosis", 1),
        ("fix", 2),
        ("check", 2),
        ("outcome", None),
    ]
    for event in events:
        assert {"ts", "run_id", "attempt", "event", "elapsed_ms"} <= set(event)
        assert event["run_id"] == state.run_id
    assert [e["elapsed_ms"] for e in events] == sorted(e["elapsed_ms"] for e in events)
    assert events[5]["category"] == "code_bug" and events[5]["confidence"] == 0.8
    assert events[-1]["outcome"] == "fixed"


@pytest.mark.slow
def test_a_model_run_diagnoses_attempt_1_and_attempt_2_opens_with_it(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    worse = BUGGY_LINE.replace("items[1:]", "items[2:]")
    inprocess_model.enqueue(
        tool_call("replace_in_file", path="calc.py", old=BUGGY_LINE, new=worse),
        tool_call("finish", summary="skip less", diagnosis="the slice is off"),
        tool_call("submit_diagnosis", **ANSWER),
        tool_call("replace_in_file", path="calc.py", old=worse, new=FIXED_LINE),
        tool_call("finish", summary="sum every item"),
        tool_call("submit_review", findings=[]),
    )
    check = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    settings = model_settings(inprocess_model.url, check=check)
    outcome, _ = engine.run(settings, repo, env={**os.environ, **model_env})
    assert outcome.outcome is OutcomeKind.FIXED and outcome.attempts == 2, outcome.reason
    saved = json.loads((state_of(repo) / "state.json").read_text())
    first = saved["attempts"][1]
    assert first["diagnosis"]["why"] == ANSWER["why"]
    assert first["diagnosis"]["root_cause"]["category"] == "code_bug"
    assert first["diagnosis"]["root_cause"]["confidence"] == 0.9
    assert first["hypothesis"] == "the slice is off"
    bodies = inprocess_model.bodies()
    assert len(bodies) == 6
    assert [t["function"]["name"] for t in bodies[2]["tools"]] == ["submit_diagnosis"]
    second = bodies[3]["messages"][1]["content"]  # attempt 2's first user message
    assert second.startswith(
        "The previous attempt failed. Root cause (code_bug, confidence 0.9): items[1:] drops one"
    )
    assert "recommended next step: sum over every item in total()" in second


@pytest.mark.slow
def test_a_missing_check_program_makes_no_model_request(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    check = f"{sys.executable} -m fixbot_missing_runner_xyz -q"
    settings = model_settings(inprocess_model.url, check=check)
    outcome, state = engine.run(settings, repo, env={**os.environ, **model_env})
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert inprocess_model.requests == []
    assert "fixbot_missing_runner_xyz" in outcome.reason and "--setup-command" in outcome.reason
    assert state.analysis is None and state.tokens == 0


BIG = """\
import sys
for i in range(64):
    print(f"___ test_{i} ___")
    for j in range(60):
        print(f"E   assert something {i} {j} " + "x" * 80)
    print(f"tests/test_x.py:{i + 10}: AssertionError")
for i in range(64):
    print(f"FAILED tests/test_x.py::test_{i} - AssertionError: bad {i}")
print("64 failed, 3 passed in 1.23s")
sys.exit(1)
"""


@pytest.mark.slow
def test_counts_survive_an_output_too_long_for_the_condensed_log(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"big.py": BIG})
    _, state = run(repo, Agents(None), check=f"{sys.executable} big.py")
    assert state.attempts[0].counts.failed == 64 and state.attempts[0].counts.passed == 3


def test_a_state_with_the_old_text_diagnosis_loads_it_as_the_hypothesis() -> None:
    from fixbot.core.models import Attempt

    old = Attempt.model_validate({"number": 1, "diagnosis": "the slice is off"})
    assert old.hypothesis == "the slice is off" and old.diagnosis is None
    new = Attempt.model_validate({"number": 1, "diagnosis": WHY.model_dump(mode="json")})
    assert new.diagnosis == WHY and new.hypothesis is None


UNPARSED_CHECK = """\
import sys
print("tests/test_more.py::test_windowed FAILED")
print("E   AssertionError: windowed(range(3), 2) != [(0, 1), (1, 2)]")
print("the summary is in a wording no parser reads: the failure counts are unknown")
sys.exit(1)
"""
REFORMAT = """\
import pathlib
path = pathlib.Path("more.py")
path.write_text(path.read_text().replace("'", '"'))
"""


@pytest.mark.slow
def test_a_reformat_over_the_diff_limit_is_never_kept_as_the_best_attempt(tmp_path: Path) -> None:
    # more-itertools in miniature: the counts are unknown before the fix, a fix
    # command reformats thousands of lines, the check still fails, the breaker stops the diff
    # as "not a fix". That tree used to be kept as "the best attempt" (and its snapshot pushed
    # as a draft pull request by the Action); the start is kept instead.
    big = "".join(f"value_{n} = 'x{n}'\n" for n in range(1_500))
    repo = make_repo(
        tmp_path / "repo", {"check.py": UNPARSED_CHECK, "more.py": big, "reformat.py": REFORMAT}
    )
    settings = Settings(
        check=f"{sys.executable} check.py",
        fix_commands=[f"{sys.executable} reformat.py"],
        max_diff_lines=500,
    )
    outcome, state = engine.run(settings, repo, env=dict(os.environ))  # the run's own agents
    assert outcome.outcome is OutcomeKind.ESCALATED and "is not a fix" in outcome.reason
    reformat = state.attempts[1]
    assert reformat.files_changed == ["more.py"] and reformat.diff_lines == 3_000
    assert state.attempts[0].counts.problems is None and reformat.counts.problems is None
    assert state.best_snapshot is None
    assert (repo / "more.py").read_text() == big  # the working directory holds the start
    assert state.kept is not None and state.kept.startswith("the start (unknown failing)")
    assert "attempt 1 (its diff of 3000 lines is over the limit (500))" in state.kept
    assert "The best attempt" not in Path(outcome.report_path or "").read_text()


@pytest.mark.slow
def test_a_red_check_whose_only_summary_says_clean_has_unknown_failures(tmp_path: Path) -> None:
    # `ruff check . && pytest` with ruff clean and pytest crashed before its summary: the one
    # summary line says 0 errors, the check is red; its failures are unknown, not 0
    check = "import sys\nprint('All checks passed!')\nprint('worker crashed')\nsys.exit(1)\n"
    repo = make_repo(tmp_path / "repo", {"check.py": check, "value.txt": "a\n"})
    fixer = ScriptedFixer().enqueue({"value.txt": "b\n"})
    outcome, state = run(repo, Agents(fixer), check=f"{sys.executable} check.py", max_attempts=1)
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert [a.counts.problems for a in state.attempts] == [None, None]
    assert [a.counts.errors for a in state.attempts] == [None, None]
