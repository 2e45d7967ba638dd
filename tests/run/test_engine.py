"""The loop, in-process, with a real check subprocess in a real repository and a scripted fixer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.errors import ConfigError
from fixbot.core.failure import ErrorClass
from fixbot.core.models import Finding, OutcomeKind, Phase, ReviewThread, Severity
from fixbot.core.settings import Settings
from fixbot.logs.classify import RULES
from fixbot.policy.breaker import oscillations
from fixbot.run import engine
from fixbot.run.engine import Agents
from fixbot.run.report import NEXT_STEPS
from fixbot.run.request import RunRequest
from fixbot.run.store import load_state, save_state
from tests.fakes.fixer import ClaimingFixer, ScriptedFixer, ScriptedReviewer
from tests.fakes.repo import git, make_repo, state_of

CHECK_PY = """\
import pathlib, sys
value = pathlib.Path("value.txt").read_text().strip()
if value == "ok":
    print("3 passed in 0.01s")
    sys.exit(0)
failing = value.split(",")
for name in failing:
    print(f"FAILED test_value.py::test_{name} - AssertionError: {name} is wrong")
print(f"{len(failing)} failed, 1 passed in 0.02s")
sys.exit(1)
"""
CHECK = f"{sys.executable} check.py"


def value_repo(tmp_path: Path, value: str) -> Path:
    """A repository whose check fails on the tests named in value.txt (or passes on 'ok')."""
    return make_repo(tmp_path / "repo", {"check.py": CHECK_PY, "value.txt": value + "\n"})


def settle(
    repo: Path, fixer: ScriptedFixer, reviewer: ScriptedReviewer | None = None, **kw: object
):  # type: ignore[no-untyped-def]
    """Run the engine with the scripted fixer; sleeping is recorded, not done."""
    settings = Settings(check=CHECK, **kw)  # type: ignore[arg-type]
    sleeps: list[float] = []
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(fixer, reviewer), sleep=sleeps.append
    )
    return outcome, state, sleeps


@pytest.mark.slow
def test_already_green_is_passed_without_fixing(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "ok")
    fixer = ScriptedFixer()
    outcome, _, _ = settle(repo, fixer)
    assert outcome.outcome is OutcomeKind.PASSED and outcome.exit_code == 0
    assert fixer.history == [] and outcome.attempts == 0
    assert git(repo, "log", "--oneline").count("\n") == 0  # no new commit


@pytest.mark.slow
def test_fixed_after_two_attempts_commits_once_and_reports(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b")
    fixer = ScriptedFixer().enqueue({"value.txt": "b\n"}, {"value.txt": "ok\n"})
    outcome, state, _ = settle(repo, fixer)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert outcome.attempts == 2
    assert outcome.commit_sha == git(repo, "rev-parse", "HEAD")
    assert git(repo, "log", "-1", "--format=%s").startswith("fixbot: scripted edit 2")
    assert [a.counts.failed for a in state.attempts] == [2, 1, None]
    assert fixer.history[0].failure is not None and fixer.history[0].attempt == 1
    assert "test_a" in fixer.history[0].failure.condensed
    report = Path(outcome.report_path or "").read_text()
    assert "# fixbot report: fixed" in report and "| 2 | fix |" in report
    assert "xychart-beta" in report  # failure counts chart
    assert ".fixbot" not in git(repo, "show", "--name-only", "--format=", "HEAD")
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.slow
def test_same_failure_opens_the_breaker(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue(lambda root: {"noise.txt": str(len(fixer.history))})
    outcome, _, _ = settle(repo, fixer, circuit_breaker=3)
    assert outcome.outcome is OutcomeKind.ESCALATED and outcome.exit_code == 1
    assert "same failure occurred 3 times" in outcome.reason
    assert outcome.attempts == 2  # initial + 2 attempts = 3 identical failures
    report = Path(outcome.report_path or "").read_text()
    assert "The repeated error" in report and "test_value.py::test_a" in report
    assert "**OPEN**" in report


@pytest.mark.slow
def test_oscillation_is_told_to_the_fixer_then_opens(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue(
        {"value.txt": "b\n"}, {"value.txt": "a\n"}, {"value.txt": "b\n"}, {"value.txt": "a\n"}
    )
    outcome, state, _ = settle(repo, fixer, max_attempts=10)
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert "oscillates" in outcome.reason
    assert [c.oscillation for c in fixer.history] == [False, False, True]
    assert oscillations(state.attempts) == [2, 3]


@pytest.mark.slow
def test_two_attempts_without_changes_open_the_breaker(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    outcome, _, _ = settle(repo, ScriptedFixer().enqueue({}))
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert outcome.reason == "two attempts in a row changed nothing"


@pytest.mark.slow
def test_max_attempts_is_respected(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue(
        {"value.txt": "b\n"}, {"value.txt": "c\n"}, {"value.txt": "d\n"}
    )
    outcome, _, _ = settle(repo, fixer, max_attempts=3)
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert "all 3 fix attempts" in outcome.reason and len(fixer.history) == 3


@pytest.mark.slow
def test_transient_failure_is_rerun_with_backoff_and_no_fixer(tmp_path: Path) -> None:
    flaky = (
        "import pathlib, sys\n"
        "p = pathlib.Path('count.txt'); n = int(p.read_text()) if p.exists() else 0\n"
        "p.write_text(str(n + 1))\n"
        "if n < 2:\n"
        "    print('requests.exceptions.ConnectionError: [Errno 111] Connection refused')\n"
        "    sys.exit(1)\n"
        "print('1 passed')\n"
    )
    repo = make_repo(tmp_path / "repo", {"check.py": flaky, ".gitignore": "count.txt\n"})
    fixer = ScriptedFixer()
    outcome, state, sleeps = settle(repo, fixer, backoff=2)
    assert outcome.outcome is OutcomeKind.PASSED
    assert fixer.history == []
    assert state.attempts[0].transient_retries == 2
    assert len(sleeps) == 2 and 2 <= sleeps[0] <= 4 and 4 <= sleeps[1] <= 6


def test_permanent_error_escalates_without_fixing(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    # `$(...)` hides the program from the preflight: the shell itself reports it missing (127).
    settings = Settings(check="$(echo no-such-command-fixbot) --run")
    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.ESCALATED
    assert state.attempts[0].category == "command_not_found"
    assert fixer.history == []


def test_preflight_stops_a_missing_program_before_the_check(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    settings = Settings(check="no-such-command-fixbot --run")
    with pytest.raises(ConfigError) as caught:
        engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert "`no-such-command-fixbot`" in caught.value.problems[0]
    assert "--setup-command" in caught.value.problems[0]
    assert fixer.history == [] and not (state_of(repo) / "state.json").exists()


@pytest.mark.slow
def test_review_blocker_is_fixed_and_minor_reported(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"}, {"note.txt": "reviewed\n"})
    blocker = Finding(path="value.txt", line=1, severity=Severity.BLOCKER, message="hard-coded")
    minor = Finding(path="check.py", severity=Severity.MINOR, message="naming")
    reviewer = ScriptedReviewer(rounds=[[blocker, minor], []])
    outcome, state, _ = settle(repo, fixer, reviewer)
    assert outcome.outcome is OutcomeKind.FIXED
    assert [a.phase for a in state.attempts] == [Phase.CHECK, Phase.FIX, Phase.REVIEW]
    assert fixer.history[1].findings == [blocker]
    assert state.minor_findings == [minor]
    assert "naming" in Path(outcome.report_path or "").read_text()
    assert git(repo, "log", "--format=%s").count("fixbot:") == 2


def test_dirty_tree_is_refused_with_the_way_out(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    (repo / "value.txt").write_text("changed\n")
    with pytest.raises(ConfigError) as caught:
        settle(repo, ScriptedFixer())
    message = caught.value.problems[0]
    assert "git stash" in message and "--allow-dirty" in message and "value.txt" in message


@pytest.mark.slow
def test_a_finished_run_is_not_resumed(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a,b")
    first = ScriptedFixer().enqueue({"value.txt": "b\n"}, {})
    settle(repo, first, max_attempts=1)  # escalates after one attempt: a finished run
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, state, _ = settle(repo, fixer, allow_dirty=True)
    assert outcome.outcome is OutcomeKind.FIXED
    assert len(state.attempts) == 2  # a finished run is not resumed: a new run started
    saved = load_state(state_of(repo))
    assert saved is not None and saved.outcome == outcome


@pytest.mark.slow
def test_check_never_sees_tokens_or_model_keys(tmp_path: Path) -> None:
    probe = (
        "import os\n"
        "print(sorted(k for k in os.environ if 'TOKEN' in k or 'KEY' in k or 'INPUT_' in k))\n"
        "raise SystemExit(1)\n"
    )
    repo = make_repo(tmp_path / "repo", {"probe.py": probe})
    env = {
        **os.environ,
        "GITHUB_TOKEN": "ghs_secret_value_123456",
        "INPUT_GITHUB-TOKEN": "ghs_secret_value_123456",
        "OPENAI_API_KEY": "sk-test-value-1234567890",
        "DATABASE_KEY_FOR_TESTS": "kept-for-the-check",
    }
    settings = Settings(check=f"{sys.executable} probe.py")
    outcome, state = engine.run(settings, repo, env=env, agents=Agents(None))
    log = (state_of(repo).parent / (state.attempts[0].log_path or "")).read_text()
    assert "DATABASE_KEY_FOR_TESTS" in log
    for name in ("GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "OPENAI_API_KEY"):
        assert name not in log
    assert outcome.outcome is OutcomeKind.ESCALATED


@pytest.mark.slow
def test_monorepo_package_check_runs_in_its_folder(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"pkg/check.py": CHECK_PY, "pkg/value.txt": "a\n", "README.md": "root\n"},
    )
    fixer = ScriptedFixer().enqueue({"pkg/value.txt": "ok\n"})
    settings = Settings(check=CHECK)
    outcome, state = engine.run(settings, repo / "pkg", env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome is OutcomeKind.FIXED
    assert fixer.history[0].repo == state_of(repo).parent  # the whole repository (its clone)
    assert (state_of(repo) / "state.json").exists() and state.attempts[1].passed


@pytest.mark.slow
def test_secrets_printed_by_the_check_are_redacted_in_logs_and_report(tmp_path: Path) -> None:
    secret = "s3cr3t-value-for-tests"
    script = "import os\nprint('AssertionError: token is ' + os.environ['DEPLOY_TOKEN'])\nexit(1)\n"
    repo = make_repo(tmp_path / "repo", {"leak.py": script})
    env = {**os.environ, "DEPLOY_TOKEN": secret}
    settings = Settings(check=f"{sys.executable} leak.py")
    outcome, state = engine.run(settings, repo, env=env, agents=Agents(None))
    log = (state_of(repo).parent / (state.attempts[0].log_path or "")).read_text()
    assert secret not in log and "token is [REDACTED]" in log
    assert secret not in Path(outcome.report_path or "").read_text()
    assert secret not in (state_of(repo) / "state.json").read_text()


@pytest.mark.slow
def test_a_review_fix_that_breaks_the_check_is_undone(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue(
        {"value.txt": "ok\n"}, {"value.txt": "broken\n", "extra.txt": "new file\n"}
    )
    blocker = Finding(path="value.txt", severity=Severity.MAJOR, message="rename it")
    outcome, state, _ = settle(repo, fixer, ScriptedReviewer(rounds=[[blocker]]))
    assert outcome.outcome is OutcomeKind.FIXED
    assert (repo / "value.txt").read_text() == "ok\n" and not (repo / "extra.txt").exists()
    assert git(repo, "status", "--porcelain") == ""  # back to the verified, committed tree
    assert state.minor_findings == [blocker]  # reported as not fixed
    assert "was undone" in Path(outcome.report_path or "").read_text()


@pytest.mark.slow
def test_a_commit_made_just_before_a_kill_is_recorded_on_resume(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, state, _ = settle(repo, fixer)
    committed = outcome.commit_sha
    # Simulate the kill: the state as it was saved before the verified check finished.
    state.attempts[-1].done, state.attempts[-1].commit_sha, state.outcome = False, None, None
    save_state(state_of(repo), state)
    resumed, _, _ = settle(repo, ScriptedFixer())
    assert resumed.outcome is OutcomeKind.FIXED and resumed.commit_sha == committed
    assert git(repo, "rev-list", "--count", "HEAD") == "2"  # no second, empty commit


def test_a_persistent_transient_failure_escalates_without_fixing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    fixer = ScriptedFixer().enqueue({"a.txt": "y\n"})
    settings = Settings(
        check="echo 'curl: (7) Failed to connect: Connection refused'; exit 7",
        max_transient_retries=2,
    )
    sleeps: list[float] = []
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(fixer), sleep=sleeps.append
    )
    assert outcome.outcome is OutcomeKind.ESCALATED and "stayed transient" in outcome.reason
    assert len(sleeps) == 2 and fixer.history == []
    assert state.attempts[0].transient_retries == 2


THREADS = [
    ReviewThread(id="T1", path="value.txt", line=1, author="alice", body="use ok"),
    ReviewThread(id="T2", path="check.py", line=2, author="bob", body="rename"),
]


@pytest.mark.slow
def test_threads_get_one_attempt_after_green_with_claims_recorded(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "ok")
    fixer = ClaimingFixer().enqueue({"value.txt": "ok\n\n"})
    settings = Settings(check=CHECK)
    outcome, state = engine.run(
        settings,
        repo,
        env=dict(os.environ),
        agents=Agents(fixer),
        request=RunRequest(threads=THREADS),
    )
    assert outcome.outcome is OutcomeKind.FIXED and outcome.commit_sha
    threads_attempt = state.attempts[-1]
    assert threads_attempt.phase is Phase.THREADS and threads_attempt.passed
    assert threads_attempt.resolved_thread_ids == ["T1", "T2"]
    assert threads_attempt.files_changed == ["value.txt"]
    assert [t.id for t in fixer.history[0].threads] == ["T1", "T2"]


@pytest.mark.slow
def test_a_threads_fix_that_breaks_the_check_is_undone(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "ok")
    fixer = ClaimingFixer().enqueue({"value.txt": "broken\n"})
    outcome, state = engine.run(
        Settings(check=CHECK),
        repo,
        env=dict(os.environ),
        agents=Agents(fixer),
        request=RunRequest(threads=THREADS),
    )
    assert outcome.outcome is OutcomeKind.PASSED  # nothing kept
    assert state.attempts[-1].undone and (repo / "value.txt").read_text() == "ok\n"
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.slow
def test_threads_without_a_model_are_reported_not_addressed(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "ok")
    outcome, state = engine.run(  # the run builds its own agents: fix commands, no model
        Settings(check=CHECK, fix_commands=["true"]),
        repo,
        env=dict(os.environ),
        request=RunRequest(threads=THREADS),
    )
    assert outcome.outcome is OutcomeKind.PASSED and len(state.attempts) == 1
    assert "2 open review threads were not addressed: no model is set" in state.notes


def test_every_category_no_code_change_fixes_has_its_own_next_step() -> None:
    unfixable = {r.category for r in RULES if r.error_class is not ErrorClass.FIXABLE}
    assert unfixable - set(NEXT_STEPS) == set()


@pytest.mark.slow
def test_secrets_in_what_a_fixer_reports_are_redacted_before_recording(tmp_path: Path) -> None:
    token = "ghp_" + "x1" * 18
    repo = value_repo(tmp_path, "a")

    class Leaky(ScriptedFixer):
        def fix(self, ctx):  # type: ignore[no-untyped-def]
            result = super().fix(ctx)
            return result.model_copy(
                update={"summary": f"used {token}", "diagnosis": token, "refused": [token]}
            )

    outcome, _ = engine.run(
        Settings(check=CHECK),
        repo,
        env=dict(os.environ),
        agents=Agents(Leaky().enqueue({"value.txt": "ok\n"})),
    )
    assert outcome.outcome is OutcomeKind.FIXED
    for path in (state_of(repo) / "state.json", Path(outcome.report_path or "")):
        assert token not in path.read_text()
    assert token not in git(repo, "log", "-1", "--format=%B")


@pytest.mark.slow
def test_a_run_stopped_mid_way_by_an_error_writes_its_own_report(tmp_path: Path) -> None:
    """A rejected key during the run (exit 2): `report.md` describes this run, not the last
    one; the state records no outcome, so the same command continues once the key is fixed."""
    from fixbot.agent.llm import ModelConfigError

    repo = value_repo(tmp_path, "a")
    (repo / ".fixbot").mkdir()
    (repo / ".fixbot" / "report.md").write_text("# fixbot report: fixed\n\nthe previous run\n")

    def rejected(root: Path) -> dict[str, str]:
        raise ModelConfigError("the model rejected the key (401): set OPENAI_API_KEY")

    with pytest.raises(ConfigError):
        settle(repo, ScriptedFixer().enqueue(rejected))
    report = (repo / ".fixbot" / "report.md").read_text()
    assert report.startswith("# fixbot report: error") and "rejected the key (401)" in report
    assert "the previous run" not in report and "run the same command to continue" in report
    state = load_state(state_of(repo))
    assert state is not None and state.outcome is None and state.attempts


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "kind"), [("ok", OutcomeKind.PASSED), ("a", OutcomeKind.ESCALATED)]
)
def test_a_given_log_is_not_given_up_on_before_the_check_ran_once(
    tmp_path: Path, value: str, kind: OutcomeKind
) -> None:
    """`--from-log` with a log older than the code (a permanent error the code no longer has):
    the check runs once before the run gives up; green is `passed`, red escalates on the
    check's own failure."""
    from fixbot.logs.joblog import FirstFailure

    repo = value_repo(tmp_path, value)
    old = FirstFailure(  # made at this commit: the environment changed since, not the code
        text="/bin/sh: 1: pytset: not found\n",
        source="an old CI log",
        exit_code=127,
        commit=git(repo, "rev-parse", "HEAD"),
    )
    settings = Settings(check=CHECK, fix_commands=["true"])
    outcome, state = engine.run(
        settings,
        repo,
        env=dict(os.environ),
        agents=Agents(ScriptedFixer()),
        request=RunRequest(first_failure=old),
    )
    assert outcome.outcome is kind, outcome.reason
    assert state.rechecked and state.attempts[0].category != "command_not_found"
    assert any("the check was run once" in note for note in state.notes)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "kind"), [("ok", OutcomeKind.PASSED), ("a", OutcomeKind.ESCALATED)]
)
def test_a_stale_log_whose_fix_is_committed_ends_passed(
    tmp_path: Path, value: str, kind: OutcomeKind
) -> None:
    """`--from-log <a failure already fixed> --fix-commands true`: both attempts change
    nothing, the check runs once before giving up; green is `passed` (exit 0), red escalates."""
    from fixbot.logs.joblog import FirstFailure

    repo = value_repo(tmp_path, value)
    old = FirstFailure(
        text="FAILED test_value.py::test_a - AssertionError: a is wrong\n1 failed, 1 passed\n",
        source="an old CI log",
        exit_code=1,
        commit=git(repo, "rev-parse", "--short", "HEAD"),
    )
    settings = Settings(check=CHECK, fix_commands=["true"])
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=None, request=RunRequest(first_failure=old)
    )
    assert outcome.outcome is kind, outcome.reason
    assert (outcome.exit_code == 0) is (kind is OutcomeKind.PASSED)
    assert [a.files_changed for a in state.fix_attempts] == [[], []] and state.rechecked
    assert {a.fixer for a in state.fix_attempts} == {"fix-commands"}


