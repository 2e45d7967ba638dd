"""The git adapter: thin wrappers over the `git` command, run in the repository.

Every function takes the repository root and raises `GitError` (with git's own message) when
git fails. Nothing here rewrites history: no reset, no rebase, no force. This module runs git
and reads and restores a work tree; what fixbot records with it (an attempt's snapshot, the
verified commit, checked to check out as the bytes the check ran on) is
`fixbot.process.commits`.

`run` is the one way fixbot runs git (every caller: the engine, the model's file tools, the
checkout). fixbot's git never runs the repository's code and never holds a secret it does not
need: the program is an absolute path resolved once from folders only root may write when
fixbot is root (`fixbot.process.programs`: a `git` planted on PATH never runs); hooks are off
(`core.hooksPath=/dev/null`, so `pre-push`, `post-commit`, `reference-transaction` and the rest
never run; `--no-verify` alone skips only pre-commit and commit-msg), `core.fsmonitor` is off,
the `ext::` transport is refused (`protocol.ext.allow=never`: a `pushurl = ext::sh script` runs
a shell command), and the environment is minimal (`PASSED_VARIABLES` plus the `GIT_*` fixbot
sets, PATH cut to the trusted folders). The token reaches git only through the credential
helper of `fixbot.github.api.checkout.auth_env`, for the commands that talk to the remote, from a
pipe (`CREDENTIAL_TOKEN`), never the environment.
During a run every git of fixbot's runs on fixbot's own clone, with its configuration, HOME and
XDG folders pinned inside fixbot's private folder (`pinned`, set by
`fixbot.process.worlds.entered`): nothing the project's commands write (the workspace's `.git`,
HOME, `$XDG_CONFIG_HOME/git`) is read by it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import programs

__all__ = ["GitError"]


# What fixbot's git inherits from fixbot's own environment, which `fixbot.startup` built from
# the allowlist of `fixbot.core.environment` (so a proxy or CA here is the `https-proxy` or
# `ca-bundle` setting's, and no GIT_AUTHOR_* of the step's is in it; tests calling fixbot in
# process may set them). Nothing else (no token, no model key, no
# GIT_CONFIG_COUNT/GIT_SSH_COMMAND/GIT_ASKPASS from outside).
PASSED_VARIABLES = frozenset(
    {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SSL_CERT_FILE", "SSL_CERT_DIR"}
    | {"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"}
    | {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_SSL_CAINFO"}
    | {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}
)
SAFE_CONFIG = (
    *("-c", "core.hooksPath=/dev/null"),
    *("-c", "core.fsmonitor=false"),
    *("-c", "protocol.ext.allow=never"),
    *("-c", "core.sshCommand=ssh"),
)


_PINNED: dict[str, str] = {}  # set by `pinned` for the length of a run (fixbot's private folder)


@contextmanager
def pinned(variables: dict[str, str]) -> Iterator[None]:
    """Give every git of fixbot's `variables` (GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM, HOME,
    XDG_CONFIG_HOME) for the block, over whatever fixbot's environment says; restored after."""
    before = dict(_PINNED)
    _PINNED.update(variables)
    try:
        yield
    finally:
        _PINNED.clear()
        _PINNED.update(before)


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of fixbot's git: `PASSED_VARIABLES` of ours (PATH cut to the trusted
    folders of `programs.trusted_path`), the `pinned` variables, then `extra`."""
    base = {k: v for k, v in os.environ.items() if k in PASSED_VARIABLES}
    if "PATH" in base:
        base["PATH"] = programs.trusted_path(base["PATH"], os.geteuid())
    return {**base, **_PINNED, **(extra or {})}


# A token for the credential helper (`fixbot.github.api.checkout.auth_env`) is handed to `run`
# under this key and never reaches git's environment: `run` writes it into a pipe whose read end
# git inherits, and the helper reads it from `/dev/fd/$FIXBOT_GIT_TOKEN_FD`. So it is in no
# process's environ or command line, where any process of the same user could read it.
CREDENTIAL_TOKEN = "FIXBOT_GIT_TOKEN"
CREDENTIAL_FD = "FIXBOT_GIT_TOKEN_FD"
PIPE_LIMIT = 4096  # bytes a pipe takes without a reader on every platform (POSIX PIPE_BUF)


def run(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
    timeout: float | None = None,
    errors: str = "replace",
) -> str:
    """Run `git <args>` in `repo` (see `completed`) and return stdout (text, stripped of the
    final newline). Raises `GitError` when git fails and `check` is set, and as `completed`."""
    done = completed(repo, *args, env=env, timeout=timeout, errors=errors)
    if check and done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip()
        said = said.encode(errors="surrogateescape").decode(errors="replace")  # printable
        raise GitError(f"git {' '.join(args)} failed: {said}")
    return done.stdout.rstrip("\n")


def names(repo: Path, command: str, *args: str) -> list[str]:
    """The paths `git <command> -z <args>` lists (`ls-tree --name-only`, `diff --name-only`,
    `ls-files`), each as the repository spells it: `-z` lists them unquoted, split on NUL,
    where a line-based listing quotes a name with a byte outside printable ASCII, a quote or a
    backslash (`core.quotePath`: `tëst.sh` listed as `"t\\303\\253st.sh"`, matching no path a
    check names). Raises `GitError` as `run`."""
    return [name for name in run(repo, command, "-z", *args).split("\0") if name]


def completed(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    stdin: str | None = None,
    errors: str = "replace",
) -> subprocess.CompletedProcess[str]:
    """Run fixbot's git (`programs.which("git")`, `SAFE_CONFIG`, `git_environment(env)`) with
    `args` in `repo`, for at most `timeout` seconds, `stdin` (text) on its standard input;
    return git's exit code and text output. `errors` is how bytes that are not UTF-8 are
    decoded (and `stdin` encoded): `surrogateescape` for path listings, whose names are bytes
    (`os.fsdecode`'s form: a name read back with `replace` names no file), else `replace`.

    A `CREDENTIAL_TOKEN` entry of `env` goes to git through a pipe (see above), not its
    environment. Raises `ConfigError` when no trusted git exists, `subprocess.TimeoutExpired` past
    `timeout`, OSError when `repo` is not a folder, ValueError for a token longer than
    `PIPE_LIMIT` bytes.
    """
    extra = dict(env or {})
    token = extra.pop(CREDENTIAL_TOKEN, None)
    fds: tuple[int, ...] = ()
    if token is not None:
        fds = (token_pipe(token),)
        extra[CREDENTIAL_FD] = str(fds[0])
    try:
        return subprocess.run(
            [programs.which("git"), *SAFE_CONFIG, *args],
            cwd=repo,
            env=git_environment(extra),
            stdin=None if stdin is not None else subprocess.DEVNULL,
            input=stdin,
            capture_output=True,
            text=True,
            errors=errors,
            check=False,
            timeout=timeout,
            pass_fds=fds,
        )
    finally:
        for fd in fds:
            os.close(fd)


def token_pipe(token: str) -> int:
    """The read end of a pipe holding `token` (its write end closed)."""
    data = token.encode()
    if len(data) > PIPE_LIMIT:
        raise ValueError(f"a git token longer than {PIPE_LIMIT} bytes cannot be passed")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    return read_end


def toplevel(path: Path) -> Path | None:
    """The root of the git work tree containing `path`, or None when it is not in one."""
    try:
        return Path(run(path, "rev-parse", "--show-toplevel"))
    except (GitError, FileNotFoundError, NotADirectoryError):
        return None


def head_sha(repo: Path) -> str:
    """The full sha of HEAD."""
    return run(repo, "rev-parse", "HEAD")


def current_branch(repo: Path) -> str | None:
    """The checked-out branch name, or None on a detached HEAD."""
    name = run(repo, "rev-parse", "--abbrev-ref", "HEAD")
    return None if name == "HEAD" else name


# Python's bytecode, which any check that runs Python leaves in a repository without a
# .gitignore for it (PYTHONDONTWRITEBYTECODE is unset in most shells): never the user's change
# and never fixbot's to commit or to count as a dirty tree.
BYTECODE = (":(exclude,glob)**/__pycache__/**", ":(exclude,glob)**/*.py[co]")


def status_lines(repo: Path) -> list[str]:
    """`git status --porcelain` lines (untracked files included; ignored ones and Python's
    bytecode, `BYTECODE`, not)."""
    out = run(repo, "status", "--porcelain", "--untracked-files=all", "--", ".", *BYTECODE)
    return [line for line in out.splitlines() if line.strip()]


def exclude_path(repo: Path, pattern: str) -> None:
    """Add `pattern` to `.git/info/exclude` once, so fixbot's state is never committed."""
    exclude = Path(run(repo, "rev-parse", "--git-path", "info/exclude"))
    if not exclude.is_absolute():
        exclude = repo / exclude
    exclude.parent.mkdir(parents=True, exist_ok=True)
    lines = exclude.read_text(encoding="utf-8").splitlines() if exclude.exists() else []
    if pattern not in lines:
        with exclude.open("a", encoding="utf-8") as handle:
            handle.write(("\n" if lines and lines[-1] else "") + pattern + "\n")


def _changed_paths(repo: Path) -> list[str]:
    out = run(repo, "ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard")
    return sorted({p for p in out.split("\0") if p})


def tree_fingerprint(repo: Path) -> dict[str, str | None]:
    """Content hashes of every file that differs from the index (None for deleted files)."""
    prints: dict[str, str | None] = {}
    for rel in _changed_paths(repo):
        path = repo / rel
        if path.is_file() and not path.is_symlink():
            prints[rel] = file_digest(path)
        elif path.is_symlink():
            prints[rel] = "link:" + os.readlink(path)
        else:
            prints[rel] = None
    return prints


def file_digest(path: Path) -> str:
    """The sha256 (hex) of the file at `path`, read in chunks: memory stays bounded whatever its
    size (a sparse 6 GiB file is not read into memory at once)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def changed_since(repo: Path, before: dict[str, str | None]) -> list[str]:
    """Paths whose content changed since the `tree_fingerprint` `before` was taken."""
    after = tree_fingerprint(repo)
    return sorted(p for p in set(before) | set(after) if before.get(p, "=") != after.get(p, "="))


def worktree_tree(repo: Path) -> str:
    """The tree sha of the working tree (tracked and untracked, not ignored, without Python's
    bytecode: `BYTECODE`), via a temp index.

    The real index is not touched.
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        run(repo, "read-tree", "HEAD", env=env)
        run(repo, "add", "-A", "--", ".", *BYTECODE, env=env)
        return run(repo, "write-tree", env=env)


def diff_since(repo: Path, base: str, max_bytes: int = 200_000) -> str:
    """The diff of the working tree (untracked files included) against `base`, bounded."""
    text = run(repo, "diff", base, worktree_tree(repo))
    return text if len(text) <= max_bytes else text[:max_bytes] + "\n[diff truncated]\n"


def diff_lines(repo: Path, base: str, target: str | None = None) -> int:
    """Lines added plus deleted from `base` to `target` (a commit or tree; default: the working
    tree, untracked files included)."""
    total = 0
    for line in run(repo, "diff", "--numstat", base, target or worktree_tree(repo)).splitlines():
        added, deleted, _ = line.split("\t", 2)
        total += int(added) if added.isdigit() else 0
        total += int(deleted) if deleted.isdigit() else 0
    return total


def restore_worktree(repo: Path, commit: str) -> None:
    """Make the working tree's files equal to `commit`'s tree; HEAD and the index are untouched.

    Files that exist now but not in `commit` are deleted (ignored files are left alone).
    """
    current = worktree_tree(repo)
    added = run(repo, "diff", "--name-only", "-z", "--diff-filter=A", commit, current)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        run(repo, "read-tree", commit, env=env)
        run(repo, "checkout-index", "--all", "--force", env=env)
    for rel in filter(None, added.split("\0")):
        (repo / rel).unlink(missing_ok=True)


def restore_paths(repo: Path, tree: str, paths: Sequence[str]) -> None:
    """Make the files at `paths` (repository-relative) equal to `tree`'s: written from it, or
    deleted when `tree` has none; every other file, HEAD and the index are untouched."""
    if not paths:
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), "GIT_LITERAL_PATHSPECS": "1"}
        run(repo, "read-tree", tree, env=env)
        listed = run(repo, "ls-files", "-z", "--", *paths, env=env)
        present = set(filter(None, listed.split("\0")))
        if present:
            args = ("checkout-index", "--force", "-z", "--stdin")
            done = completed(repo, *args, env=env, stdin="\0".join(sorted(present)))
            if done.returncode != 0:
                raise GitError(f"git checkout-index failed: {done.stderr.strip()}")
    for rel in set(paths) - present:
        (repo / rel).unlink(missing_ok=True)


