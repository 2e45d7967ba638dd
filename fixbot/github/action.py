"""`fixbot action`: the wiring of the Docker container action.

Reads the event, decides its intent (`intent`), checks the actor's permission (`permission`),
answers comment commands (`conversation`), switches to the branch to fix, runs the engine,
publishes by the plan (`publish`), and writes the job summary, annotations and step outputs.
Exit code: 0 for passed/fixed/refused (and escalated with `fail-on-escalation: false`), 1 for
escalated, 2 for errors (bad configuration, or a result that could not be published).
"""

from __future__ import annotations

import os
import pwd
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from fixbot.core.config import load_settings
from fixbot.core.errors import ConfigError, GitHubError
from fixbot.core.models import Outcome, OutcomeKind
from fixbot.core.secrets import secret_values
from fixbot.core.settings import Settings
from fixbot.core.values import ThreadAuthors
from fixbot.github import cifail, conversation, inferred, stepenv
from fixbot.github.api import checkout
from fixbot.github.api.context import Connect, Context, Finished, make_context
from fixbot.github.api.rest import GitHub
from fixbot.github.events import gates, threads
from fixbot.github.events.commands import comment
from fixbot.github.events.commands.base import Reply
from fixbot.github.events.data import Event, pull_request_of
from fixbot.github.events.decision import Options
from fixbot.github.events.event import load_event
from fixbot.github.events.intent import Intent, IntentKind, authorize, decide
from fixbot.github.events.kinds import registry
from fixbot.github.events.kinds.base import EventKind
from fixbot.github.events.permission import Level
from fixbot.github.publish import memory, render
from fixbot.github.publish.memory import Conversation
from fixbot.github.publisher import publish
from fixbot.policy import manifests
from fixbot.process import exposure, git, installation, packages, sandbox, worlds
from fixbot.process.boundedlog import read_tail
from fixbot.run import engine
from fixbot.run.outcome import state_dir_of
from fixbot.run.request import RunRequest
from fixbot.security.leakscan import LeakRefused
from fixbot.ui import workflow

__all__ = ["Context", "main", "outputs"]


def _kind(event: Event) -> EventKind:
    """The kind of an event fixbot decided to act on (`intent.decide` refused any other)."""
    kind = registry.find(event.name)
    assert kind is not None, event.name
    return kind


def main(
    env: Mapping[str, str], *, out: TextIO | None = None, connect: Connect = GitHub.connect
) -> int:
    """Run the Action in the environment `env` (the runner's variables); return the exit code."""
    ctx = make_context(env, out or sys.stdout, connect)
    for value in [ctx.inputs.token, *secret_values(env)]:  # every secret of the environment
        workflow.mask(value, ctx.out)
    stepenv.scrub_process_env()
    stepenv.forget_model_servers(ctx, env)
    stepenv.forget_trust_anchors(ctx, installation.runtime())
    owner = _workspace_owner(ctx)  # the runner's user, before fixbot's git wrote anything
    try:
        data = _run(ctx)
    except ConfigError as exc:
        data = _bare(ctx, OutcomeKind.ERROR, "; ".join(exc.problems))
    except (git.GitError, GitHubError) as exc:
        data = _bare(ctx, OutcomeKind.ERROR, str(exc))
    except LeakRefused as exc:  # a secret in the diff: nothing pushed, a human looks
        data = _bare(ctx, OutcomeKind.ESCALATED, str(exc))
    finally:
        if owner is not None:  # as root: the refs and objects the push wrote are root's
            checkout.give_back(ctx.workspace, owner)
    return _finish(ctx, data)


def _workspace_owner(ctx: Context) -> os.stat_result | None:
    """The workspace folder's owner and group as the run starts (None: no workspace)."""
    try:
        return ctx.workspace.stat()
    except OSError:
        return None


def _bare(ctx: Context, kind: OutcomeKind, reason: str) -> render.Report:
    return render.Report(
        outcome=Outcome(outcome=kind, reason=reason),
        notes=ctx.notes,
        links=render.Links(run_url=ctx.run_url),
    )


def _run(ctx: Context) -> render.Report:
    event = load_event(ctx.github)
    if sandbox.shares_uid(installation.runtime()):  # said before anything runs
        workflow.warning(gates.SHARED_UID_WARNING, ctx.out, title="fixbot: no uid split")
        ctx.notes.append(gates.SHARED_UID_WARNING)
    chosen = _decide(ctx, event)
    if chosen.kind is IntentKind.REFUSE:
        flaky = cifail.settle_passed(ctx, event)  # a re-run that passed: the flake record
        return _bare(ctx, OutcomeKind.REFUSED, flaky or chosen.reason)
    if chosen.kind is IntentKind.COMMAND:
        return _command(ctx, event, chosen)
    talk = Conversation()
    pr = event.pull_request
    if pr is not None and not event.fork and _kind(event).history:
        try:
            talk, busy = conversation.open_history(ctx, pr.number, ctx.gates().max_runs_per_day)
        except GitHubError as exc:
            ctx.notes.append(f"the run history was not read: {exc}")
            busy = None
        if busy:
            return _bare(ctx, OutcomeKind.REFUSED, busy)
        conversation.begin(ctx, talk, chosen.kind.value, pr.number, write=False)
    return _fix(ctx, event, chosen, talk)