def missing_import_repo(tmp_path: Path, module: str) -> Path:
    """A repository whose test imports `module`, with its test requirements in
    tests/requirements.txt (as packaging keeps them)."""
    test = f"import {module}\n\n\ndef test_it():\n    assert True\n"
    files = {"tests/test_it.py": test, "tests/requirements.txt": "pytest\n"}
    return make_repo(tmp_path / "repo", files)


def with_check_python() -> dict[str, str]:
    """The environment with this interpreter (which has pytest and packaging) first on PATH:
    the check's own interpreter, the one fixbot asks what is installed."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path}


@pytest.mark.slow
def test_a_missing_test_dependency_stops_before_any_fixer(tmp_path: Path) -> None:
    """`No module named 'pretend'`, in neither the repository nor the check's interpreter: an
    environment problem, named with the requirements file; no fix command runs."""
    repo = missing_import_repo(tmp_path, "pretend")
    settings = Settings(check=f"{sys.executable} -m pytest -q tests", fix_commands=["true"])
    outcome, state = engine.run(settings, repo, env=with_check_python(), agents=None)
    assert outcome.outcome is OutcomeKind.ESCALATED and state.fix_attempts == []
    assert state.attempts[0].category == "missing_dependency"
    assert "`pretend`" in outcome.reason and "tests/requirements.txt" in outcome.reason
    assert state.recovery is not None and state.recovery.category == "missing_dependency"


@pytest.mark.slow
def test_a_missing_submodule_of_an_installed_package_is_the_codes(tmp_path: Path) -> None:
    """`No module named 'packaging.nothing'`: `packaging` is not in the repository but the
    check's interpreter has it (asked through the launcher), so a fixer may try."""
    repo = missing_import_repo(tmp_path, "packaging.nothing")
    settings = Settings(check=f"{sys.executable} -m pytest -q tests", fix_commands=["true"])
    outcome, state = engine.run(settings, repo, env=with_check_python(), agents=None)
    assert state.attempts[0].category == "import" and state.fix_attempts
    assert outcome.outcome is OutcomeKind.ESCALATED


