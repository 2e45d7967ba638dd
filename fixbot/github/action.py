"""`fixbot action`: the wiring of the Docker container action.

Reads the event and inputs, applies the gates, switches to the branch to fix, runs the engine,
publishes by the plan, and writes the job summary, annotations and step outputs. Exit code: 0
for passed/fixed/refused (and escalated with `fail-on-escalation: false`), 1 for escalated, 2
for errors (bad configuration, or a result that could not be published).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from fixbot import engine, git, setup
from fixbot.boundedlog import read_tail
from fixbot.config import load_settings, workflow_value
from fixbot.errors import ConfigError, GitHubError
from fixbot.eventlog import LOG_FILE, EventLog
from fixbot.github import checkout, gates, render, threads, workflow
from fixbot.github.event import Event, load_event
from fixbot.github.graphql import DEFAULT_URL, GraphQL
from fixbot.github.inputs import Inputs, read_inputs, variable
from fixbot.github.plan import Plan, PlanInput, make_plan, rescue_plan
from fixbot.github.rest import GitHub
from fixbot.leakscan import LeakRefused, known_secrets
from fixbot.models import Outcome, OutcomeKind, ReviewThread
from fixbot.outcome import state_dir_of
from fixbot.secrets import secret_values
from fixbot.settings import Settings
from fixbot.state import RunState

Connect = Callable[[str, str, str], GitHub]
ConnectGraphQL = Callable[[str, str], GraphQL]
# Removed from this process's environment once read. The check never sees them either way:
# the engine gives it `engine.check_environment(env)` (no inputs, tokens or model keys).
TOKEN_VARIABLES = (
    variable("github-token"),
    "GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)


@dataclass
class Context:
    """The run's environment, resolved once in `main`."""

    env: Mapping[str, str]
    inputs: Inputs
    out: TextIO
    connect: Connect
    workspace: Path
    run_url: str
    notes: list[str] = field(default_factory=list)
    fail_on_escalation: bool = True
    connect_graphql: ConnectGraphQL = GraphQL.connect

    @property
    def git_env(self) -> dict[str, str]:
        """Environment for git commands that reach the remote."""
        return checkout.auth_env(self.inputs.token, checkout.server_host(self.env))

    def graphql(self) -> GraphQL:
        """The GraphQL client at `GITHUB_GRAPHQL_URL` (no request made here)."""
        return self.connect_graphql(
            self.inputs.token, self.env.get("GITHUB_GRAPHQL_URL") or DEFAULT_URL
        )


@dataclass(frozen=True)
class Finished:
    """What the engine returned, and the review threads it was given."""

    outcome: Outcome
    state: RunState
    threads: list[ReviewThread]


def _context(env: Mapping[str, str], out: TextIO, connect: Connect) -> Context:
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    run_url = (
        f"{server}/{env.get('GITHUB_REPOSITORY', '')}/actions/runs/{env.get('GITHUB_RUN_ID', '')}"
    )
    inputs = read_inputs(env)
    return Context(
        dict(env), inputs, out, connect, Path(env.get("GITHUB_WORKSPACE") or Path.cwd()), run_url
    )


def main(
    env: Mapping[str, str], *, out: TextIO | None = None, connect: Connect = GitHub.connect
) -> int:
    """Run the Action in the environment `env` (the runner's variables); return the exit code."""
    ctx = _context(env, out or sys.stdout, connect)
    for value in [ctx.inputs.token, *secret_values(env)]:  # every secret of the environment
        workflow.mask(value, ctx.out)
    scrub_process_env()
    try:
        data = _run(ctx)
    except ConfigError as exc:
        data = _bare(ctx, OutcomeKind.ERROR, "; ".join(exc.problems))
    except (git.GitError, GitHubError) as exc:
        data = _bare(ctx, OutcomeKind.ERROR, str(exc))
    except LeakRefused as exc:  # a secret in the diff: nothing pushed, a human looks
        data = _bare(ctx, OutcomeKind.ESCALATED, str(exc))
    return _finish(ctx, data)


