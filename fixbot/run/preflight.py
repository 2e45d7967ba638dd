"""Preflight: check the set-up before spending anything (no check run, no model call).

Every problem found is returned at once, each with its fix, so `fixbot run` can stop with exit 2
in well under a second: a fixer is configured; every model's key is in the environment; the
check command's programs exist and its `cd`s succeed, as the shell that runs it says
(`fixbot.process.shellwords`); the folder is a git repository with at least one commit.

Model keys: for the providers in `fixbot.core.secrets.KEY_VARIABLES` the variable is looked
up directly (litellm takes seconds to import; tests/run/test_preflight.py checks the table
against `litellm.validate_environment`); other providers ask `litellm.validate_environment`,
which names the missing variables (https://docs.litellm.ai/docs/set_keys). A model served
through `api-base` is not checked: local OpenAI-compatible servers often need no key.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.core.secrets import (
    KEY_VARIABLES,
    UNCHECKED_PROVIDERS,
    check_environment,
    provider_of,
)
from fixbot.core.settings import Settings
from fixbot.policy.manifests import missing_tool_hint
from fixbot.process import cloning, installation, shellwords
from fixbot.process.sandbox import Identity


def missing_keys(model: str, env: Mapping[str, str]) -> list[str]:
    """The environment variables `model`'s provider needs that are not set (empty when none):
    for the providers of `KEY_VARIABLES`, its key in `env`; for the others, the names litellm's
    `validate_environment` finds missing from this process's own environment (where litellm
    reads them when it calls the model), less those `env` sets. This process's environment is
    never swapped for `env` to ask: `env` is the environment fixbot was started with, which
    fixbot's own process never holds (`fixbot.core.environment`), and litellm may be importing
    in another thread (`fixbot.agent.llm.warm_up`)."""
    provider = provider_of(model)
    if provider in UNCHECKED_PROVIDERS:
        return []
    if provider in KEY_VARIABLES:
        return [KEY_VARIABLES[provider]] if not env.get(KEY_VARIABLES[provider]) else []
    from fixbot.agent.llm import litellm_module

    found = litellm_module().validate_environment(model=model)
    return [str(name) for name in found.get("missing_keys") or [] if not env.get(str(name))]


def _fixer(settings: Settings) -> list[str]:
    if settings.model:
        # imported here: the protocols bring the model agent, which a run without one skips
        from fixbot.agent.protocols import registry as protocols

        problem = protocols.check(settings.edit_protocol)
        return [problem] if problem else []
    if settings.fix_commands:
        return []
    return [
        "no fixer is configured: set a model (--model anthropic/claude-sonnet-4-5, with its key "
        "in the environment) or a deterministic fix command (--fix-commands 'ruff check --fix .')"
    ]


def _keys(settings: Settings, env: Mapping[str, str]) -> list[str]:
    if settings.api_base:
        return []
    models = [settings.model, settings.escalation_model, *settings.fallback_models]
    problems: list[str] = []
    for model in dict.fromkeys(m for m in models if m):
        for name in missing_keys(model, env):
            problems.append(
                f"{name} is not set (needed by {model}): export {name}=... (in GitHub Actions, "
                f"pass it as a secret with `env:`), or choose another --model"
            )
    return problems


def check_words(
    settings: Settings, workdir: Path, env: Mapping[str, str], identity: Identity | None
) -> list[str]:
    """What the shell that runs the check says of its words, as the user who runs it
    (`fixbot.process.shellwords`): a `cd` that fails, a program it cannot find. Asked as another
    user (`identity`), call it once the work tree is theirs (`fixbot.process.sandbox.handed_over`):
    a script of the repository's that only its owner may run becomes runnable then."""
    if settings.setup:
        return []  # the set-up command may install them (or create the folders)
    answer = shellwords.resolve(settings.check, workdir, check_environment(env), identity)
    who = f" for the user {identity.name}, who runs the check" if identity else ""
    if answer.failed_cd:
        folder, said = answer.failed_cd
        return [
            f"the check command `{settings.check}` runs `cd {folder}`, which fails in "
            f"{workdir}{who} ({said}): the check runs in {workdir}; fix the folder in the check "
            "command (or pass -C with the folder it expects)"
        ]
    return [_missing(settings.check, shell, word, who, env) for shell, word in answer.missing]