def _decide(ctx: Context, event: Event) -> Intent:
    """The event's intent, with the actor's permission checked when it needs one."""
    gates_set = ctx.gates()
    chosen = decide(event, gates_set.allow_forks, gates_set.thread_bots)
    login = chosen.ask_permission
    if login is None:
        return chosen
    if chosen.kind is IntentKind.COMMAND:
        minimum = Level(gates_set.command_permission.value)
    elif gates_set.thread_authors is ThreadAuthors.ANY:
        minimum = Level.NONE
    else:
        minimum = threads.TRUSTED
    level = ctx.permissions().level(login)
    decided = authorize(chosen, login, level, minimum)
    if decided.reply:  # the polite refusal a commenter sees
        text = comment.refusal_reply(login, level.value, minimum.value)
        conversation.reply(ctx, event, text)
        conversation.react(ctx, event, "confused")
        return decided.model_copy(update={"reply": False})
    return decided


def _command(ctx: Context, event: Event, chosen: Intent) -> render.Report:
    """Answer the command (`/fixbot help`, `status`, ...) or run the fix it asks for
    (`/fixbot retry`) on the pull request."""
    command, number = chosen.command, event.comment_issue
    assert command is not None and number is not None
    conversation.react(ctx, event, "eyes")
    said = comment.answer(command, conversation.Desk(ctx, number))
    if isinstance(said, Reply):
        conversation.reply(ctx, event, said.text)
        why = f"answered `/fixbot {command.kind}`; nothing was run"
        return _bare(ctx, OutcomeKind.REFUSED, why)
    pulled = event.with_pull_request(
        pull_request_of(ctx.rest().pull_request(number), event.repository)
    )
    verdict = _kind(event).gate(pulled, Options(allow_forks=ctx.gates().allow_forks))
    talk, busy = Conversation(), None
    if verdict.allowed:
        talk, busy = conversation.open_history(ctx, number, ctx.gates().max_runs_per_day)
    reason = busy or ("" if verdict.allowed else verdict.reason)
    if reason:
        conversation.reply(ctx, event, f"fixbot did not run: {reason}.")
        conversation.react(ctx, event, "confused")
        return _bare(ctx, OutcomeKind.REFUSED, reason)
    tried = memory.already_tried(talk.history)
    conversation.begin(ctx, talk, "retry", number, write=True)
    retry = Intent(kind=IntentKind.FIX, patch_only=verdict.patch_only)
    try:
        data = _fix(ctx, pulled, retry, talk, hint=said.hint, tried=tried)
    except (ConfigError, git.GitError, GitHubError):
        conversation.react(ctx, event, "confused")
        raise
    conversation.react_to_outcome(ctx, event, data.outcome.outcome)
    return data


def _fix(
    ctx: Context,
    event: Event,
    chosen: Intent,
    talk: Conversation,
    *,
    hint: str | None = None,
    tried: list[str] | None = None,
) -> render.Report:
    """Switch to the branch, run the engine (check, fix, threads), publish.

    A retry passes its comment's `hint` (joining the `hint` setting) and the earlier runs'
    attempts (`tried`); it starts with a new breaker and budget even when a state folder is
    found.
    """
    shared = _gate_shared_uid(ctx, event)
    if not shared.allowed:
        return _bare(ctx, OutcomeKind.REFUSED, shared.reason)
    exposed = _exposed_home(ctx)
    if exposed:
        return _bare(ctx, OutcomeKind.REFUSED, exposed)
    if exposure.persisted_credentials(ctx.workspace):
        workflow.warning(PERSISTED, ctx.out, title="fixbot: the token is in .git/config")
        ctx.notes.append(PERSISTED)
    checkout.configure(ctx.workspace)
    fixbot = _own_clone(ctx, event)
    with worlds.entered(fixbot.parent):  # fixbot's git configuration, its clone
        return _fix_in_clone(ctx, event, chosen, talk, fixbot, hint=hint, tried=tried)