def scrub_process_env() -> None:
    """Remove the tokens from this process's environment, so nothing it starts inherits them.

    The token stays in `Context.inputs` for git and the REST client, and in `Context.env` (a
    copy) so the engine's redactor knows its exact value.
    """
    for name in TOKEN_VARIABLES:
        os.environ.pop(name, None)


def _bare(ctx: Context, kind: OutcomeKind, reason: str) -> render.Report:
    return render.Report(
        outcome=Outcome(outcome=kind, reason=reason),
        notes=ctx.notes,
        links=render.Links(run_url=ctx.run_url),
    )


def _run(ctx: Context) -> render.Report:
    event = load_event(ctx.env)
    verdict = gates.gate_event(event, bool(workflow_value(ctx.env, "allow_forks")))
    if not verdict.allowed:
        return _bare(ctx, OutcomeKind.REFUSED, verdict.reason)
    checkout.configure(ctx.workspace)
    _switch(ctx, event)
    author, subject = checkout.head_commit(ctx.workspace)
    head_verdict = gates.gate_head(author, subject)
    if not head_verdict.allowed:
        return _bare(ctx, OutcomeKind.REFUSED, head_verdict.reason)
    repo = (ctx.workspace / ctx.inputs.working_directory).resolve()
    warnings: list[str] = []
    settings = load_settings(repo, {}, ctx.env, action=True, warnings=warnings)
    for warning in warnings:
        workflow.warning(warning, ctx.out)
    ctx.notes.extend(warnings)
    ctx.fail_on_escalation = settings.fail_on_escalation
    open_threads = _fetch_threads(ctx, event, settings)
    workflow.group("fixbot run", ctx.out)
    try:
        outcome, state = engine.run(
            settings, repo, env=ctx.env, threads=open_threads, hint=settings.hint
        )
    finally:
        workflow.endgroup(ctx.out)
    ctx.notes.extend(setup.missing_tool_notes(state.attempts, ctx.env.get("FIXBOT_RUNTIME")))
    return _publish(
        ctx, event, settings, Finished(outcome, state, open_threads), verdict.patch_only
    )


def _fetch_threads(ctx: Context, event: Event, settings: Settings) -> list[ReviewThread]:
    """The open review threads of a same-repository pull_request event (up to `max-threads`).

    A refusal (missing `pull-requests: read`) is a note: the check is fixed without threads.
    """
    pr = event.pull_request
    if event.name != "pull_request" or pr is None or event.fork or settings.max_threads <= 0:
        return []
    owner, name = event.repository.split("/", 1)
    try:
        found = ctx.graphql().fetch_threads(owner, name, pr.number, settings.max_threads)
    except GitHubError as exc:
        ctx.notes.append(f"review threads were not read: {exc}")
        return []
    ctx.out.write(f"fixbot: {len(found)} open review thread(s) given to the model\n")
    return found


def _switch(ctx: Context, event: Event) -> None:
    pr = event.pull_request
    if event.fork and pr is not None:
        checkout.switch(
            ctx.workspace,
            f"refs/pull/{pr.number}/head",
            f"fixbot/pr-{pr.number}",
            pr.head_sha,
            ctx.git_env,
        )
    else:
        checkout.switch(
            ctx.workspace, f"refs/heads/{event.branch}", str(event.branch), event.sha, ctx.git_env
        )


