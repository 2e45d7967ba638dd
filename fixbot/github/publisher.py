"""Publishing a finished run: one plan (pure, `fixbot.github.publish.plan`) carried out here.

Pushes the fix (or the best attempt); when the branch moved while fixbot ran, replays the fix
onto its new tip, runs the check again (`fixbot.run.recheck.recheck`) and pushes that; rescues a
refused push (or a replay that conflicts or fails the check) onto a new branch; replies in and
resolves the review threads the intersection rule allows (batched GraphQL mutations), opens the
pull request or escalation issue, and writes the status comment with the run history.
"""

from __future__ import annotations

import time
from pathlib import Path

from fixbot.core.budget import Deadline
from fixbot.core.errors import GitHubError
from fixbot.core.models import Outcome, OutcomeKind
from fixbot.core.settings import Settings
from fixbot.github.api import checkout
from fixbot.github.api.context import Context, Finished
from fixbot.github.api.runs import Runs
from fixbot.github.events.data import Event
from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.publish import dispatch, hunks, memory, render, suggest
from fixbot.github.publish.memory import Conversation
from fixbot.github.publish.plan import (
    Plan,
    PlanInput,
    Source,
    make_plan,
    moved_note,
    rescue_note,
    rescue_plan,
)
from fixbot.github.replies import address_threads
from fixbot.process import git
from fixbot.run.eventlog import LOG_FILE, EventLog
from fixbot.run.outcome import state_dir_of
from fixbot.run.recheck import recheck
from fixbot.run.report import OnGitHub, render_report
from fixbot.security.leakscan import refuse_if_leaking


def publish(
    ctx: Context,
    event: Event,
    settings: Settings,
    result: Finished,
    patch_only: bool,
    talk: Conversation,
) -> render.Report:
    """Carry out the publish plan of `result`; return what the summary shows.

    When GitHub refuses the pull request, issue or comment after the push (`GitHubError`), the
    outcome becomes ERROR with GitHub's reason, and the pushed commit and branch stay in the
    outputs and the summary. Raises `git.GitError` when no push could be made and
    `fixbot.security.leakscan.LeakRefused` when the diff carries a secret.
    """
    outcome, state = result.outcome, result.state
    root = ctx.repo
    plan = make_plan(
        PlanInput(
            event=event,
            outcome=outcome.outcome,
            on_success=settings.on_success,
            on_escalation=settings.on_escalation,
            patch_only=patch_only,
            has_commits=checkout.commits_since(root, state.start_sha) > 0,
            best_snapshot=state.best_snapshot,
            run_id=ctx.run_id,
            test_change=any(a.pinned and a.commit_sha for a in state.attempts),
        )
    )
    ctx.notes.extend(plan.notes)
    data = render.Report(
        outcome=outcome,
        seconds=state.elapsed_s or None,
        tokens=state.tokens or None,
        report=read_report(outcome, github_report(ctx, event, settings, result)),
        notes=ctx.notes,
        patch=checkout.patch(root, state.start_sha, _secrets(ctx)) if plan.patch else None,
        links=render.Links(run_url=ctx.run_url),
    )
    plan, data, base = _push_any(ctx, settings, plan, data, result)
    data = address_threads(ctx, event, data, result, talk.left_out, base)
    data = rerun_ci(ctx, event, settings, data)
    try:
        data = _write_github(ctx, plan, data, result, talk)
    except GitHubError as exc:  # the commits are pushed: the outputs and summary still say so
        failed = data.outcome.model_copy(update={"outcome": OutcomeKind.ERROR, "reason": str(exc)})
        data = data.model_copy(update={"outcome": failed})
    if outcome.report_path:  # the run's event log is in the state folder
        # the run's engine has ended: its clock goes on from the time the run spent
        clock = Deadline.start(None, state.elapsed_s)
        log = EventLog(
            state_dir_of(Path(outcome.report_path)) / LOG_FILE, state.run_id, clock=clock
        )
        log.emit("publish", None, **data.links.model_dump(exclude={"run_url"}), source=plan.source)
    return data


def _push_any(
    ctx: Context, settings: Settings, plan: Plan, data: render.Report, result: Finished
) -> tuple[Plan, render.Report, str]:
    """Push by `plan`: the run's commits, or replayed on a branch that moved meanwhile, or (the
    push refused) rescued to a branch of fixbot's own; return the plan, the report and where
    fixbot's own commits start in what was pushed. Raises `git.GitError` when the plan pushes
    to no branch and the push failed."""
    state = result.state
    base = state.start_sha
    try:
        data = _push(ctx, plan, data, state.best_snapshot, state.start_sha)
    except checkout.BranchMoved:
        if not plan.push_branch:
            raise
        owner = ctx.workspace.stat()  # git writes files as fixbot's user while replaying
        try:
            plan, data, base = _replay(ctx, settings, plan, data, result)
        finally:
            checkout.give_back(ctx.workspace, owner)
    except git.GitError as exc:
        if not plan.push_branch:
            raise
        hint = str(exc).splitlines()[0].split(": ", 1)[-1].rstrip(".")  # checkout.push's hint
        why = f"pushing to `{plan.push_branch}` failed ({hint})"
        plan, data = _rescue(ctx, plan, data, state.start_sha, why)
    return plan, data, base


