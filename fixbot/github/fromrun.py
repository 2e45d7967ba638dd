"""`fixbot run --from-run <run id | URL>`: a failed GitHub Actions run's failed jobs' logs as
the first failing run on this machine (see `fixbot.github.api.runs`).

The token comes from `GITHUB_TOKEN` or `GH_TOKEN` (e.g. `GH_TOKEN=$(gh auth token)`), the
repository from the URL, `GITHUB_REPOSITORY` or the `origin` remote, the API from
`GITHUB_API_URL` (for a GitHub Enterprise Server URL: `https://HOST/api/v3`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from fixbot.core.errors import ConfigError, GitHubError
from fixbot.core.github_env import DEFAULT_API_URL, GitHubEnv
from fixbot.github.api.remote import repository_from_remote
from fixbot.github.api.rest import GitHub
from fixbot.github.api.runs import FAILED, Runs, first_failure, parse_run_ref
from fixbot.logs.joblog import FirstFailure
from fixbot.process import git


def api_url(value: str, github: GitHubEnv) -> str:
    """The REST API base for `--from-run value`: `GITHUB_API_URL` when set, else from the URL's
    host (GitHub Enterprise Server's `https://HOST/api/v3`), else github.com's."""
    if "api_url" in github.model_fields_set:
        return github.api_url
    host = urlsplit(value.strip()).hostname
    if host and host != "github.com":
        return f"https://{host}/api/v3"
    return DEFAULT_API_URL


def _repository(named: str | None, github: GitHubEnv, repo: Path) -> str:
    if named:
        return named
    if github.repository:
        return github.repository
    remote = git.run(repo, "remote", "get-url", "origin", check=False).strip()
    found = repository_from_remote(remote) if remote else None
    if found is None:
        raise ConfigError(
            [
                "--from-run: which repository? pass the run's URL "
                "(https://github.com/OWNER/REPO/actions/runs/ID) or set GITHUB_REPOSITORY"
            ]
        )
    return found


def fetch(value: str, env: Mapping[str, str], repo: Path) -> tuple[FirstFailure, list[str]]:
    """The first failure of run `value` and notes (unreadable jobs, a head that differs).

    Raises `ConfigError` without a token, for a run that did not fail, or when no failed job's
    log can be read; the messages say what to do.
    """
    named, run_id = parse_run_ref(value)
    github = GitHubEnv.read(env)
    token = github.require_token("--from-run needs a token with `actions: read`")
    repository = _repository(named, github, repo)
    runs = Runs(GitHub.connect(token, api_url(value, github), repository))
    try:
        run = runs.run(run_id)
        logs = runs.failed_logs(run_id) if run.conclusion in FAILED else []
    except GitHubError as exc:
        raise ConfigError([f"--from-run {value}: {exc}"]) from exc
    if run.conclusion not in FAILED:
        raise ConfigError([f"--from-run: run {run_id} ended `{run.conclusion}`: nothing to fix"])
    notes = [f"job `{log.job.name}`: {log.problem}" for log in logs if log.problem]
    first = first_failure(run, logs)
    if first is None:
        why = "; ".join(notes) or "no job failed"
        raise ConfigError([f"--from-run: no failed job's log of run {run_id} was read ({why})"])
    head = git.head_sha(repo)
    if run.head_sha and run.head_sha != head:
        notes.append(
            f"run {run_id} checked {run.head_sha[:12]}, this checkout is at {head[:12]}: "
            "the check runs here first"
        )
    return first, notes