def _fix_in_clone(
    ctx: Context,
    event: Event,
    chosen: Intent,
    talk: Conversation,
    fixbot: Path,
    *,
    hint: str | None,
    tried: list[str] | None,
) -> render.Report:
    """`_fix` once fixbot's clone `fixbot` is on the branch to fix: the gates, the run, the
    publish step, every git of fixbot's in that clone."""
    author, subject = checkout.head_commit(fixbot)
    head_verdict = gates.gate_head(author, subject)
    if not head_verdict.allowed and not _kind(event).may_follow_own_commit(event):
        return _bare(ctx, OutcomeKind.REFUSED, head_verdict.reason)
    ci = cifail.prepare(ctx, event)  # the pull request gates, the failed run's logs
    if ci.refusal is not None:
        return _bare(ctx, OutcomeKind.REFUSED, ci.refusal)
    ctx.notes.extend(ci.notes)
    if ci.failed_again is not None and event.run_id is not None:
        talk.history = cifail.settled(talk.history, event.run_id, False, ci.failed_again)
    repo = (ctx.workspace / ctx.inputs.working_directory).resolve()
    settings, origin = _settings(ctx, event, ci.failed, fixbot, retry=tried is not None)
    packages.install(settings.system_packages, ctx.out)  # root, before any code of the branch
    scope = _fetch_threads(ctx, event, settings)
    talk.left_out = scope.left_out
    hint = "\n\n".join(x for x in (settings.hint, hint) if x) or None
    workflow.group("fixbot run", ctx.out)
    try:
        outcome, state = engine.run(
            settings,
            repo,
            env=ctx.environment,
            request=RunRequest(
                hint=hint,
                threads=scope.threads,
                tried=tried or (),
                first_failure=ci.first,
                clone_ready=True,
                in_action=True,
                check_origin=origin,
            ),
        )
    finally:
        workflow.endgroup(ctx.out)
    ctx.notes.extend(manifests.missing_tool_notes(state.attempts, installation.runtime()))
    result = Finished(outcome, state, scope.threads)
    return publish(ctx, event, settings, result, chosen.patch_only, talk)


def _settings(
    ctx: Context, event: Event, failed: cifail.FailedStep | None, fixbot: Path, *, retry: bool
) -> tuple[Settings, str]:
    """The run's settings: the branch's configuration as fixbot's clone `fixbot` has it (the
    workspace is the commands'), the workflow's inputs and `FIXBOT_*` variables, and what
    zero configuration inferred (`inferred.settle`, whose origin is returned); a retry
    (`retry`) starts with a fresh breaker and budget. The warnings are shown and kept in the
    notes. Raises `ConfigError`."""
    warnings: list[str] = []
    where = (fixbot / ctx.inputs.working_directory).resolve()
    settings = load_settings(where, {}, ctx.settings_variables, action=True, warnings=warnings)
    if retry:
        settings = settings.model_copy(update={"resume": False})
    settings, inferred_notes, origin = inferred.settle(
        settings, event, failed, fixbot, where, ctx.out
    )
    ctx.notes.extend(inferred_notes)
    for warning in warnings:
        workflow.warning(warning, ctx.out)
    ctx.notes.extend(warnings)
    ctx.fail_on_escalation = settings.fail_on_escalation
    return settings, origin


PERSISTED = (
    "actions/checkout left the job's token in the workspace's .git/config "
    "(`persist-credentials: true`, its default): the check can read it there. Set "
    "`persist-credentials: false` on the actions/checkout step (fixbot pushes with its own "
    "github-token)"
)


NO_COVER = (
    "root could not make a mount namespace hiding the runner user's HOME from the project's "
    "commands here (no unshare or mount, or refused by the kernel): fixbot checks that HOME "
    "for credential files others may read, by name (a credential file of another tool is "
    "not found); keep the runner user's HOME closed to others"
)


def _exposed_home(ctx: Context) -> str | None:
    """In the runner mode's uid split, why the run stops when the commands' user could read a
    credential file in the runner user's HOME (`exposure.exposed_home`), with the fix. Only
    where root cannot hide the homes from the commands (`sandbox.hides_homes`, the control:
    `fixbot.process.homes`); that fallback is named in a warning."""
    if not installation.split() or sandbox.hides_homes():
        return None
    workflow.warning(NO_COVER, ctx.out, title="fixbot: the runner's HOME is not hidden")
    ctx.notes.append(NO_COVER)
    try:
        home = Path(pwd.getpwuid(ctx.workspace.lstat().st_uid).pw_dir)
    except (KeyError, OSError):
        return None
    found = exposure.exposed_home(home)
    if not found:
        return None
    shown = " ".join(str(path) for path in found[:10])
    return (
        f"the project's commands (another user) could read these files of the runner's user: "
        f"{shown}; make them private first (a step before fixbot: `chmod 600 {shown}`), or "
        f"close the home folder (`chmod o-rwx {home}` where the workspace is not under it)"
    )