def _missing(check: str, shell: str, word: str, who: str, env: Mapping[str, str]) -> str:
    """What to do about `word`, which `shell` did not find while probing `check`."""
    where = f"the check command `{check}`" if shell == shellwords.SHELL else f"`{shell} -c` in it"
    if shell == shellwords.SHELL and shellwords.bash_builtin(word, env):
        use = "write `. FILE` instead of `source FILE`, or " if word == "source" else ""
        under_bash = shlex.quote(f"bash -c {shlex.quote(check)}")
        return (
            f"`{word}` (from {where}) is a bash builtin, but the check runs under "
            f"{shellwords.SHELL} ({Path(os.path.realpath(shellwords.SHELL)).name} here), which "
            f"has no `{word}`: {use}run it under bash: --check {under_bash}"
        )
    if word.startswith("/"):
        closed = (
            " (a folder on its way may be closed to them: make it reachable, or set run-as: self)"
            if who
            else ""
        )
        return f"`{word}` (from {where}) is not an executable file{who}{closed}: fix the path"
    if "/" in word:
        return (
            f"`{word}` (from {where}) is not an executable file{who}, seen from the folder the "
            "check's `cd`s lead to: fix the path (relative paths start where the check runs), "
            "or set --setup-command to create it first"
        )
    # In the Action, where the check runs says what to do (process.installation; run.setup).
    fix = missing_tool_hint("command_not_found", 127, installation.runtime()) or (
        "install it, fix the check command, or set --setup-command to install it first"
    )
    return f"`{word}` (from {where}) is not installed or not on PATH{who}: {fix}"


def _repository(workdir: Path) -> list[str]:
    if not workdir.is_dir():
        return [f"{workdir} does not exist: pass -C with the repository's folder"]
    # found by lstat and asked of git-upload-pack only: no git of fixbot's reads the
    # workspace's repository (its config, hooks, `commondir`), which the commands may own
    root = cloning.workspace_root(workdir.resolve())
    if root is None:
        return [f"{workdir} is not a git repository: run fixbot in a clone (or `git init`)"]
    try:
        cloning.workspace_head(root)
    except GitError as exc:
        if "no commit" not in str(exc):
            return [f"{root} is not a git repository git can read ({exc}): run fixbot in a clone"]
        return [
            "the repository has no commits yet: commit first (git add -A && git commit -m "
            "'initial'), so fixbot has a starting point to compare and restore"
        ]
    return []


def preflight(
    settings: Settings,
    workdir: Path,
    env: Mapping[str, str],
    *,
    fixer_given: bool = False,
    identity: Identity | None = None,
) -> list[str]:
    """Every problem that would make the run fail before it could fix anything, with its fix.

    `workdir` is where the check runs; `env` the environment fixbot was started with;
    `fixer_given` when the caller brings its own fixers (tests, embedding); `identity` the user
    the project's commands run as (None: fixbot's own). The check's words are resolved here
    when the commands run as fixbot's own user; as another user, the caller asks
    `check_words` once the work tree is theirs.
    """
    where = _repository(workdir)
    if not settings.check:
        where.append(
            "no check command: pass --check 'pytest -q', or leave it out of `fixbot run`, which "
            "infers it from the CI workflow (`fixbot run --explain` shows what it would run)"
        )
    own = identity is None and not where
    programs_missing = check_words(settings, workdir, env, None) if own else []
    fixer = [] if fixer_given else _fixer(settings)
    return [*where, *fixer, *_keys(settings, env), *programs_missing]