@pytest.mark.slow
def test_a_crashing_fix_command_is_visible_in_the_progress_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ESLint 9 exiting 2 without a config (its real output, replayed): the terminal and the
    report show the exit code and what it said, not only "changed nothing"."""
    eslint = Path(__file__).parent.parent / "data" / "fixcommands" / "eslint9-no-config.log"
    repo = value_repo(tmp_path, "a")
    settings = Settings(check=CHECK, fix_commands=[f"cat {eslint}; exit 2"])
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=None)
    said = "exit 2: Oops! Something went wrong! :( / ESLint: 9.39.5 / ESLint couldn't find"
    progress = capsys.readouterr().err
    assert "changed nothing (1 command failed)" in progress and said in progress
    report = Path(outcome.report_path or "").read_text()
    assert said in report


def with_fix_commands_first(monkeypatch: pytest.MonkeyPatch, model: ScriptedFixer) -> None:
    """The run's own fix commands (built by the engine, through its launcher), then `model`."""
    from fixbot.run.fixcommand import ChainFixer

    real = engine.build_agents

    def build(*args, **kwargs):  # type: ignore[no-untyped-def]
        commands = real(*args, **kwargs).fixer
        assert isinstance(commands, ChainFixer)
        return Agents(ChainFixer([*commands.fixers, model]))

    monkeypatch.setattr(engine, "build_agents", build)


