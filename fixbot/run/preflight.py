"""Preflight: check the set-up before spending anything (no check run, no model call).

Every problem found is returned at once, each with its fix, so `fixbot run` can stop with exit 2
in well under a second: a fixer is configured; every model's key is in the environment; the
check command's programs exist; the folder is a git repository with at least one commit.

Model keys: for the providers in `fixbot.core.secrets.KEY_VARIABLES` the variable is looked
up directly (litellm takes seconds to import; tests/run/test_preflight.py checks the table
against `litellm.validate_environment`); other providers ask `litellm.validate_environment`,
which names the missing variables (https://docs.litellm.ai/docs/set_keys). A model served
through `api-base` is not checked: local OpenAI-compatible servers often need no key.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from fixbot.core.secrets import KEY_VARIABLES, UNCHECKED_PROVIDERS, provider_of
from fixbot.core.settings import Settings
from fixbot.loop.manifests import missing_tool_hint
from fixbot.process import git

# Builtins: the simple command starts no program. Keywords: the program follows them.
# Wrappers: the program follows them and their options (`timeout 60 pytest`).
BUILTINS = {
    "[", "[[", ".", ":", "cd", "echo", "eval", "exit", "export", "false", "printf", "pwd", "read",
    "return", "set", "shift", "source", "test", "true", "ulimit", "umask", "unset", "wait",
}  # fmt: skip
KEYWORDS = {"!", "{", "}", "(", ")", "if", "then", "else", "elif", "fi", "do", "done", "while",
            "until", "for", "in", "case", "esac"}  # fmt: skip
WRAPPERS = {"command", "env", "exec", "nice", "nohup", "time", "timeout", "xvfb-run", "stdbuf"}
OPERATORS = {"&&", "||", ";", "|", "&", ";;", "(", ")"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command, split on `&& || ; | &` outside quotes."""
    lexer = shlex.shlex(command.replace("\n", ";"), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    parts: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in OPERATORS:
                parts.append([])
            else:
                parts[-1].append(token)
    except ValueError:  # unbalanced quotes: the shell will say so
        return [command.split()]
    return [p for p in parts if p]


def programs(command: str) -> Iterator[str]:
    """The programs a shell command starts, in order: the first word of each simple command.

    Variable assignments (`FOO=1 pytest`), wrappers (`env`, `timeout 60`, `nice`), keywords and
    builtins are skipped; `sh -c '...'` / `bash -c` are looked into; `python -m X` yields
    `python` (the module is the project's, installed by its set-up).
    """
    for words in _simple_commands(command):
        while words and (words[0] in KEYWORDS or ASSIGNMENT.match(words[0])):
            words = words[1:]
        while words and words[0] in WRAPPERS:
            words = words[1:]
            while words and (words[0].startswith("-") or words[0].rstrip("smhd").isdigit()):
                words = words[1:]
            while words and ASSIGNMENT.match(words[0]):
                words = words[1:]
        if not words or words[0] in BUILTINS or words[0].startswith("-"):
            continue  # a builtin, or the rest of a `$(...)` substitution
        if Path(words[0]).name in ("sh", "bash", "dash", "zsh") and "-c" in words:
            at = words.index("-c")
            if at + 1 < len(words):
                yield from programs(words[at + 1])
                continue
        yield words[0]


def missing_programs(command: str, cwd: Path, env: Mapping[str, str]) -> list[str]:
    """The programs of `command` that are neither on `env`'s PATH nor files under `cwd`."""
    path = env.get("PATH", os.defpath)
    missing: list[str] = []
    for program in programs(command):
        if "$" in program or "`" in program:
            continue  # decided at run time
        if "/" in program:
            target = (cwd / program).expanduser()
            found = target.is_file() and os.access(target, os.X_OK)
        else:
            found = shutil.which(program, path=path) is not None
        if not found and program not in missing:
            missing.append(program)
    return missing


def missing_keys(model: str, env: Mapping[str, str]) -> list[str]:
    """The environment variables `model`'s provider needs that are not set (empty when none)."""
    provider = provider_of(model)
    if provider in UNCHECKED_PROVIDERS:
        return []
    if provider in KEY_VARIABLES:
        return [KEY_VARIABLES[provider]] if not env.get(KEY_VARIABLES[provider]) else []
    from fixbot.agent.llm import litellm_module

    saved = dict(os.environ)
    try:  # validate_environment reads os.environ
        os.environ.clear()
        os.environ.update(env)
        found = litellm_module().validate_environment(model=model)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return [str(name) for name in found.get("missing_keys") or []]


def _fixer(settings: Settings) -> list[str]:
    if settings.model or settings.fix_commands:
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


def _programs(settings: Settings, workdir: Path, env: Mapping[str, str]) -> list[str]:
    if settings.setup:
        return []  # the set-up command may install them
    # In the Action, where the check runs says what to do (FIXBOT_RUNTIME: fixbot.run.setup).
    fix = missing_tool_hint("command_not_found", 127, env.get("FIXBOT_RUNTIME")) or (
        "install it, fix the check command, or set --setup-command to install it first"
    )
    return [
        f"`{program}` (from the check command `{settings.check}`) is not installed or not on "
        f"PATH: {fix}"
        for program in missing_programs(settings.check, workdir, env)
    ]


def _repository(workdir: Path) -> list[str]:
    if not workdir.is_dir():
        return [f"{workdir} does not exist: pass -C with the repository's folder"]
    root = git.toplevel(workdir)
    if root is None:
        return [f"{workdir} is not a git repository: run fixbot in a clone (or `git init`)"]
    if not git.run(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False):
        return [
            "the repository has no commits yet: commit first (git add -A && git commit -m "
            "'initial'), so fixbot has a starting point to compare and restore"
        ]
    return []


def preflight(
    settings: Settings, workdir: Path, env: Mapping[str, str], *, fixer_given: bool = False
) -> list[str]:
    """Every problem that would make the run fail before it could fix anything, with its fix.

    `workdir` is where the check runs; `env` the environment fixbot was started with;
    `fixer_given` when the caller brings its own fixers (tests, embedding).
    """
    where = _repository(workdir)
    programs_missing = _programs(settings, workdir, env) if not where else []
    fixer = [] if fixer_given else _fixer(settings)
    return [*where, *fixer, *_keys(settings, env), *programs_missing]