def _publish(
    ctx: Context,
    event: Event,
    settings: Settings,
    result: Finished,
    patch_only: bool,
) -> render.Report:
    outcome, state, open_threads = result.outcome, result.state, result.threads
    root = ctx.workspace
    plan = make_plan(
        PlanInput(
            event=event,
            outcome=outcome.outcome,
            on_success=settings.on_success,
            on_escalation=settings.on_escalation,
            patch_only=patch_only,
            has_commits=checkout.commits_since(root, state.start_sha) > 0,
            best_snapshot=state.best_snapshot,
            run_id=ctx.env.get("GITHUB_RUN_ID", "0"),
        )
    )
    ctx.notes.extend(plan.notes)
    data = render.Report(
        outcome=outcome,
        report=_read_report(outcome),
        notes=ctx.notes,
        patch=checkout.patch(root, state.start_sha, _secrets(ctx)) if plan.patch else None,
        links=render.Links(run_url=ctx.run_url),
    )
    try:
        data = _push(ctx, plan, data, state)
    except git.GitError as exc:
        if not plan.push_branch:
            raise
        plan = rescue_plan(plan, ctx.env.get("GITHUB_RUN_ID", "0"))
        note = (
            f"pushing to `{plan.pull_request.base if plan.pull_request else ''}` failed "
            f"({str(exc).splitlines()[0]}); the verified fix went to `{plan.new_branch}` "
            "with a pull request instead, so nothing is lost"
        )
        ctx.notes.append(note)
        data = _push(ctx, plan, data.model_copy(update={"notes": [*data.notes, note]}), state)
    data = _address_threads(ctx, event, data, state, open_threads)
    data = _write_github(ctx, event, plan, data)
    if outcome.report_path:  # the event log is in the state folder
        log = EventLog(state_dir_of(Path(outcome.report_path)) / LOG_FILE, state.run_id)
        log.emit("publish", None, **data.links.model_dump(exclude={"run_url"}), source=plan.source)
    return data


def _address_threads(
    ctx: Context,
    event: Event,
    data: render.Report,
    state: RunState,
    open_threads: list[ReviewThread],
) -> render.Report:
    """Reply in and resolve the threads the intersection rule allows, once the fix is pushed
    to the pull request's own branch; record every thread's fate in `data.threads`."""
    if not open_threads:
        return data
    sha, branch = data.outcome.commit_sha, data.links.branch
    if data.outcome.outcome is not OutcomeKind.FIXED or not sha or branch != event.branch:
        note = "no fix was pushed to this pull request's branch, so no thread was resolved"
        return data.model_copy(update={"threads": threads.report(open_threads, [], note)})
    touched = git.run(ctx.workspace, "diff", "--name-only", "--no-renames", state.start_sha, sha)
    targets = threads.resolvable(open_threads, state.attempts, touched.splitlines())
    done, why = _resolve_all(ctx, targets, threads.reply_text(sha, data.links.commit_url))
    return data.model_copy(update={"threads": threads.report(open_threads, done, why)})


def _resolve_all(
    ctx: Context, targets: list[ReviewThread], reply: str
) -> tuple[list[ReviewThread], str | None]:
    """Resolve each of `targets`, then reply in it; stop at the first refusal and say why.

    Resolving first means a refused resolve leaves no reply claiming the thread is resolved.
    """
    done: list[ReviewThread] = []
    if not targets:
        return done, None
    client = ctx.graphql()
    for thread in targets:
        try:
            client.resolve(thread.id)
        except GitHubError as exc:
            return done, f"review threads were not all resolved: {exc}"
        done.append(thread)
        try:
            client.reply(thread.id, reply)
        except GitHubError as exc:
            return done, f"a resolved thread got no reply: {exc}"
    return done, None


def _read_report(outcome: Outcome) -> str:
    if not outcome.report_path:
        return ""
    path = Path(outcome.report_path)
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def _commit_url(ctx: Context, sha: str) -> str:
    server = ctx.env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    return f"{server}/{ctx.env.get('GITHUB_REPOSITORY', '')}/commit/{sha}"


def _push(ctx: Context, plan: Plan, data: render.Report, state: RunState) -> render.Report:
    branch = plan.push_branch or plan.new_branch
    if not branch or not plan.source:
        return data
    sha = state.best_snapshot if plan.source == "snapshot" else git.head_sha(ctx.workspace)
    checkout.push(
        ctx.workspace, str(sha), branch, ctx.git_env, base=state.start_sha, secrets=_secrets(ctx)
    )
    links = data.links.model_copy(
        update={
            "commit_url": _commit_url(ctx, str(sha)),
            "branch": branch,
            "pushed_with_github_token": plan.push_branch is not None,
        }
    )
    outcome = data.outcome.model_copy(update={"commit_sha": data.outcome.commit_sha or sha})
    return data.model_copy(update={"links": links, "outcome": outcome})