def changed_files(repo: Path, base: str, target: str) -> list[str]:
    """Repository-relative paths changed from `base` to `target` (renames as delete + add)."""
    return names(repo, "diff", "--name-only", "--no-renames", base, target)


def is_shallow(repo: Path) -> bool:
    """True when the clone is shallow (actions/checkout's default `fetch-depth: 1`)."""
    return run(repo, "rev-parse", "--is-shallow-repository") == "true"


def resolve(repo: Path, ref: str) -> str | None:
    """The object `ref` names (a commit's sha for a branch or remote ref), None when it names
    none."""
    return run(repo, "rev-parse", "--verify", "--quiet", ref, check=False).strip() or None


def fetch_branch(repo: Path, branch: str, ref: str, env: dict[str, str]) -> None:
    """Fetch `origin`'s `branch` into the local `ref` (forced, no tags), with `env` (the remote's
    credentials). Raises GitError."""
    run(repo, "fetch", "--no-tags", "--quiet", "origin", f"+refs/heads/{branch}:{ref}", env=env)


def commits_with_trailer(repo: Path, since: str, key: str) -> list[tuple[str, str, str]]:
    """(sha, subject, the `key` trailer's values joined by commas) of each commit in
    `since..HEAD`, newest first. Raises GitError."""
    fmt = f"%H%x00%s%x00%(trailers:key={key},valueonly,separator=%x2C)%x1e"
    out = run(repo, "log", f"--format={fmt}", f"{since}..HEAD")
    rows = [entry.strip("\n").split("\0") for entry in out.split("\x1e") if entry.strip()]
    return [(r[0], r[1], r[2]) for r in rows if len(r) == 3]


