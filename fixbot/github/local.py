"""`fixbot run --pr N`: a pull request's review threads on a maintainer's machine.

Reads the pull request and its in-scope review threads with `GITHUB_TOKEN` / `GH_TOKEN`
(`GITHUB_API_URL` and `GITHUB_GRAPHQL_URL` for GitHub Enterprise Server), runs the engine on the
checked-out branch (check, fix, verify, threads, commit), and with `--push` pushes the verified
commits to the pull request's branch with the user's own git credentials, then replies in and
resolves the threads the intersection rule allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from fixbot.core.errors import ConfigError
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import Outcome, OutcomeKind
from fixbot.core.settings import Settings
from fixbot.core.values import ThreadAuthors
from fixbot.github.api import checkout
from fixbot.github.api.graphql import GraphQL
from fixbot.github.api.remote import repository_from
from fixbot.github.api.rest import GitHub
from fixbot.github.events import threads
from fixbot.github.events.data import PullRequest, pull_request_of
from fixbot.github.events.permission import Permissions
from fixbot.github.replies import thread_replies
from fixbot.policy.state import RunState
from fixbot.process import git
from fixbot.run import engine
from fixbot.run.request import RunRequest
from fixbot.security.leakscan import known_secrets
from fixbot.ui.progress import Progress


def run_pull_request(
    settings: Settings,
    directory: Path,
    number: int,
    *,
    env: Mapping[str, str],
    repo: str | None,
    push: bool,
    progress: Progress,
    out: TextIO,
) -> Outcome:
    """Fix the check and address PR `number`'s in-scope threads in `directory`; see the module
    docstring. Raises ConfigError for a closed PR, a fork with `--push`, or the wrong branch."""
    github = GitHubEnv.read(env)
    token = github.require_token("--pr needs a GitHub token")
    root = git.toplevel(directory) or directory
    repository = repository_from(root, repo)
    gh = GitHub.connect(token, github.api_url, repository)
    pr = pull_request_of(gh.pull_request(number), repository)
    if pr.state != "open":
        raise ConfigError([f"pull request #{number} of {repository} is {pr.state}"])
    if push:
        _pushable(pr, number, repository, git.current_branch(root))
    graphql = GraphQL.connect(token, github.graphql_url)
    owner, name = repository.split("/", 1)
    nodes = graphql.fetch_nodes(owner, name, number)
    ask = None if settings.thread_authors is ThreadAuthors.ANY else Permissions(gh.permission).level
    scope = threads.scope(nodes, settings.max_threads, ask, settings.thread_bots)
    out.write(f"fixbot: {len(scope.threads)} review thread(s) of #{number} given to the model\n")
    for item in scope.left_out:
        out.write(f"  left out: {item.thread.path} by @{item.thread.author}: {item.reason}\n")
    request = RunRequest(hint=settings.hint, threads=scope.threads)
    outcome, state = engine.run(settings, directory, env=env, request=request, progress=progress)
    if not push:
        if outcome.outcome is OutcomeKind.FIXED:
            out.write("fixbot: committed locally; rerun with --push to push, reply and resolve\n")
        return outcome
    return _push(root, pr.head_ref, outcome, state, scope, graphql, out, known_secrets(env))


def _pushable(pr: PullRequest, number: int, repository: str, branch: str | None) -> None:
    """Raise ConfigError unless fixbot may push to `pr` (#`number`) from `branch`: not from a
    fork, and the pull request's branch checked out."""
    if (pr.head_repo or "").lower() != repository.lower():
        raise ConfigError([f"pull request #{number} comes from a fork: fixbot never pushes there"])
    if branch != pr.head_ref:
        raise ConfigError(
            [
                f"--push needs the pull request's branch `{pr.head_ref}` checked out, not "
                f"`{branch}`: run `gh pr checkout {number}` first"
            ]
        )


def _push(
    root: Path,
    branch: str,
    outcome: Outcome,
    state: RunState,
    scope: threads.Scope,
    graphql: GraphQL,
    out: TextIO,
    secrets: dict[str, str],
) -> Outcome:
    if (
        outcome.outcome is not OutcomeKind.FIXED
        or checkout.commits_since(root, state.start_sha) == 0
    ):
        out.write("fixbot: nothing verified to push\n")
        return outcome
    sha = git.head_sha(root)
    env = {"GIT_TERMINAL_PROMPT": "0"}
    checkout.push(root, sha, branch, env, base=state.start_sha, secrets=secrets)
    out.write(f"fixbot: pushed {sha[:12]} to {branch}\n")
    touched = git.changed_files(root, state.start_sha, sha)
    targets = threads.resolvable(scope.threads, state.attempts, touched)
    if targets:
        replies = thread_replies(root, state.start_sha, sha, targets, None)
        done, why = graphql.resolve_and_reply([t.id for t in targets], replies)
        out.write(f"fixbot: resolved {len(done.resolved)} review thread(s)\n")
        if why:
            out.write(f"fixbot: {why}\n")
    return outcome