@pytest.mark.slow
def test_fix_command_changes_that_did_not_change_the_failure_are_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unpinned formatter rewrites a file and the check fails as before: its change is
    undone, not run again on the same failure, and not in the model's commit, whose body
    says so."""
    repo = make_repo(
        tmp_path / "repo", {"check.py": CHECK_PY, "value.txt": "a\n", "style.txt": "x\n"}
    )
    model = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    with_fix_commands_first(monkeypatch, model)
    settings = Settings(check=CHECK, fix_commands=["echo reformatted > style.txt"])
    outcome, state = engine.run(settings, repo, env=dict(os.environ))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    first, second = state.fix_attempts
    assert first.fixer == "fix-commands" and first.undone and first.files_changed == ["style.txt"]
    assert second.fixer == "scripted" and second.fix_commands == []
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["value.txt"]
    assert git(repo, "show", "HEAD:style.txt") == "x" and (repo / "style.txt").read_text() == "x\n"
    body = git(repo, "log", "-1", "--format=%B")
    assert "Left out: attempt 1's changes (fix-commands) to style.txt" in body


@pytest.mark.slow
def test_fix_command_changes_that_changed_the_failure_are_named_in_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = value_repo(tmp_path, "a,b")
    model = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    with_fix_commands_first(monkeypatch, model)
    settings = Settings(check=CHECK, fix_commands=["echo b > value.txt; echo y > lint.txt"])
    outcome, state = engine.run(settings, repo, env=dict(os.environ))
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    assert not state.fix_attempts[0].undone
    body = git(repo, "log", "-1", "--format=%B")
    assert "Also in this commit: attempt 1's changes (fix-commands): lint.txt, value.txt" in body


@pytest.mark.slow
def test_a_crashing_fix_command_runs_once_and_is_the_reason(tmp_path: Path) -> None:
    repo = value_repo(tmp_path, "a")
    settings = Settings(check=CHECK, fix_commands=["echo 'no config found'; exit 2"])
    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=None)
    assert outcome.outcome is OutcomeKind.ESCALATED
    first, second = state.fix_attempts
    assert first.fix_commands and not second.fix_commands
    assert second.summary.startswith("not run again")
    assert "changed nothing" in outcome.reason and "exit 2: no config found" in outcome.reason


@pytest.mark.slow
def test_the_commit_carries_the_workspaces_own_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """user.name and user.email of the workspace's .git/config (read as data), not the
    global configuration's; a `;` in the name stays text."""
    repo = value_repo(tmp_path, "a")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{who}_NAME", raising=False)
        monkeypatch.delenv(f"GIT_{who}_EMAIL", raising=False)
    git(repo, "config", "user.name", "Ada; Local")
    git(repo, "config", "user.email", "ada@example.invalid")
    outcome, _ = engine.run(
        Settings(check=CHECK),
        repo,
        env=dict(os.environ),
        agents=Agents(ScriptedFixer().enqueue({"value.txt": "ok\n"})),
    )
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    who = git(repo, "log", "-1", "--format=%an <%ae> / %cn <%ce>")
    assert who == "Ada; Local <ada@example.invalid> / Ada; Local <ada@example.invalid>"