def changed_on_branch(repo: Path, base: str) -> list[str]:
    """The paths HEAD changed since it left `base` (`base...HEAD`, as a pull request's diff).
    Raises GitError."""
    return names(repo, "diff", "--name-only", f"{base}...HEAD")


def _bytes_out(repo: Path, args: Sequence[str], stdin: bytes = b"") -> tuple[int, bytes]:
    """(exit code, standard output as bytes) of fixbot's git with `args` in `repo`, `stdin`
    on its input: what `completed`'s text would change (`\\r\\n` read as `\\n`) kept."""
    done = subprocess.run(
        [programs.which("git"), *SAFE_CONFIG, *args],
        cwd=repo,
        env=git_environment(),
        input=stdin,
        capture_output=True,
        check=False,
    )
    return done.returncode, done.stdout


def blob_bytes(repo: Path, names: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each blob of `names` (`rev:path`; a name with a newline is left out) as
    git stores it (`git cat-file --batch`, one process); a name git has no blob for is left
    out. Raises GitError where git fails."""
    asked = [name for name in names if "\n" not in name]
    code, out = _bytes_out(repo, ["cat-file", "--batch"], "".join(f"{n}\n" for n in asked).encode())
    if code != 0:
        raise GitError(f"git cat-file --batch failed (exit {code})")
    found, at = {}, 0
    for name in asked:
        end = out.index(b"\n", at)
        head = out[at:end].split(b" ")
        at = end + 1
        if len(head) == 3 and head[1] in (b"blob", b"tree", b"commit", b"tag"):
            size = int(head[2])
            if head[1] == b"blob":
                found[name] = out[at : at + size]
            at += size + 1
    return found


def checkout_bytes(repo: Path, name: str) -> bytes | None:
    """The bytes a checkout writes for `name` (`rev:path`): its blob with the conversions of
    gitattributes(5) applied (`git cat-file --filters`); None where git has no such file."""
    code, out = _bytes_out(repo, ["cat-file", "--filters", name])
    return out if code == 0 else None