def _gate_shared_uid(ctx: Context, event: Event) -> gates.Verdict:
    """`gates.gate_shared_uid` where no uid separates the commands from fixbot, else ALLOW; the
    pull request's author is read from GitHub when the payload omits it (`workflow_run`)."""
    if not sandbox.shares_uid(installation.runtime()):
        return gates.ALLOW
    pr, author, level = event.pull_request, None, None
    if pr is not None:
        author = (
            pr.author
            or pull_request_of(ctx.rest().pull_request(pr.number), event.repository).author
        )
        level = ctx.permissions().level(author) if author else Level.NONE
    return gates.gate_shared_uid(event, author, level)


def _fetch_threads(ctx: Context, event: Event, settings: Settings) -> threads.Scope:
    """The review threads of a same-repository pull request, split into those in scope (up to
    `max-threads`) and those left out with the reason.

    A refusal (missing `pull-requests: read`, a permission lookup that fails) is a note: the
    check is fixed without threads.
    """
    pr = event.pull_request
    if not _kind(event).threads or pr is None or event.fork or settings.max_threads <= 0:
        return threads.Scope()
    owner, name = event.repository.split("/", 1)
    level_of = None if settings.thread_authors is ThreadAuthors.ANY else ctx.permissions().level
    try:
        nodes = ctx.graphql().fetch_nodes(owner, name, pr.number)
        found = threads.scope(nodes, settings.max_threads, level_of, settings.thread_bots)
    except GitHubError as exc:
        ctx.notes.append(f"review threads were not read: {exc}")
        return threads.Scope()
    ctx.out.write(
        f"fixbot: {len(found.threads)} open review thread(s) given to the model, "
        f"{len(found.left_out)} left out\n"
    )
    return found


def _own_clone(ctx: Context, event: Event) -> Path:
    """fixbot's clone of the workspace (`fixbot.process.worlds`), made before anything else of
    the run, on the branch to fix; return its root.

    The workspace's repository is read only by git-upload-pack (`worlds.clone`): an earlier step
    of the job may have run the project's code there (a filter, an fsmonitor, a `commondir` in
    its `.git`), and no git of fixbot's, which holds the token, ever runs in it. The branch is
    then fetched from origin into the clone and checked out there (`_switch`). Raises `GitError`.
    """
    private = worlds.private_folder(ctx.workspace, ctx.state_base)
    # the remote is the repository on the run's server (GITHUB_SERVER_URL, which an earlier
    # step cannot overwrite, and the event's repository), never a URL of the workspace's
    # `.git/config`; git may use that server's transport alone
    remote = f"{ctx.github.server}/{event.repository}"
    scheme = urlsplit(ctx.github.server).scheme or "https"
    worlds.write_gitconfig(
        private, worlds.ambient_identity(), trusted=(ctx.workspace,), protocols=(scheme,)
    )
    fixbot = ctx.clone
    assert fixbot.parent == private, (fixbot, private)  # one path, made by `worlds.clone_path`
    with worlds.entered(private):
        worlds.clone(ctx.workspace, fixbot, files=False)  # written where needed
        git.run(fixbot, "remote", "set-url", "origin", remote)
        _switch(fixbot, event, ctx.git_env)
    return fixbot


def _switch(fixbot: Path, event: Event, env: dict[str, str]) -> None:
    """Fetch the branch to fix (a fork's pull request head as `fixbot/pr-N`) into fixbot's clone
    and check it out there."""
    pr = event.pull_request
    if event.fork and pr is not None:
        checkout.switch(
            fixbot, f"refs/pull/{pr.number}/head", f"fixbot/pr-{pr.number}", pr.head_sha, env
        )
    else:
        checkout.switch(fixbot, f"refs/heads/{event.branch}", str(event.branch), event.sha, env)


def _finish(ctx: Context, data: render.Report) -> int:
    out = data.outcome
    ctx.out.write(workflow.plain_line(f"fixbot: {out.outcome.value}: {out.reason}") + "\n")
    if out.outcome is OutcomeKind.ERROR:
        workflow.error(out.reason, ctx.out, title="fixbot")
    if out.outcome is OutcomeKind.ESCALATED:
        _annotate(ctx, out)
    if summary := ctx.github.step_summary:
        workflow.write_summary(
            Path(summary), render.summary(data), f"See the run log: {ctx.run_url}"
        )
    if output := ctx.github.output:
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
    for note in workflow.find_annotations(text, checkout.tracked_files(ctx.repo)):
        workflow.annotate(note, ctx.out)


def _last_log(state_dir: Path) -> Path | None:
    logs = sorted((state_dir / "attempts").glob("*/check.log"))
    return logs[-1] if logs else None
