"""Rebuild a case on disk: download its release, make the broken repository and its environment.

The phases, in order: the release downloaded or found in the cache (`fixbot.bench.releases`),
the case's environment built or found there (`fixbot.bench.environments`), and here the
repository: the release unpacked into a fresh folder, the [broken] patch applied, committed.
Everything downloaded or installed is cached under `cache_root()` (`fixbot.bench.cache`:
`~/.cache/fixbot/bench/`, or `FIXBOT_BENCH_CACHE`). A second `prepare` of a case is offline: it
unpacks the cached archive into a fresh repository and reuses the environment.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fixbot.bench.archives import PrepareError, unpack
from fixbot.bench.corpus import Case, Ecosystem
from fixbot.bench.environments import check_env, environment
from fixbot.bench.releases import download
from fixbot.process import git

EXCLUDED = (
    "__pycache__/",
    ".pytest_cache/",
    "*.pyc",
    "*.egg-info/",
    "/node_modules",
    ".mypy_cache/",
    "/.tox",  # a tox check's environments, made in the repository at run time
)
# what a Rust case's check leaves in its repository: git ignores them, fixbot's edits never touch
# them (a crate from Debian's archive ships no lock file; cargo writes one)
EXCLUDED_RUST = ("/target/", "/Cargo.lock")


@dataclass(frozen=True)
class Prepared:
    """A case on disk, ready for the check.

    `repo`: a git repository with one commit "broken" on which `check` fails; `env`: the complete
    environment to run `check` and `hidden_command` with (the case's venv or node_modules first on
    PATH); `fix_patch` and `hidden_patch` are unified diffs for `git apply` in `repo`.
    """

    case: Case
    repo: Path
    env: dict[str, str]
    check: str
    hidden_command: str | None
    fix_patch: str
    hidden_patch: str


def prepare(case: Case, cache: Path, into: Path | None = None) -> Prepared:
    """Rebuild `case`: its repository at `into` (default `cache/work/<id>`, replaced if present)
    and its environment under `cache/envs/`.

    Raises `PrepareError` when the download, unpacking, the broken patch or the install fails.
    """
    archive = download(case, cache / "archives")
    env_dir = environment(case, cache / "envs")
    repo = into or cache / "work" / case.id
    if repo.exists():
        shutil.rmtree(repo)
    if case.package.into:
        # a monorepo: the release is one package in a subfolder; the [broken] patch makes the
        # root's own files (validated by corpus.py), and the check runs from the root
        repo.mkdir(parents=True)
        unpack(archive, repo / case.package.into, case.package.root)
    else:
        unpack(archive, repo, case.package.root)
    _init_repo(repo, case)
    if case.ecosystem is Ecosystem.NPM:
        (repo / "node_modules").symlink_to(env_dir / "node_modules", target_is_directory=True)
    return Prepared(
        case=case,
        repo=repo,
        env=check_env(case, env_dir),
        check=case.check.command,
        hidden_command=case.hidden.command,
        fix_patch=case.fix.patch,
        hidden_patch=case.hidden.patch,
    )


# -- the repository ---------------------------------------------------------------------------


def _init_repo(repo: Path, case: Case) -> None:
    """git init, apply the broken patch, commit everything as "broken"."""
    git.run(repo, "init", "-q", "-b", "main")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    within = f"/{case.package.into}" if case.package.into else ""
    rust = [within + e for e in EXCLUDED_RUST] if case.ecosystem is Ecosystem.RUST else []
    exclude.write_text("\n".join((*EXCLUDED, *rust)) + "\n", encoding="utf-8")
    if case.broken.patch:
        apply_patch(repo, case.broken.patch, f"{case.id}: the [broken] patch")
    git.run(repo, "add", "-A", "-f", ".", ":!node_modules")
    identity = {
        "GIT_AUTHOR_NAME": "fixbot bench",
        "GIT_AUTHOR_EMAIL": "bench@fixbot.invalid",
        "GIT_COMMITTER_NAME": "fixbot bench",
        "GIT_COMMITTER_EMAIL": "bench@fixbot.invalid",
    }
    git.run(repo, "commit", "-q", "--no-verify", "-m", "broken", env=identity)


def apply_patch(repo: Path, patch: str, what: str) -> None:
    """`git apply` `patch` in `repo`. Raises `PrepareError` naming `what` and git's complaint."""
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False, encoding="utf-8") as f:
        f.write(patch if patch.endswith("\n") else patch + "\n")
    try:
        done = git.completed(repo, "apply", "--whitespace=nowarn", f.name)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        raise PrepareError(f"{what} does not apply: {done.stderr.strip()}")
