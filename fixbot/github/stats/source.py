"""Collect `fixbot stats`' records: the adapter over the REST API (PyGithub) and git.

Routes (GitHub's OpenAPI description, checked in the tests): GET /repos/{owner}/{repo}/issues/
comments (every issue and pull request comment updated since a time: fixbot's status comments,
found by their marker and author) and GET /repos/{owner}/{repo}/issues (label `fixbot`, any
state: fixbot's pull requests and escalation issues). Needs `issues: read` and
`pull-requests: read` (a fine-grained token's Issues and Pull requests read permissions).
fixbot's commits are read from a local clone (`git log --all`), by their `fixbot-attempt:`
trailer, when one is given.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from fixbot.github.api.rest import GitHub, mapped
from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.publish import memory
from fixbot.github.publish.plan import LABEL
from fixbot.github.publish.render import STATUS_MARKER
from fixbot.github.stats.aggregate import Published, Records
from fixbot.process import git

RUN_RE = re.compile(r"/actions/runs/(\d+)")
READ = "issues: read"


def _at(value: datetime | None, default: int) -> int:
    return int(value.timestamp()) if value is not None else default


def histories(gh: GitHub, since: int, login: str = BOT_LOGIN) -> tuple[list[memory.History], int]:
    """The run histories in `login`'s status comments updated since `since` (Unix seconds),
    and how many comments held an unreadable history (skipped)."""
    found, unreadable = [], 0
    when = datetime.fromtimestamp(since, UTC)
    with mapped("list the repository's comments", READ):
        for comment in gh.repo.get_issues_comments(since=when):
            body = comment.body or ""
            if not body.startswith(STATUS_MARKER) or comment.user.login.lower() != login.lower():
                continue
            try:
                found.append(memory.decode(body))
            except ValueError:
                unreadable += 1
    return found, unreadable


def published(gh: GitHub, since: int) -> list[Published]:
    """fixbot's pull requests and escalation issues (label `fixbot`) updated since `since`."""
    found = []
    when = datetime.fromtimestamp(since, UTC)
    with mapped("list fixbot's pull requests and issues", READ):
        for issue in gh.repo.get_issues(state="all", labels=[LABEL], since=when):
            title = issue.title or ""
            fix = issue.pull_request is not None and title.startswith("fixbot: fix the check")
            run = RUN_RE.search(issue.body or "")
            found.append(
                Published(
                    kind="fixed" if fix else "escalated",
                    run=run[1] if run else None,
                    at=_at(issue.created_at, since),
                )
            )
    return found


def commits(root: Path, since: int) -> list[int]:
    """Commit times (Unix seconds) of fixbot's commits (a `fixbot-attempt:` trailer) on any
    ref of the clone at `root` since `since`; [] when `root` is not a git repository."""
    if not git.run(root, "rev-parse", "--git-dir", check=False).strip():
        return []
    fmt = "%ct%x00%(trailers:key=fixbot-attempt,valueonly,separator=%x2C)%x1e"
    when = datetime.fromtimestamp(since, UTC).isoformat()
    out = git.run(root, "log", "--all", f"--since={when}", f"--format={fmt}", check=False)
    rows = [entry.strip("\n").split("\0") for entry in out.split("\x1e") if entry.strip()]
    return [int(row[0]) for row in rows if len(row) == 2 and row[1].strip()]


def collect(gh: GitHub, since: int, root: Path | None, login: str = BOT_LOGIN) -> Records:
    """Every record of the repository since `since` (see the module docstring). Raises
    `GitHubError` naming the permission when GitHub refuses."""
    found, _ = histories(gh, since, login)
    return Records(
        histories=found,
        published=published(gh, since),
        commits=commits(root, since) if root is not None else [],
    )