@pytest.mark.slow
@pytest.mark.parametrize("commit", [None, "0123456789abcdef0123456789abcdef01234567"])
def test_a_log_not_from_this_commit_is_checked_before_the_model_is_asked(
    tmp_path: Path, commit: str | None
) -> None:
    """`--from-log` of another commit (or naming none) on a tree already green: the check
    runs first, the model is never asked, and the outcome is `passed`, not `fixed`."""
    from fixbot.logs.joblog import FirstFailure

    repo = value_repo(tmp_path, "ok")
    old = FirstFailure(
        text="FAILED test_value.py::test_a - AssertionError: a is wrong\n1 failed, 1 passed\n",
        source="an old CI log",
        exit_code=1,
        commit=commit,
    )
    model = ScriptedFixer().enqueue({"value.txt": "ok\n", "harmless.txt": "x\n"})
    outcome, state = engine.run(
        Settings(check=CHECK),
        repo,
        env=dict(os.environ),
        agents=Agents(model),
        request=RunRequest(first_failure=old),
    )
    assert outcome.outcome is OutcomeKind.PASSED, outcome.reason
    assert model.history == [] and state.attempts[0].exit_code == 0
    assert any("the check was run first" in note for note in state.notes)


@pytest.mark.slow
def test_the_logs_the_report_and_commit_name_are_in_the_workspace(tmp_path: Path) -> None:
    """Every `.fixbot/attempts/...` path the workspace's report names resolves in the
    workspace: the logs are copied out of fixbot's private clone."""
    import re

    repo = value_repo(tmp_path, "a")
    settings = Settings(check=CHECK, fix_commands=["echo fixing; echo ok > value.txt"])
    outcome, _ = engine.run(settings, repo, env=dict(os.environ), agents=None)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    report = (repo / ".fixbot" / "report.md").read_text()
    named = set(re.findall(r"\.fixbot/attempts/[\w./-]+\.log", report))
    named |= set(re.findall(r"\.fixbot/attempts/[\w./-]+\.log", git(repo, "log", "-1")))
    assert ".fixbot/attempts/001/fix-command-1.log" in named
    for rel in named:
        assert (repo / rel).is_file(), rel
    assert "fixing" in (repo / ".fixbot/attempts/001/fix-command-1.log").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("value", "warmed"), [("a", 1), ("ok", 0)])
