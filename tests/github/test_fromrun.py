"""`fixbot run --from-log FILE|-` and `--from-run RUN`: a failure log from elsewhere is the first
failing run, so the check runs only to verify fixes (counted through a file outside the repo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.counted import CALC_BUGGY, CHECK_PY, CheckCounter
from tests.fakes.github_server import BLOB_PREFIX, FakeGitHub
from tests.fakes.paths import DATA
from tests.fakes.repo import CliResult, git, make_repo, run_fixbot, state_of

JOBLOGS = DATA / "joblogs"
FIX = "python -c \"import pathlib; p = pathlib.Path('calc.py'); p.write_text(p.read_text().replace(' - 1', ''))\""  # noqa: E501
SECRET = "sk-test-SECRETVALUE1234567890"


class Project:
    """A repository whose check fails (off by one), fixed by a fix command."""

    def __init__(self, root: Path) -> None:
        self.counter = CheckCounter(root / "check-runs.txt")
        files = {"calc.py": CALC_BUGGY, "check.py": CHECK_PY}
        self.repo = make_repo(root / "repo", files)

    @property
    def checks(self) -> int:
        return self.counter.runs

    def run(
        self, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> CliResult:
        check = self.counter.command
        common = ["run", "--check", check, "--fix-command", FIX, "-C", str(self.repo), "--json"]
        return run_fixbot(*common, *args, env=env, stdin=stdin)

    def state(self) -> dict[str, object]:
        data: dict[str, object] = json.loads((state_of(self.repo) / "state.json").read_text())
        return data


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.slow
def test_from_log_skips_the_initial_check_and_verifies_the_fix(
    project: Project, tmp_path: Path
) -> None:
    log = tmp_path / "ci.log"
    checkout = f"HEAD is now at {git(project.repo, 'rev-parse', '--short', 'HEAD')} initial\n"
    text = (JOBLOGS / "pytest-failure.log").read_text()
    log.write_text(checkout + text + f"token {SECRET}\n")
    result = project.run("--from-log", str(log), env={"OPENAI_API_KEY": SECRET})

    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "fixed"
    assert project.checks == 1  # the verifying run only
    seeded = (state_of(project.repo) / "attempts/000/check.log").read_text()
    assert "E       assert 2 == 3" in seeded and "##[" not in seeded
    assert SECRET not in seeded  # redacted like any check log
    report = (project.repo / ".fixbot/report.md").read_text()
    assert f"the first failing run is the log of `{log}`" in report
    assert "one full check saved" in report


@pytest.mark.slow
def test_from_log_reads_standard_input_with_the_job_and_step(project: Project) -> None:
    sha = git(project.repo, "rev-parse", "HEAD")
    raw = (
        "test\tSet up job\t2026-11-20T09:59:59.0000000Z /usr/bin/git log -1 --format=%H\n"
        f"test\tSet up job\t2026-11-20T09:59:59.1000000Z {sha}\n"
        "test\tRun tests\t2026-11-20T10:00:00.0000000Z ##[group]Run python check.py\n"
        "test\tRun tests\t2026-11-20T10:00:01.0000000Z test_calc.py:4: AssertionError: assert "
        "2 == 3\n"
        "test\tRun tests\t2026-11-20T10:00:01.1000000Z ##[error]Process completed with exit "
        "code 1.\n"
    )
    result = project.run("--from-log", "-", stdin=raw)

    assert result.code == 0 and project.checks == 1, result.stderr
    state = project.state()
    first = state["attempts"][0]  # type: ignore[index]
    assert first["exit_code"] == 1 and first["category"] == "assertion"


@pytest.mark.slow
def test_a_transient_log_is_not_fixed_the_check_runs_instead(
    project: Project, tmp_path: Path
) -> None:
    log = tmp_path / "ci.log"
    log.write_text((JOBLOGS / "network-failure.log").read_text())
    result = project.run("--from-log", str(log))

    assert result.code == 0, result.stderr
    assert "shows a transient failure (network)" in result.stderr
    assert project.checks == 2  # the initial check, then the verifying one


@pytest.mark.slow
def test_from_run_reads_the_failed_jobs_logs_from_github(
    project: Project, github_server: FakeGitHub
) -> None:
    text = (JOBLOGS / "pytest-failure.log").read_text()
    steps = [("Set up job", "success"), ("Run tests", "failure")]
    github_server.add_run("octo/app", 77, "f" * 40, "main", [("test", "failure", steps, text)])
    env = {"GH_TOKEN": "ghs_fromrun", "GITHUB_API_URL": github_server.url}
    result = project.run("--from-run", "https://github.com/octo/app/actions/runs/77", env=env)

    assert result.code == 0 and project.checks == 2, result.stderr  # another commit's log
    assert "run 77 checked ffffffffffff, this checkout is at" in result.stderr
    assert "the check runs here first" in result.stderr
    blob = [r for r in github_server.requests if r.path.startswith(BLOB_PREFIX)]
    assert len(blob) == 1 and github_server.unmatched == []
    report = (project.repo / ".fixbot/report.md").read_text()
    assert "job `test`, step `Run tests` of run 77 (attempt 1)" in report


@pytest.mark.slow
def test_from_run_without_a_token_says_how_to_get_one(project: Project) -> None:
    result = project.run("--from-run", "123", env={"GITHUB_TOKEN": "", "GH_TOKEN": ""})
    assert result.code == 2 and "GH_TOKEN=$(gh auth token)" in result.stderr
    assert project.checks == 0


@pytest.mark.slow
def test_from_log_and_from_run_are_exclusive(project: Project) -> None:
    result = project.run("--from-log", "x.log", "--from-run", "1")
    assert result.code == 2 and "not allowed with argument" in result.stderr


@pytest.mark.slow
def test_a_missing_log_is_a_configuration_error(project: Project, tmp_path: Path) -> None:
    result = project.run("--from-log", str(tmp_path / "nope.log"))
    assert result.code == 2 and "cannot read the log" in result.stderr
    assert project.checks == 0
