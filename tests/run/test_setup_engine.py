"""The set-up phase in the loop, in-process: a real set-up subprocess and check in a real
repository, a scripted fixer. The check needs a file only the set-up writes (outside the
repository), and counts nothing else."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.policy.manifests import SetupDue, SetupReason
from fixbot.process import sync, worlds
from fixbot.process.launcher import launcher_for
from fixbot.run import engine
from fixbot.run.engine import Agents
from fixbot.run.setup import SetupCall, prepare
from fixbot.run.store import load_state, prepare_state, save_state
from fixbot.security.redact import Redactor
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo, state_of

# The check passes when value.txt says ok and the set-up installed the version value.txt wants.
CHECK_PY = """\
import pathlib, sys
installed = pathlib.Path(sys.argv[1])
if not installed.exists():
    print("check.py:3: the project is not installed: run the set-up")
    sys.exit(1)
wanted = pathlib.Path("requirements.txt").read_text().strip()
if installed.read_text().strip() != wanted:
    print(f"check.py:7: installed {installed.read_text().strip()}, requirements want {wanted}")
    sys.exit(1)
if pathlib.Path("value.txt").read_text().strip() != "ok":
    print("FAILED test_value.py::test_value - AssertionError: value is wrong")
    sys.exit(1)
print("1 passed")
"""


def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The repository, the file the set-up installs, and the log of set-up runs."""
    repo = make_repo(
        tmp_path / "repo",
        {"check.py": CHECK_PY, "value.txt": "bad\n", "requirements.txt": "lib==1\n"},
    )
    return repo, tmp_path / "installed.txt", tmp_path / "setup-runs.txt"


def settings_for(installed: Path, runs: Path, **kw: object) -> Settings:
    setup = f"cp requirements.txt {installed} && echo ran >> {runs} && mkdir -p build/lib"
    return Settings(  # type: ignore[arg-type]
        check=f"{sys.executable} check.py {installed}", setup=setup, **kw
    )


@pytest.mark.slow
def test_set_up_runs_once_before_the_first_check_and_its_files_are_not_committed(
    tmp_path: Path,
) -> None:
    repo, installed, runs = project(tmp_path)
    fixer = ScriptedFixer().enqueue({"value.txt": "still bad\n"}, {"value.txt": "ok\n"})

    outcome, state = engine.run(
        settings_for(installed, runs), repo, env=dict(os.environ), agents=Agents(fixer)
    )

    assert outcome.outcome is OutcomeKind.FIXED and outcome.attempts == 2
    assert runs.read_text().splitlines() == ["ran"]
    assert [(s.attempt, s.reason, s.exit_code) for s in state.setups] == [
        (0, SetupReason.INITIAL, 0)
    ]
    assert (state_of(repo) / "setup.log").exists()
    assert "build" not in git(repo, "ls-tree", "-r", "--name-only", "HEAD")
    assert (repo / "build").exists()  # the set-up's files stay in the workspace, uncommitted
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    report = (repo / ".fixbot" / "report.md").read_text()
    assert "- Set-up: `cp requirements.txt" in report and "exit 0" in report


@pytest.mark.slow
def test_a_fix_that_changes_a_manifest_runs_the_set_up_again_before_its_check(
    tmp_path: Path,
) -> None:
    repo, installed, runs = project(tmp_path)
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n", "requirements.txt": "lib==2\n"})

    outcome, state = engine.run(
        settings_for(installed, runs), repo, env=dict(os.environ), agents=Agents(fixer)
    )

    assert outcome.outcome is OutcomeKind.FIXED, state.attempts[-1].excerpt
    assert runs.read_text().splitlines() == ["ran", "ran"]
    assert installed.read_text().strip() == "lib==2"
    rerun = state.setups[1]
    assert (rerun.attempt, rerun.reason, rerun.manifests) == (
        1,
        SetupReason.MANIFEST,
        ["requirements.txt"],
    )
    assert rerun.log_path == ".fixbot/attempts/001/setup.log"