def rerun_ci(ctx: Context, event: Event, settings: Settings, data: render.Report) -> render.Report:
    """Dispatch the CI workflow(s) on the branch fixbot pushed a verified fix to, when the push
    was made with the job's `GITHUB_TOKEN` (see `fixbot.github.publish.dispatch`); link the
    new runs."""
    branch = data.links.branch
    if data.outcome.outcome is not OutcomeKind.FIXED or not data.links.commit_url or not branch:
        return data  # only a verified fix is worth a CI run (not an escalation's best attempt)
    if not dispatch.targets(settings.dispatch_workflows, event, job_token=True):
        return data  # nothing to dispatch whatever the token: no `GET /user`
    try:
        job_token = ctx.login() == BOT_LOGIN
    except GitHubError as exc:
        ctx.notes.append(f"CI was not dispatched: the token's user could not be read ({exc})")
        return data
    wanted = dispatch.targets(settings.dispatch_workflows, event, job_token)
    if not wanted:
        return data
    runs = Runs(ctx.rest())
    found = [runs.dispatch(workflow, branch) for workflow in wanted]
    links = data.links.model_copy(update={"dispatched": found})
    return data.model_copy(update={"links": links})


def read_report(outcome: Outcome, on_github: str = "") -> str:
    """The engine's markdown report (`on_github`, the version for GitHub's readers, when there
    is one), or '' when it wrote none."""
    if not outcome.report_path:
        return ""
    path = Path(outcome.report_path)
    if not path.is_file():
        return ""
    return on_github or path.read_text(encoding="utf-8", errors="replace")


def github_report(ctx: Context, event: Event, settings: Settings, result: Finished) -> str:
    """An escalation's report rendered for its reader on GitHub: next steps that work there
    (`/fixbot retry <hint>` on a pull request, the workflow's inputs elsewhere) and the job
    log's link, never a local command line or `.fixbot/attempts/`; redacted. '' for another
    outcome (its report has no next steps)."""
    if result.outcome.outcome is not OutcomeKind.ESCALATED:
        return ""
    place = OnGitHub(run_url=ctx.run_url, pull_request=event.pull_request is not None)
    text = render_report(result.state, settings, on_github=place)
    return ctx.redactor.redact(text)


def _secrets(ctx: Context) -> dict[str, str]:
    """Every secret fixbot knows (name -> value), for the scan before a push or a patch."""
    return dict(ctx.secrets)


def _rescue(
    ctx: Context, plan: Plan, data: render.Report, start: str, why: str, sha: str | None = None
) -> tuple[Plan, render.Report]:
    """Push the verified commits (HEAD, or `sha`) to a new branch with a pull request, noting
    `why` the push to the branch did not land."""
    plan = rescue_plan(plan, ctx.run_id)
    note = rescue_note(plan, why)
    ctx.notes.append(note)
    noted = data.model_copy(update={"notes": [*data.notes, note]})
    return plan, _push(ctx, plan, noted, None, start, sha)


def _replay(
    ctx: Context, settings: Settings, plan: Plan, data: render.Report, result: Finished
) -> tuple[Plan, render.Report, str]:
    """The push to `plan.push_branch` was rejected because the branch moved: replay the fix onto
    its new tip, run the check again and push that; otherwise rescue the verified commits.

    Returns the plan carried out, the report, and where fixbot's own commits start in what was
    pushed (the new tip, or the run's start sha for the rescue).
    """
    branch, start, root = str(plan.push_branch), result.state.start_sha, ctx.repo
    verified = git.head_sha(root)
    try:
        replayed = checkout.replay(root, branch, start, ctx.git_env)
    except git.GitError as exc:
        failed = (
            f"`{branch}` moved while fixbot ran; fetching it failed ({str(exc).splitlines()[0]})"
        )
        return (*_rescue(ctx, plan, data, start, failed, verified), start)
    why: str | None = replayed.problem or None
    if replayed.sha is not None:
        pushed = False
        try:
            why = _verify_and_push(ctx, settings, branch, replayed, result.state.run_id)
            pushed = why is None
        finally:  # the work tree follows what origin has: the replayed fix, or the verified one
            if pushed:
                checkout.adopt(root, branch)
            else:
                checkout.restore(root, replayed.back)
    note = moved_note(branch, replayed.tip, why)
    if why is not None:
        return (*_rescue(ctx, plan, data, start, note, verified), start)
    ctx.notes.append(note)
    sha = str(replayed.sha)
    noted = data.model_copy(update={"notes": [*data.notes, note]})
    return plan, _pushed(ctx, noted, sha, branch, by_token=True, commit_sha=sha), replayed.tip


