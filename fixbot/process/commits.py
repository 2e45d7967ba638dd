"""What fixbot records in its clone with git: an attempt's tree kept as a commit at a ref
(`snapshot`, the tree of HEAD with the fixers' paths `paths_tree`), and the verified fix
committed (`commit_paths`; `commit_all`), only when each path staged checks out again as the
very bytes the check ran on (`unfaithful`, `unfaithful_paths`: the repository's attributes
cannot change what is committed). Every git runs through `fixbot.process.git.run`; nothing
here rewrites history, and HEAD, the index and the work tree are left alone but by a commit.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import nofollow
from fixbot.process.git import completed, head_sha, run, worktree_tree


def snapshot(repo: Path, ref: str, message: str, paths: Sequence[str] | None = None) -> str:
    """Record the working tree (tracked and untracked, not ignored) as a commit at `ref`.

    With `paths`, only those paths change from HEAD's tree (the files the fixers changed, never
    what the check left behind). HEAD, the index and the working tree are left alone; the
    commit's parent is HEAD. Returns the commit sha. Used to keep every attempt's tree so the
    best one can be published.
    """
    tree = worktree_tree(repo) if paths is None else paths_tree(repo, paths)
    sha = run(
        repo,
        "commit-tree",
        tree,
        "-p",
        "HEAD",
        "-m",
        message,
        env=_identity_env(repo),
    )
    run(repo, "update-ref", ref, sha)
    return sha


def _identity_env(repo: Path) -> dict[str, str]:
    """A committer identity when the repository has none (fresh CI machines)."""
    if run(repo, "config", "user.email", check=False):
        return {}
    return {
        "GIT_AUTHOR_NAME": "fixbot",
        "GIT_AUTHOR_EMAIL": "fixbot@users.noreply.github.com",
        "GIT_COMMITTER_NAME": "fixbot",
        "GIT_COMMITTER_EMAIL": "fixbot@users.noreply.github.com",
    }


def commit_all(repo: Path, message: str) -> str | None:
    """Stage every change (respecting ignores) and commit; return the sha, or None if clean."""
    run(repo, "add", "-A", "--", ".")
    if not run(repo, "diff", "--cached", "--name-only"):
        return None
    run(repo, "commit", "--no-verify", "-q", "-m", message, env=_identity_env(repo))
    return head_sha(repo)


LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def committable(repo: Path, paths: Sequence[str], env: dict[str, str] | None = None) -> list[str]:
    """Those of `paths` that differ from the index (`env` may name another) and are not ignored,
    deleted ones included."""
    if not paths:
        return []
    out = run(
        repo,
        *("ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard", "--"),
        *paths,
        env={**(env or {}), **LITERAL},
    )
    return sorted({p for p in out.split("\0") if p})


def commit_paths(repo: Path, paths: Sequence[str], message: str) -> str | None:
    """Commit exactly `paths` (the files the fixers changed), nothing else the working tree
    holds; return the sha, or None when none of them differs from HEAD."""
    chosen = committable(repo, paths)
    if chosen:
        run(repo, "add", "-A", "--", *chosen, env=LITERAL)
    staged = run(repo, "diff", "--cached", "--name-only", "-z", "--", *paths, env=LITERAL)
    if not staged.strip("\0"):
        return None
    _check_round_trip(repo, staged.strip("\0").split("\0"))
    run(
        repo,
        *("commit", "--no-verify", "-q", "--only", "-m", message, "--"),
        *staged.strip("\0").split("\0"),
        env={**_identity_env(repo), **LITERAL},
    )
    return head_sha(repo)


def _check_round_trip(repo: Path, paths: Sequence[str]) -> None:
    """Raise `GitError` when one of `paths` staged in `repo`'s index would not check out as its
    working-tree file (`unfaithful`): nothing is committed then."""
    differing = unfaithful(repo, paths)
    if differing:
        raise GitError(
            "the commit would not hold the files the check ran on: the repository's attributes "
            "(.gitattributes: text, eol, ident, working-tree-encoding, filter) convert "
            + ", ".join(differing)
            + " when committed and checked out again; nothing was committed"
        )


def unfaithful(repo: Path, paths: Sequence[str], env: dict[str, str] | None = None) -> list[str]:
    """Those of `paths` whose entry in `repo`'s index (`env` may name another, GIT_INDEX_FILE)
    does not check out (`git checkout-index --temp`: the repository's attributes converting,
    as any checkout of a commit of it will) as the very bytes its working-tree file holds, the
    bytes the check ran on. An attribute (`text`, `eol`, `ident`, `working-tree-encoding`, a
    filter; gitattributes(5)) can make the blob `git add` stores differ from them when checked
    out again: a fix writing CRLF into a `text` file passes the check and would commit LF. A
    path deleted, a link or a path the index lacks is not asked. Raises `GitError`."""
    regular = [p for p in paths if os.path.isfile(repo / p) and not os.path.islink(repo / p)]
    if not regular:
        return []
    done = completed(
        repo,
        *("checkout-index", "--temp", "-z", "--stdin"),
        env={**(env or {}), **LITERAL},
        stdin="\0".join(regular),
        errors="surrogateescape",
    )
    differing = []
    for line in done.stdout.split("\0"):
        temporary, _, rel = line.partition("\t")
        if not rel:
            continue
        written = repo / temporary
        try:
            if written.read_bytes() != (repo / rel).read_bytes():
                differing.append(rel)
        finally:
            written.unlink(missing_ok=True)
    return sorted(differing)


def unfaithful_paths(repo: Path, paths: Sequence[str], rewrite: bool = False) -> list[str]:
    """`unfaithful` for `paths` staged from the working tree on HEAD in a temporary index (as
    `paths_tree` stages them; the real index is not touched). With `rewrite`, each path found
    is written again as its commit will check out (`git checkout-index --force` from that
    index), so the check runs on what is committed: a fix writing LF into an `eol=crlf` file
    gets CRLF, one writing CRLF into a `text` file LF. Returns the paths found. Raises
    `GitError`."""
    if not paths:
        return []
    with _staged(repo, paths) as (env, chosen):
        found = unfaithful(repo, chosen, env)
        if rewrite and found:
            for rel in found:  # checkout-index skips a file whose lstat its index entry holds
                nofollow.remove_path(repo, rel)
            done = completed(
                repo,
                *("checkout-index", "-z", "--stdin"),
                env=env,
                stdin="\0".join(found),
                errors="surrogateescape",
            )
            if done.returncode != 0:
                raise GitError(f"git checkout-index failed: {done.stderr.strip()}")
        return found


def paths_tree(repo: Path, paths: Sequence[str]) -> str:
    """The tree sha of HEAD with `paths` taken from the working tree (via a temp index)."""
    with _staged(repo, paths) as (env, _):
        return run(repo, "write-tree", env=env)


@contextmanager
def _staged(repo: Path, paths: Sequence[str]) -> Iterator[tuple[dict[str, str], list[str]]]:
    """A temporary index holding HEAD with the committable of `paths` staged from the working
    tree: (the environment naming it for git, the paths staged). Raises `GitError`."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **LITERAL}
        run(repo, "read-tree", "HEAD", env=env)
        chosen = committable(repo, paths, env)
        if chosen:
            run(repo, "add", "-A", "--", *chosen, env=env)
        yield env, chosen
