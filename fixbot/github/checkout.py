"""Git work of the Action: identity, safe.directory, switching to the branch to fix, pushing.

Thin wrappers over `fixbot.git.run`. Nothing here force-pushes or rewrites a remote branch. The
token reaches git through a credential helper reading an environment variable, so it is never
written into `.git/config`, a command line or a log. Nothing is pushed, and no patch is handed
out, before `fixbot.leakscan` found no secret in it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from fixbot import git
from fixbot.github.gates import BOT_EMAIL, BOT_LOGIN
from fixbot.leakscan import refuse_if_leaking

TOKEN_VARIABLE = "FIXBOT_GIT_TOKEN"
HOST_VARIABLE = "FIXBOT_GIT_HOST"
# git's credential protocol (https://git-scm.com/docs/git-credential): the request arrives on
# stdin as key=value lines; the token is given only for `get` and only to the expected host, so
# a rewritten remote URL (`url.*.insteadOf`, `remote.origin.url`) never receives it.
_HELPER = (
    '!f() { test "$1" = get || exit 0; h=; while IFS= read -r l && test -n "$l"; do '
    'case "$l" in host=*) h="${l#host=}";; esac; done; '
    f'if test -z "${HOST_VARIABLE}" || test "$h" = "${HOST_VARIABLE}"; then '
    f'echo username=x-access-token; echo "password=${TOKEN_VARIABLE}"; fi; }}; f'
)
PATCH_LIMIT_CHARS = 40_000


def auth_env(token: str, host: str | None = None) -> dict[str, str]:
    """Environment for git commands that talk to the remote: a credential helper for `token`.

    With `host` (`github.com`, a GitHub Enterprise host), the helper answers only requests for
    that host. The first `credential.helper` entry clears inherited helpers;
    `GIT_TERMINAL_PROMPT=0` makes a refused token fail at once instead of prompting.
    """
    env = {"GIT_TERMINAL_PROMPT": "0"}
    if token:
        env.update(
            {
                TOKEN_VARIABLE: token,
                HOST_VARIABLE: host or "",
                "GIT_CONFIG_COUNT": "2",
                "GIT_CONFIG_KEY_0": "credential.helper",
                "GIT_CONFIG_VALUE_0": "",
                "GIT_CONFIG_KEY_1": "credential.helper",
                "GIT_CONFIG_VALUE_1": _HELPER,
            }
        )
    return env


def server_host(env: Mapping[str, str]) -> str:
    """The host of `GITHUB_SERVER_URL` (`github.com` by default), with its port if any."""
    return urlsplit(env.get("GITHUB_SERVER_URL") or "https://github.com").netloc


def configure(workspace: Path) -> None:
    """Trust the workspace (`safe.directory`) and commit as github-actions[bot], globally.

    In the container the workspace belongs to another uid than root, so git refuses it unless
    it is listed in `safe.directory` (git 2.35.2+). As root, the global configuration is a
    private file of fixbot's (`GIT_CONFIG_GLOBAL` in this process): HOME (`/github/home`)
    belongs to the runner's uid, the uid the project's commands run as, and a `.gitconfig`
    they planted there (a filter, an fsmonitor, a push URL) must never reach fixbot's git.
    """
    if os.geteuid() == 0:
        private = Path(tempfile.mkdtemp(prefix="fixbot-git-")) / "gitconfig"
        private.touch()
        os.environ["GIT_CONFIG_GLOBAL"] = str(private)
    git.run(workspace, "config", "--global", "--add", "safe.directory", str(workspace))
    git.run(workspace, "config", "--global", "user.name", BOT_LOGIN)
    git.run(workspace, "config", "--global", "user.email", BOT_EMAIL)


def switch(repo: Path, remote_ref: str, local: str, sha: str | None, env: dict[str, str]) -> str:
    """Fetch `remote_ref` from origin and check it out as branch `local`; return HEAD's sha.

    `sha` (the event's head commit) is checked out when it is present after the fetch, else the
    fetched tip. actions/checkout leaves a pull request's merge commit detached: this puts the
    PR's head branch in its place.
    """
    tracking = f"refs/remotes/origin/fixbot-source/{local}"
    git.run(repo, "fetch", "--no-tags", "--quiet", "origin", f"+{remote_ref}:{tracking}", env=env)
    target = sha if sha and _has_commit(repo, sha) else tracking
    git.run(repo, "checkout", "--quiet", "-B", local, target)
    return git.head_sha(repo)


def _has_commit(repo: Path, sha: str) -> bool:
    return bool(git.run(repo, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}", check=False))


def head_commit(repo: Path) -> tuple[str, str]:
    """(author email, subject) of HEAD."""
    email, _, subject = git.run(repo, "log", "-1", "--format=%ae%x00%s").partition("\0")
    return email, subject


def commits_since(repo: Path, start: str) -> int:
    """How many commits HEAD is ahead of `start`."""
    return int(git.run(repo, "rev-list", "--count", f"{start}..HEAD"))


def push(
    repo: Path,
    source: str,
    branch: str,
    env: dict[str, str],
    *,
    base: str | None = None,
    secrets: Mapping[str, str] | None = None,
) -> None:
    """Push commit `source` to `refs/heads/<branch>` on origin; never forced.

    With `base`, the diff `base..source` is scanned first for `secrets` (name -> value) and
    token shapes: `fixbot.leakscan.LeakRefused` is raised and nothing pushed when one is found.
    Raises `git.GitError` with the next step: a rejected push means the branch moved while
    fixbot ran; a refused one means the token lacks `contents: write`.
    """
    if base is not None:
        diff = git.run(repo, "diff", "--text", "--no-color", "--no-ext-diff", base, source)
        refuse_if_leaking(diff, secrets or {}, f"pushing to {branch}")
    try:
        git.run(repo, "push", "--quiet", "origin", f"{source}:refs/heads/{branch}", env=env)
    except git.GitError as exc:
        text = str(exc)
        if "rejected" in text or "non-fast-forward" in text or "fetch first" in text:
            hint = f"`{branch}` moved while fixbot ran; re-run the workflow on the new head"
        else:
            hint = "check that the job has `permissions: contents: write` and the token may push"
        raise git.GitError(f"pushing to {branch} failed: {hint}.\n{text}") from exc


def patch(repo: Path, start: str, secrets: Mapping[str, str] | None = None) -> str:
    """The diff from `start` to HEAD, bounded to `PATCH_LIMIT_CHARS`.

    Raises `fixbot.leakscan.LeakRefused` when it carries one of `secrets` or a token shape.
    """
    text = git.run(repo, "diff", "--binary", "--no-ext-diff", start, "HEAD")
    refuse_if_leaking(
        git.run(repo, "diff", "--text", "--no-ext-diff", start, "HEAD"),
        secrets or {},
        "posting the patch",
    )
    if len(text) > PATCH_LIMIT_CHARS:
        return text[:PATCH_LIMIT_CHARS] + "\n[patch truncated: see the job summary]\n"
    return text


def tracked_files(repo: Path) -> list[str]:
    """Repository-relative paths of tracked files."""
    return git.run(repo, "ls-files").splitlines()
