"""Workflow commands and files (outputs, summary, annotations) and body limits."""

from __future__ import annotations

import io
from pathlib import Path

from fixbot.core.models import Outcome, OutcomeKind
from fixbot.github.publish import render
from fixbot.ui import workflow
from tests.fakes.action_env import parse_outputs


def test_outputs_survive_multiline_values_and_delimiter_lookalikes(tmp_path: Path) -> None:
    path = tmp_path / "out"
    values = {"reason": "line one\nEOF\nline three", "pr-url": ""}
    workflow.write_outputs(path, values)
    workflow.write_outputs(path, {"outcome": "fixed"})
    assert parse_outputs(path.read_text(encoding="utf-8")) == {**values, "outcome": "fixed"}


def test_summary_stays_under_one_mebibyte_in_total(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * 600_000, encoding="utf-8")
    workflow.write_summary(path, "é" * 400_000, "see the log")
    size = path.stat().st_size
    assert size <= workflow.SUMMARY_LIMIT_BYTES
    assert path.read_text(encoding="utf-8").endswith("see the log\n")
    small = tmp_path / "small.md"
    workflow.write_summary(small, "# ok\n", "unused")
    assert small.read_text(encoding="utf-8") == "# ok\n"


def test_annotations_only_for_repository_files_and_escaped() -> None:
    log = "app.py:3:5: F401 `os` unused\n/usr/lib/python3/x.py:1: boom\napp.py:3:5: again\n"
    found = workflow.find_annotations(log, ["app.py"])
    assert [(a.path, a.line, a.column) for a in found] == [("app.py", 3, 5)]
    out = io.StringIO()
    workflow.annotate(found[0].model_copy(update={"message": "50% done\nnext"}), out)
    workflow.mask("s3cr,et", out)
    assert (
        out.getvalue()
        == "::error file=app.py,line=3,col=5::50%25 done%0Anext\n::add-mask::s3cr,et\n"
    )


def test_bodies_are_cut_under_githubs_limit_with_a_pointer() -> None:
    data = render.Report(
        outcome=Outcome(outcome=OutcomeKind.ESCALATED, reason="breaker open"),
        report="r" * 100_000,
        links=render.Links(run_url="https://github.example/o/r/actions/runs/1"),
    )
    for body in (render.status_comment(data), render.pull_request_body(data)):
        assert len(body) <= render.BODY_LIMIT
        assert body.rstrip().endswith("(https://github.example/o/r/actions/runs/1).")
    assert render.status_comment(data).startswith(render.STATUS_MARKER)


def test_plain_lines_never_become_workflow_commands() -> None:
    assert workflow.plain_line("fixbot: escalated: a.py\n::error::pwned") == (
        "fixbot: escalated: a.py\\n::error::pwned"
    )
    assert workflow.plain_line("  ::add-mask::abc") == ">   ::add-mask::abc"
    assert workflow.plain_line("ok: 50% done") == "ok: 50% done"


def test_a_multiline_secret_is_masked_line_by_line() -> None:
    out = io.StringIO()
    workflow.mask("-----BEGIN KEY-----\nabc123\n-----END KEY-----", out)
    lines = out.getvalue().splitlines()
    assert "::add-mask::abc123" in lines and "::add-mask::-----BEGIN KEY-----" in lines
    assert all(line.startswith("::add-mask::") for line in lines)


def test_the_action_masks_every_secret_of_its_environment(tmp_path: Path) -> None:
    from fixbot.github import action

    out = io.StringIO()
    env = {
        "HF_TOKEN": "hf_secretvalue123",
        "DATABASE_URL": "postgres://app:pw-long-secret@db/app",
        "DEPLOY_SECRET": "multi\nline-secret-value",
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    action.main(env, out=out)  # fails later (no event): the masks come first
    lines = out.getvalue().splitlines()
    for value in ("hf_secretvalue123", "pw-long-secret", "line-secret-value"):
        assert f"::add-mask::{value}" in lines