def _secrets(ctx: Context) -> dict[str, str]:
    return known_secrets(ctx.env, github_token=ctx.inputs.token)


def _title(data: render.Report, branch: str) -> str:
    if data.outcome.outcome is OutcomeKind.ESCALATED:
        return f"fixbot: best attempt at fixing {branch} (does not pass the check)"
    return f"fixbot: fix the check on {branch}"


def _write_github(ctx: Context, event: Event, plan: Plan, data: render.Report) -> render.Report:
    if plan.pull_request is None and plan.comment_pr is None and plan.issue_branch is None:
        return data
    gh = ctx.connect(
        ctx.inputs.token, ctx.env.get("GITHUB_API_URL", "https://api.github.com"), event.repository
    )
    if plan.pull_request is not None:
        url = gh.open_pull_request(
            plan.pull_request, _title(data, plan.pull_request.base), render.pull_request_body(data)
        )
        data = data.model_copy(
            update={
                "links": data.links.model_copy(update={"pr_url": url}),
                "outcome": data.outcome.model_copy(update={"pr_url": url}),
            }
        )
    if plan.issue_branch is not None:
        url = gh.upsert_issue(
            plan.issue_branch,
            render.issue_title(plan.issue_branch),
            render.issue_body(data, plan.issue_branch),
        )
        data = data.model_copy(update={"links": data.links.model_copy(update={"issue_url": url})})
    if plan.comment_pr is not None:
        gh.upsert_status_comment(
            plan.comment_pr, render.status_comment(data), create=plan.comment_create
        )
    return data


def _finish(ctx: Context, data: render.Report) -> int:
    out = data.outcome
    ctx.out.write(workflow.plain_line(f"fixbot: {out.outcome.value}: {out.reason}") + "\n")
    if out.outcome is OutcomeKind.ERROR:
        workflow.error(out.reason, ctx.out, title="fixbot")
    if out.outcome is OutcomeKind.ESCALATED:
        _annotate(ctx, out)
    if summary := ctx.env.get("GITHUB_STEP_SUMMARY"):
        workflow.write_summary(
            Path(summary), render.summary(data), f"See the run log: {ctx.run_url}"
        )
    if output := ctx.env.get("GITHUB_OUTPUT"):
        workflow.write_outputs(Path(output), outputs(out))
    if out.outcome is OutcomeKind.ESCALATED and not ctx.fail_on_escalation:
        return 0
    return out.exit_code


def outputs(outcome: Outcome) -> dict[str, str]:
    """The step outputs (action.yml `outputs:`), empty strings where unknown."""
    cost = "" if outcome.cost_usd is None else f"{outcome.cost_usd:.6f}"
    return {
        "outcome": outcome.outcome.value,
        "reason": outcome.reason,
        "attempts": str(outcome.attempts),
        "commit-sha": outcome.commit_sha or "",
        "pr-url": outcome.pr_url or "",
        "report-path": outcome.report_path or "",
        "cost-usd": cost,
    }


def _annotate(ctx: Context, outcome: Outcome) -> None:
    if not outcome.report_path:
        return
    state_log = _last_log(state_dir_of(Path(outcome.report_path)))
    if state_log is None:
        return
    text = read_tail(state_log, 200_000)  # bounded read, whatever the log's size
    for note in workflow.find_annotations(text, checkout.tracked_files(ctx.workspace)):
        workflow.annotate(note, ctx.out)


def _last_log(state_dir: Path) -> Path | None:
    logs = sorted((state_dir / "attempts").glob("*/check.log"))
    return logs[-1] if logs else None
