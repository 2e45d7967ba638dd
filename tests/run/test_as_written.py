"""The check run again as written before a green go fix is committed (`judging.as_written`,
`Checker.run_as_written`): the observed run turns go test's vet step off (`-vet=off`, go 1.19's
vet cannot read the observer's overlay), so a fix whose `go test` fails in vet would otherwise be
published. The end-to-end row: tests/run/test_runner_attacks_round20.py
`::test_go_fix_that_adds_a_vet_error_is_not_published`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from fixbot.core.failure import CheckResult
from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.process.launcher import launcher_for
from fixbot.run.phases import judging
from fixbot.run.verify import AS_WRITTEN_LOG, Checker
from fixbot.security.redact import Redactor

VET_TAIL = (
    "# example.com/app\n"
    './app.go:9:30: fmt.Sprintf format %d has arg "x" of wrong type string\n'
    "FAIL\texample.com/app [build failed]\nFAIL\n"
)


def test_the_check_runs_again_as_written_with_go_s_test_cache_off(tmp_path: Path) -> None:
    """The project's words run through the run's launcher, no observer's variable, `-count=1`
    after the check's own GOFLAGS; its log is the attempt's `check-as-written.log`."""
    env = {"PATH": "/usr/bin:/bin", "GOFLAGS": "-mod=mod"}
    settings = Settings(check='echo "flags=$GOFLAGS observer=${FIXBOT_GO_OBSERVER-none}"; exit 3')
    launcher = launcher_for(settings, tmp_path, env, None, Redactor.from_env(env))
    checker = Checker(
        settings, tmp_path, tmp_path, tmp_path / ".fixbot", Redactor.from_env(env),
        None, env, None, launcher,  # type: ignore[arg-type]
    )  # fmt: skip
    result = checker.run_as_written(Attempt(number=1))
    assert result.exit_code == 3 and not result.passed
    assert result.log_path == tmp_path / ".fixbot" / "attempts" / "001" / AS_WRITTEN_LOG
    assert "flags=-mod=mod -count=1 observer=none" in result.log_path.read_text()


class FakeChecker:
    """Answers `run_as_written` with `exit_code`, counting the runs."""

    def __init__(self, exit_code: int) -> None:
        self.exit_code, self.runs = exit_code, 0

    def run_as_written(self, attempt: Attempt) -> CheckResult:
        self.runs += 1
        tail = VET_TAIL if self.exit_code else "ok\texample.com/app\t0.01s\n"
        return CheckResult(
            command="go test ./...",
            exit_code=self.exit_code,
            duration_s=0.5,
            log_path=Path("/nowhere/check-as-written.log"),
            output_bytes=len(tail),
            tail=tail,
        )


def fake_run(exit_code: int) -> Any:
    """The parts of a run `as_written` uses."""
    progress = SimpleNamespace(lines=[])
    progress.line = progress.lines.append
    events = SimpleNamespace(emitted=[])
    events.emit = lambda event, number, **fields: events.emitted.append((event, number, fields))
    return SimpleNamespace(
        checker=FakeChecker(exit_code),
        progress=progress,
        redactor=Redactor.from_env({}),
        events=events,
        repo=Path("/nowhere"),
    )


def test_only_a_go_observed_fix_runs_again_and_a_red_run_is_a_finding() -> None:
    for seen in (None, Observation(runners=["jest"]), Observation()):
        run, attempt = fake_run(2), Attempt(number=1, seen=seen)
        assert judging.as_written(run, attempt) and run.checker.runs == 0
    run, attempt = fake_run(0), Attempt(number=1, seen=Observation(runners=["go"]))
    assert judging.as_written(run, attempt) and run.checker.runs == 1 and not attempt.observed
    run, attempt = fake_run(2), Attempt(number=1, seen=Observation(runners=["go"]))
    assert not judging.as_written(run, attempt) and run.checker.runs == 1
    [finding] = attempt.observed
    [(event, number, fields)] = run.events.emitted
    assert (event, number) == ("check-as-written", 1)
    assert fields["exit_code"] == 2 and fields["log"] == "check-as-written.log"
    assert finding.startswith("check-as-written: ") and "vet step on" in finding
    assert '(exit 2: ./app.go:9:30: fmt.Sprintf format %d has arg "x" of wrong type' in finding
    assert "FAIL" not in finding and "# example.com" not in finding
