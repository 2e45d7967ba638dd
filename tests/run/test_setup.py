"""The set-up phase (fixbot/run/setup.py): the manifest rule, when the set-up is due, and running it
for real (a subprocess writing a log in a temporary state folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.errors import EXIT_ERROR, SetupError
from fixbot.core.models import Attempt
from fixbot.policy.manifests import (
    NEXT_STEP,
    SetupDue,
    SetupReason,
    SetupRun,
    changed_manifests,
    failure_details,
    failure_reason,
    is_manifest,
    missing_tool_hint,
    missing_tool_notes,
    setup_due,
)
from fixbot.process.launcher import Launcher
from fixbot.run.setup import (
    SetupCall,
    exclude_created,
    log_path,
    raise_for,
    run_setup,
    untracked,
)
from fixbot.security.redact import Redactor
from tests.fakes.repo import git


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "pkg/setup.cfg",
        "setup.py",
        "requirements.txt",
        "requirements-dev.txt",
        "dev-requirements.txt",
        "ci/requirements_test.in",
        "requirements/base.txt",
        "web/package.json",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "uv.lock",
        "poetry.lock",
        "go.mod",
        "go.sum",
        "Cargo.toml",
        "crates/x/Cargo.lock",
    ],
)
def test_dependency_manifests_and_lock_files_are_recognised(path: str) -> None:
    assert is_manifest(path)


@pytest.mark.parametrize(
    "path",
    [
        "app.py",
        "src/setup_helpers.py",
        "docs/requirements.md",
        "notes.txt",
        "tests/test_package.json.py",
        "pyproject.toml.bak",
        "my-package.json",
        "requirements/README.md",
    ],
)
def test_other_files_are_not_manifests(path: str) -> None:
    assert not is_manifest(path)


def test_changed_manifests_keeps_only_manifests_sorted_once() -> None:
    changed = ["app.py", "pyproject.toml", "web/package.json", "pyproject.toml", "README.md"]
    assert changed_manifests(changed) == ["pyproject.toml", "web/package.json"]


def test_source_files_never_trigger_a_second_set_up() -> None:
    paths = ["app.py", "src/lib/setup.js", "tests/run/test_setup.py", "docs/package.md", "main.rs"]
    assert changed_manifests(paths) == []
    assert setup_due(True, [run_record(0)], 3, paths) is None


def run_record(attempt: int, exit_code: int | None = 0) -> SetupRun:
    return SetupRun(
        command="make deps",
        reason=SetupReason.INITIAL if attempt == 0 else SetupReason.MANIFEST,
        attempt=attempt,
        exit_code=exit_code,
        timed_out=exit_code is None,
        timeout_s=900,
        duration_s=1.0,
        log_path=".fixbot/setup.log",
    )


def test_set_up_is_due_once_before_the_initial_check() -> None:
    due = setup_due(True, [], 0, [])
    assert due == SetupDue(reason=SetupReason.INITIAL, attempt=0)
    assert setup_due(True, [run_record(0)], 0, []) is None  # a resumed run: done already
    assert setup_due(True, [run_record(0, exit_code=1)], 0, []) == due  # failed: run it again


def test_no_command_means_no_set_up() -> None:
    assert setup_due(False, [], 0, []) is None
    assert setup_due(False, [], 2, ["pyproject.toml"]) is None


def test_set_up_runs_again_only_for_a_fix_that_changed_a_manifest() -> None:
    runs = [run_record(0)]
    assert setup_due(True, runs, 1, ["app.py"]) is None
    due = setup_due(True, runs, 2, ["app.py", "requirements.txt"])
    assert due == SetupDue(reason=SetupReason.MANIFEST, attempt=2, manifests=["requirements.txt"])
    assert setup_due(True, [*runs, run_record(2)], 2, ["requirements.txt"]) is None


def test_log_paths_initial_and_rerun(tmp_path: Path) -> None:
    assert log_path(tmp_path, SetupDue(reason=SetupReason.INITIAL, attempt=0)) == (
        tmp_path / "setup.log"
    )
    rerun = SetupDue(reason=SetupReason.MANIFEST, attempt=4, manifests=["go.mod"])
    assert log_path(tmp_path, rerun) == tmp_path / "attempts" / "004" / "setup.log"


def run(tmp_path: Path, command: str, timeout: float = 30, **env: str) -> SetupRun:
    workdir = tmp_path / "pkg"
    workdir.mkdir(exist_ok=True)
    full_env = {"PATH": "/usr/bin:/bin", **env}
    redact = Redactor.from_env(env).redact
    return run_setup(
        SetupCall(
            command,
            SetupDue(reason=SetupReason.INITIAL, attempt=0),
            repo=tmp_path,
            workdir=workdir,
            state_dir=tmp_path / ".fixbot",
            timeout=timeout,
            launcher=Launcher(tmp_path, full_env, redact=redact, deadline=Deadline.start(None)),
        )
    )


def test_run_setup_runs_in_the_workdir_with_the_given_environment(tmp_path: Path) -> None:
    result = run(tmp_path, 'pwd; echo "marker=$MARKER"; touch made-here', MARKER="visible")

    assert result.ok and result.exit_code == 0
    assert result.log_path == ".fixbot/setup.log"
    log = (tmp_path / ".fixbot" / "setup.log").read_text()
    assert f"{tmp_path / 'pkg'}\n" in log and "marker=visible" in log
    assert (tmp_path / "pkg" / "made-here").exists()


def test_run_setup_redacts_the_log_and_the_tail(tmp_path: Path) -> None:
    secret = "registry-password-0123456789"
    result = run(tmp_path, 'echo "using $REGISTRY_TOKEN"; exit 3', REGISTRY_TOKEN=secret)

    assert not result.ok and result.exit_code == 3
    assert secret not in (tmp_path / ".fixbot" / "setup.log").read_text()
    assert "using [REDACTED]" in result.tail


def test_run_setup_keeps_the_last_lines_only(tmp_path: Path) -> None:
    result = run(tmp_path, "for i in $(seq 1 100); do echo line-$i; done; exit 1")

    lines = result.tail.splitlines()
    assert lines[-1] == "line-100" and len(lines) == 20 and lines[0] == "line-81"


def test_run_setup_has_its_own_timeout(tmp_path: Path) -> None:
    result = run(tmp_path, "echo starting; sleep 30", timeout=0.5)

    assert result.timed_out and result.exit_code is None and not result.ok
    assert "timed out after 0.5 s (setup-timeout)" in failure_reason(result)


def test_a_failed_set_up_raises_setup_error_with_the_reason(tmp_path: Path) -> None:
    result = run(tmp_path, "echo 'No matching distribution found for nothere'; exit 1")

    with pytest.raises(SetupError) as caught:
        raise_for(result)
    assert caught.value.exit_code == EXIT_ERROR
    assert str(caught.value).startswith("setup failed: `echo")
    assert "exited with code 1" in str(caught.value) and NEXT_STEP in str(caught.value)
    details = failure_details(result)
    assert "- Exit code: 1" in details and "No matching distribution found" in details
    assert "fix it in the workflow" in details and "`.fixbot/setup.log`" in details


def test_a_successful_set_up_does_not_raise(tmp_path: Path) -> None:
    raise_for(run(tmp_path, "true"))


def test_reason_of_a_rerun_names_the_attempt_and_manifests() -> None:
    record = run_record(2, exit_code=1).model_copy(update={"manifests": ["pyproject.toml"]})
    assert "after fix attempt 2 changed pyproject.toml" in failure_reason(record)


def test_failure_details_fence_survives_backticks_in_the_output() -> None:
    record = run_record(0, exit_code=2).model_copy(update={"tail": "```\nboom"})
    assert "````text\n```\nboom\n````" in failure_details(record)


def test_missing_tool_hint_depends_on_where_the_check_ran() -> None:
    container = missing_tool_hint("command_not_found", 127, "container")
    assert "inside fixbot's container" in container and "setup-command" in container
    assert "runner mode" in container
    assert "earlier step" in missing_tool_hint(None, 127, "runner")
    assert missing_tool_hint("command_not_found", 127, None) == ""
    assert missing_tool_hint("assertion", 1, "container") == ""


def test_what_the_set_up_creates_is_excluded_from_git(repo: Path) -> None:
    (repo / "notes.txt").write_text("the user's own untracked file\n")
    before = untracked(repo)
    for path in [".venv/bin/python", "pkg.egg-info/PKG-INFO", "we*ird [x].txt", "node_modules/a"]:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("made by the set-up\n")

    created = exclude_created(repo, before)

    assert created == [".venv/", "node_modules/", "pkg.egg-info/", "we*ird [x].txt"]
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == "?? notes.txt"
    (repo / "weird.txt").write_text("not matched by the escaped pattern\n")
    assert "weird.txt" in git(repo, "status", "--porcelain")


def test_missing_tool_notes_read_the_last_check_only() -> None:
    missing = Attempt(
        number=0, done=True, passed=False, exit_code=127, category="command_not_found"
    )
    notes = missing_tool_notes([missing], "container")
    assert notes == [
        "the check could not find a command (exit 127): the check runs inside fixbot's "
        "container; install your tools with `setup-command`, or use the runner mode "
        "(`uses: <owner>/fixbot/runner@v1`)"
    ]
    green = Attempt(number=1, done=True, passed=True, exit_code=0)
    assert missing_tool_notes([missing, green], "container") == []
    assert missing_tool_notes([], "container") == []
