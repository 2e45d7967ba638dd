"""Git work of the Action: identity, safe.directory, switching to the branch to fix, pushing,
and replaying fixbot's own commits onto a branch that moved while it ran.

Thin wrappers over `fixbot.process.git.run`. Nothing here force-pushes or rewrites a remote branch:
the one rebase (`replay`) moves fixbot's own commits, never published, onto the branch's new tip in
the Action's workspace, and the result is pushed as a fast-forward only after the check passed on it
again. The token reaches git through a credential helper reading it from a pipe (`git.run`), so it
is never written into `.git/config`, a command line, a log or any process's environment.
Nothing is pushed, and no patch is handed out, before `fixbot.security.leakscan` found no secret
in it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fixbot.github.events.gates import BOT_EMAIL, BOT_LOGIN
from fixbot.process import git, index, sandbox
from fixbot.security.leakscan import refuse_if_leaking, refuse_if_text_leaking

TOKEN_VARIABLE = git.CREDENTIAL_TOKEN  # handed to `git.run`, which passes it through a pipe
HOST_VARIABLE = "FIXBOT_GIT_HOST"
# git's credential protocol (https://git-scm.com/docs/git-credential): the request arrives on
# stdin as key=value lines; the token is given only for `get` and only to the expected host, so
# a rewritten remote URL (`url.*.insteadOf`, `remote.origin.url`) never receives it. The token is
# read from the pipe `git.run` opened (`/dev/fd/N`, N in FIXBOT_GIT_TOKEN_FD): it is in no
# process's environment or command line.
_HELPER = (
    '!f() { test "$1" = get || exit 0; h=; while IFS= read -r l && test -n "$l"; do '
    'case "$l" in host=*) h="${l#host=}";; esac; done; '
    f'if test -z "${HOST_VARIABLE}" || test "$h" = "${HOST_VARIABLE}"; then '
    f't=$(cat "/dev/fd/${git.CREDENTIAL_FD}") && echo username=x-access-token && '
    'printf "password=%s\\n" "$t"; fi; }; f'
)
PATCH_LIMIT_CHARS = 40_000
# How git reports a push refused because the remote branch is not an ancestor of what is pushed
# (git-push(1), "NOTE ABOUT FAST-FORWARDS"): `! [rejected] ... (non-fast-forward)` when the new
# tip is known locally, `(fetch first)` when it is not. A `[remote rejected]` (a hook, a
# protected branch) or an HTTP 403 is a refusal, not a moved branch.
MOVED_MARKERS = ("(non-fast-forward)", "(fetch first)")


class BranchMoved(git.GitError):
    """A push rejected as non-fast-forward: the branch moved on origin while fixbot ran."""


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
    root = Path("/")  # no git of fixbot's reads the workspace's repository for this
    git.run(root, "config", "--global", "--add", "safe.directory", str(workspace))
    git.run(root, "config", "--global", "user.name", BOT_LOGIN)
    git.run(root, "config", "--global", "user.email", BOT_EMAIL)


def switch(repo: Path, remote_ref: str, local: str, sha: str | None, env: dict[str, str]) -> str:
    """Fetch `remote_ref` from origin and check it out as branch `local`; return HEAD's sha.

    `sha` (the event's head commit) is checked out when it is present after the fetch, else the
    fetched tip. actions/checkout leaves a pull request's merge commit detached: this puts the
    PR's head branch in its place. A clone left unwritten (`index.clone_unwritten`) stays so
    when the target is its HEAD (a push event, a workflow that checks out the head ref: only
    the branch is set); its files are written first when the target is another commit.
    """
    tracking = f"refs/remotes/origin/fixbot-source/{local}"
    git.run(repo, "fetch", "--no-tags", "--quiet", "origin", f"+{remote_ref}:{tracking}", env=env)
    target = sha if sha and _has_commit(repo, sha) else tracking
    commit = git.run(repo, "rev-parse", "--verify", f"{target}^{{commit}}")
    if (repo / ".git" / index.UNWRITTEN).exists() and commit == git.head_sha(repo):
        git.run(repo, "update-ref", f"refs/heads/{local}", commit)
        git.run(repo, "symbolic-ref", "HEAD", f"refs/heads/{local}")
        return commit
    index.write_unwritten(repo)
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

    With `base`, the diff `base..source` (its added lines and file names) and its commit messages
    are scanned first for `secrets` (name -> value) and token shapes:
    `fixbot.security.leakscan.LeakRefused` is raised and nothing pushed when one is found.
    Raises `BranchMoved` (a `git.GitError`) when the push was rejected as non-fast-forward (the
    branch moved while fixbot ran), and `git.GitError` with the next step when it was refused (the
    token lacks `contents: write`, a protected branch, a hook).
    """
    if base is not None:
        diff = git.run(repo, "diff", "--text", "--no-color", "--no-ext-diff", base, source)
        refuse_if_leaking(diff, secrets or {}, f"pushing to {branch}")
        refuse_messages(repo, base, source, secrets or {}, f"pushing to {branch}")
    try:
        git.run(repo, "push", "--quiet", "origin", f"{source}:refs/heads/{branch}", env=env)
    except git.GitError as exc:
        text = str(exc)
        if any(marker in text for marker in MOVED_MARKERS):
            hint = f"`{branch}` moved while fixbot ran; re-run the workflow on the new head"
            raise BranchMoved(f"pushing to {branch} failed: {hint}.\n{text}") from exc
        hint = "check that the job has `permissions: contents: write` and the token may push"
        raise git.GitError(f"pushing to {branch} failed: {hint}.\n{text}") from exc


@dataclass(frozen=True)
class Replayed:
    """Fixbot's commits replayed onto a branch's new tip.

    `tip` is the branch's tip on origin (fetched); `sha` the replayed HEAD, None when the replay
    did not happen; `back` what to check out to return to fixbot's verified commits (its local
    branch, or the verified sha); `conflicts` the paths git could not merge; `problem` why the
    replay did not happen, phrased to follow "the branch moved while fixbot ran; " ('' when it
    did).
    """

    tip: str
    back: str
    sha: str | None = None
    conflicts: tuple[str, ...] = ()
    problem: str = ""


def replay(repo: Path, branch: str, start: str, env: dict[str, str]) -> Replayed:
    """Fetch `branch` from origin and replay fixbot's commits `start..HEAD` onto its tip.

    The commits are fixbot's own and were never published. On success the work tree holds the
    replayed commits on a detached HEAD (`Replayed.sha`): call `adopt` once they are pushed, or
    `restore` to go back. When git reports a conflict, when the branch no longer holds `start`
    (its history was rewritten), when the work tree has uncommitted changes or when nothing is
    left to replay, the rebase is aborted and the work tree is back at fixbot's verified
    commits (`Replayed.problem` says which). `env` reaches the remote (`auth_env`). Raises
    `git.GitError` when the fetch fails.
    """
    tracking = f"refs/remotes/origin/fixbot-source/{branch}"
    fetch = ("fetch", "--no-tags", "--quiet", "origin", f"+refs/heads/{branch}:{tracking}")
    git.run(repo, *fetch, env=env)
    tip = git.run(repo, "rev-parse", tracking)
    verified = git.head_sha(repo)
    back = git.current_branch(repo) or verified
    if not _is_ancestor(repo, start, tip):
        why = "its history no longer holds the commit fixbot fixed, so the fix was not replayed"
        return Replayed(tip, back, problem=why)
    git.run(repo, "checkout", "--quiet", "--detach", verified)
    try:
        git.run(repo, "rebase", "--quiet", "--onto", tip, start)
    except git.GitError as exc:
        conflicts = tuple(git.names(repo, "diff", "--name-only", "--diff-filter=U"))
        if _rebasing(repo):
            git.run(repo, "rebase", "--abort")
        git.run(repo, "checkout", "--quiet", back)
        if conflicts:
            where = ", ".join(f"`{path}`" for path in conflicts)
            return Replayed(
                tip,
                back,
                conflicts=conflicts,
                problem=f"replaying the fix onto it conflicted in {where}",
            )
        why = f"replaying the fix onto it failed ({str(exc).splitlines()[0]})"
        return Replayed(tip, back, problem=why)
    sha = git.head_sha(repo)
    if sha == tip:  # every commit was dropped: the branch already holds the same change
        git.run(repo, "checkout", "--quiet", back)
        why = "replaying the fix onto it left nothing to push (the same change is already there)"
        return Replayed(tip, back, problem=why)
    return Replayed(tip, back, sha=sha)


def restore(repo: Path, target: str) -> None:
    """Check out `target` (`Replayed.back`) again after a replay that is not pushed; what the
    re-check wrote into tracked files of the replayed tree is discarded (`--force`)."""
    git.run(repo, "checkout", "--quiet", "--force", target)


def adopt(repo: Path, branch: str) -> None:
    """Point the local `branch` at the replayed HEAD (pushed) and check it out."""
    git.run(repo, "checkout", "--quiet", "-B", branch)


def give_back(repo: Path, owner: os.stat_result) -> None:
    """As root, give every file of the work tree (`.git` and the state folder too) back to
    `owner` (the root folder's owner and group, read before a replay wrote files), as
    `fixbot.process.sandbox.handed_over` does on exit, so the runner's user can clean the
    workspace up; as any other user, nothing."""
    if os.geteuid() != 0 or (owner.st_uid, owner.st_gid) == (0, 0):
        return
    sandbox.claim(repo, sandbox.Identity(owner.st_uid, owner.st_gid, "owner"), private=())


def _is_ancestor(repo: Path, ancestor: str, sha: str) -> bool:
    """True when `ancestor` is in `sha`'s history (False too when git cannot tell: a shallow
    history that stops before it, an unknown object)."""
    return git.run(repo, "rev-list", "--count", f"{sha}..{ancestor}", check=False) == "0"


def _rebasing(repo: Path) -> bool:
    gitdir = Path(git.run(repo, "rev-parse", "--absolute-git-dir"))
    return (gitdir / "rebase-merge").exists() or (gitdir / "rebase-apply").exists()


def patch(repo: Path, start: str, secrets: Mapping[str, str] | None = None) -> str:
    """The diff from `start` to HEAD, bounded to `PATCH_LIMIT_CHARS`.

    Raises `fixbot.security.leakscan.LeakRefused` when it carries one of `secrets` or a token shape.
    """
    text = git.run(repo, "diff", "--binary", "--no-ext-diff", start, "HEAD")
    refuse_if_leaking(
        git.run(repo, "diff", "--text", "--no-ext-diff", start, "HEAD"),
        secrets or {},
        "posting the patch",
    )
    refuse_messages(repo, start, "HEAD", secrets or {}, "posting the patch")
    if len(text) > PATCH_LIMIT_CHARS:
        return text[:PATCH_LIMIT_CHARS] + "\n[patch truncated: see the job summary]\n"
    return text


def refuse_messages(
    repo: Path, base: str, source: str, secrets: Mapping[str, str], what: str
) -> None:
    """Raise `fixbot.security.leakscan.LeakRefused` when a commit message of `base..source`
    carries one of `secrets` or a token shape."""
    messages = git.run(repo, "log", "--format=%B", f"{base}..{source}")
    refuse_if_text_leaking({"commit messages": messages}, secrets, what)


def tracked_files(repo: Path) -> list[str]:
    """Repository-relative paths of tracked files."""
    return git.names(repo, "ls-files")