def test_the_model_client_is_imported_early_only_for_a_failure_it_will_see(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, warmed: int
) -> None:
    """A fixable failure with a model set starts litellm's import in the background right after
    the initial check; a green start never does."""
    from fixbot.agent import llm

    calls: list[int] = []
    monkeypatch.setattr(llm, "warm_up", lambda: calls.append(1))
    repo = value_repo(tmp_path, value)
    settings = Settings(check=CHECK, model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9")
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert len(calls) == warmed


@pytest.mark.slow
def test_warm_up_imports_litellm_in_the_background() -> None:
    import subprocess

    script = (
        "import sys; from fixbot.agent import llm\n"
        "thread = llm.warm_up(); assert thread is not None and thread.daemon\n"
        "assert llm.warm_up() is None\n"  # once a process
        "thread.join(); assert 'litellm' in sys.modules; print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=300
    )
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.slow
def test_fix_commands_that_make_progress_run_again_on_the_same_signature(tmp_path: Path) -> None:
    """A fix command that fixes one step a run (3 failing, then 2, then green, the failure's
    signature the same throughout): its progress is kept, and it runs again."""
    check = (
        "import pathlib, sys\n"
        "n = {'a': 3, 'b': 2}.get(pathlib.Path('value.txt').read_text().strip(), 0)\n"
        "if n:\n"
        "    print(f'FAILED test_v.py::test_v - AssertionError: value\\n{n} failed, 1 passed')\n"
        "    sys.exit(1)\n"
    )
    step = (
        "import pathlib\np = pathlib.Path('value.txt')\n"
        "p.write_text({'a': 'b', 'b': 'ok'}[p.read_text().strip()] + '\\n')\n"
    )
    repo = make_repo(tmp_path / "repo", {"check.py": check, "step.py": step, "value.txt": "a\n"})
    settings = Settings(
        check=f"{sys.executable} check.py", fix_commands=[f"{sys.executable} step.py"]
    )
    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=None)
    assert outcome.outcome is OutcomeKind.FIXED, [a.summary for a in state.fix_attempts]
    assert [a.undone for a in state.fix_attempts] == [False, False]