@pytest.mark.slow
def test_a_resumed_run_does_not_repeat_a_set_up_that_ran(tmp_path: Path) -> None:
    repo, installed, runs = project(tmp_path)
    settings = settings_for(installed, runs)
    (repo / "value.txt").write_text("ok\n")
    git(repo, "commit", "-qam", "green")
    private = worlds.private_folder(repo, worlds.state_base(os.geteuid(), os.environ))
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):  # a run's clone and state, as a run makes them
        fixbot, _ = engine.own_clone(settings, repo, private)
        sync.Worlds(fixbot, repo).write_files()  # the set-up below runs in the clone itself
        first = prepare_state(settings, fixbot)
    first.setups.append(
        prepare(
            SetupCall(
                str(settings.setup),
                SetupDue(reason=SetupReason.INITIAL, attempt=0),
                repo=fixbot,
                workdir=fixbot,
                state_dir=fixbot / ".fixbot",
                timeout=60,
                launcher=launcher_for(  # the run's, in fixbot's clone
                    settings,
                    fixbot,
                    dict(os.environ),
                    None,
                    Redactor.from_env({}),
                    Deadline.start(settings.max_duration),
                ),
            )
        )
    )
    save_state(fixbot / ".fixbot", first)  # killed here: the set-up ran, no check yet

    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(ScriptedFixer())
    )

    assert outcome.outcome is OutcomeKind.PASSED
    assert runs.read_text().splitlines() == ["ran"]  # not run again
    assert len(state.setups) == 1 and load_state(state_of(repo)) == state


def test_a_failed_set_up_ends_the_run_as_an_error_before_any_check_or_fix(tmp_path: Path) -> None:
    repo, installed, _ = project(tmp_path)
    settings = Settings(
        check=f"{sys.executable} check.py {installed}",
        setup="echo 'resolver: lib==1 not found' >&2; exit 7",
    )
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})

    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))

    assert outcome.outcome is OutcomeKind.ERROR and outcome.exit_code == 2
    assert outcome.reason.startswith("setup failed: `echo")
    assert "exited with code 7" in outcome.reason
    assert state.attempts == [] and fixer.history == []  # no check, no fixer, no model
    report = (repo / ".fixbot" / "report.md").read_text()
    assert "## Set-up failed" in report and "- Exit code: 7" in report
    assert "resolver: lib==1 not found" in report
    assert "the setup command failed; fix it in the workflow" in report
    assert "## Attempts" not in report
    assert git(repo, "log", "--oneline").count("\n") == 0  # nothing committed


@pytest.mark.slow
def test_a_fix_whose_manifest_breaks_the_set_up_ends_the_run_without_committing(
    tmp_path: Path,
) -> None:
    repo, installed, runs = project(tmp_path)
    settings = Settings(
        check=f"{sys.executable} check.py {installed}",
        setup=f"echo ran >> {runs}; cp requirements.txt {installed}; "
        "! grep -q nothere requirements.txt",
    )
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n", "requirements.txt": "nothere==9\n"})

    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))

    assert outcome.outcome is OutcomeKind.ERROR
    assert outcome.reason.endswith(
        "after fix attempt 1 changed requirements.txt; the setup command failed; fix it in the "
        "workflow"
    )
    assert runs.read_text().splitlines() == ["ran", "ran"]
    assert not state.attempts[-1].done  # the fix was never verified, so never committed
    assert git(repo, "log", "--oneline").count("\n") == 0


@pytest.mark.slow
def test_tracked_files_the_set_up_rewrites_are_reported(tmp_path: Path) -> None:
    repo, installed, runs = project(tmp_path)
    settings = settings_for(installed, runs).model_copy(
        update={"setup": f"cp requirements.txt {installed} && echo '# pinned' >> requirements.txt"}
    )
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(ScriptedFixer())
    )

    assert outcome.outcome is OutcomeKind.ESCALATED  # the check wants the unmodified pin
    assert state.setups[0].changed_tracked == ["requirements.txt"]
    report = (repo / ".fixbot" / "report.md").read_text()
    assert 'it changed tracked files: "requirements.txt"' in report