def _verify_and_push(
    ctx: Context, settings: Settings, branch: str, replayed: checkout.Replayed, run_id: str
) -> str | None:
    """Run the check on the replayed tree and push it to `branch` (a fast-forward, the secret
    scan over the replayed change); return None when pushed, else why not."""
    sha = str(replayed.sha)
    workdir = (ctx.workspace / ctx.inputs.working_directory).resolve()
    try:
        check = recheck(
            settings, workdir, ctx.environment, run_id, workspace=ctx.workspace, fixbot=ctx.repo
        )
    except OSError as exc:
        return f"the fix was replayed onto it, but the check could not run again ({exc})"
    if not check.passed:
        how = (
            f"timed out after {settings.timeout:g} s"
            if check.timed_out
            else f"exit {check.exit_code}"
        )
        return f"the fix was replayed onto it, but the check failed after the replay ({how})"
    try:
        checkout.push(ctx.repo, sha, branch, ctx.git_env, base=replayed.tip, secrets=_secrets(ctx))
    except checkout.BranchMoved:
        return f"the check passed after the replay, but `{branch}` moved again before the push"
    except git.GitError as exc:
        return (
            f"the check passed after the replay, but the push failed ({str(exc).splitlines()[0]})"
        )
    return None


def _push(
    ctx: Context,
    plan: Plan,
    data: render.Report,
    snapshot: str | None,
    start: str,
    head: str | None = None,
) -> render.Report:
    """Push the fix (HEAD, or `head`) or the best attempt (`snapshot`) after scanning
    `start..sha` for secrets."""
    branch = plan.push_branch or plan.new_branch
    if not branch or not plan.source:
        return data
    sha = snapshot if plan.source is Source.SNAPSHOT else head or git.head_sha(ctx.repo)
    checkout.push(ctx.repo, str(sha), branch, ctx.git_env, base=start, secrets=_secrets(ctx))
    commit = data.outcome.commit_sha or str(sha)
    return _pushed(ctx, data, str(sha), branch, plan.push_branch is not None, commit)


def _pushed(
    ctx: Context, data: render.Report, sha: str, branch: str, by_token: bool, commit_sha: str
) -> render.Report:
    """`data` once `sha` is on `branch`: its commit link and branch, whether the job's token
    pushed it (`by_token`), and `commit_sha` as the outcome's commit."""
    links = data.links.model_copy(
        update={
            "commit_url": ctx.commit_url(sha),
            "branch": branch,
            "pushed_with_github_token": by_token,
        }
    )
    outcome = data.outcome.model_copy(update={"commit_sha": commit_sha})
    return data.model_copy(update={"links": links, "outcome": outcome})


def _suggest(ctx: Context, number: int, data: render.Report, start: str) -> render.Report:
    """Post the verified fix (`start..HEAD`) as one review with suggestion blocks on pull
    request `number` (`fixbot.github.publish.suggest`); nothing is pushed. Raises
    `fixbot.security.leakscan.LeakRefused` when the diff carries a secret."""
    root = ctx.repo
    refuse_if_leaking(
        git.run(root, "diff", "--text", "--no-ext-diff", start, "HEAD"),
        _secrets(ctx),
        "posting the fix as suggestions",
    )
    found = hunks.changes(git.run(root, "diff", "--no-color", "--no-ext-diff", start, "HEAD"))
    gh = ctx.rest()
    ranges = suggest.commentable(gh.pull_files(number))
    summary = f"### {render.TITLES[data.outcome.outcome]}\n\n{data.outcome.reason}"
    made = suggest.review(found, ranges, summary, ctx.run_url)
    try:
        url = gh.review(number, start, made.body, [c.payload() for c in made.comments])
    except GitHubError as exc:  # the status comment still carries the fix, as a patch
        note = f"the review with suggestions was not posted ({exc}); the fix is the patch below"
        patch = checkout.patch(root, start, _secrets(ctx))
        return data.model_copy(update={"notes": [*data.notes, note], "patch": patch})
    links = data.links.model_copy(
        update={"review_url": url, "suggestions": len(made.comments), "in_body": len(made.in_body)}
    )
    return data.model_copy(update={"links": links})


def _title(data: render.Report, branch: str) -> str:
    if data.outcome.outcome is OutcomeKind.ESCALATED:
        return f"fixbot: best attempt at fixing {branch} (does not pass the check)"
    return f"fixbot: fix the check on {branch}"


def _write_github(
    ctx: Context, plan: Plan, data: render.Report, result: Finished, talk: Conversation
) -> render.Report:
    if plan.pull_request is None and plan.comment_pr is None and plan.issue_branch is None:
        return data
    gh = ctx.rest()
    if plan.suggest_pr is not None:
        data = _suggest(ctx, plan.suggest_pr, data, result.state.start_sha)
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
        block = ""
        if talk.record is not None:
            history = memory.finish(
                talk.history,
                talk.record,
                data.outcome,
                result.state.attempts,
                secs=data.seconds or time.time() - talk.record.at,
                tokens=result.state.tokens,
            )
            block = memory.encode(history)
            data = data.model_copy(update={"reruns": history.reruns})
        gh.upsert_status_comment(
            plan.comment_pr,
            render.status_comment(data, block),
            create=plan.comment_create,
            login=ctx.login(),
        )
    return data
