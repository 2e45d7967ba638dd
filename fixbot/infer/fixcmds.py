"""Fix commands the project declares: a formatter or autofixing linter configured in its
pyproject.toml, its pre-commit configuration, its package.json or its CI workflow, and the
language's own formatter (gofmt for Go; cargo fmt where rustfmt is configured or run in CI).

Each is the tool's fixing form (`ruff check --fix .`, `black .`, `npx prettier --write .`,
`npx eslint --fix .`, `gofmt -w .`, `cargo fmt`); each says where it was declared.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable

import yaml

from fixbot.infer.plan import Inferred, Origin

Read = Callable[[str], "str | None"]

# tool -> its fixing command
COMMANDS = {
    "ruff": "ruff check --fix .",
    "ruff-format": "ruff format .",
    "black": "black .",
    "isort": "isort .",
    "prettier": "npx prettier --write .",
    "eslint": "npx eslint --fix .",
    "gofmt": "gofmt -w .",
    "rustfmt": "cargo fmt",
}
# pre-commit hook ids -> tool
HOOKS = {
    "ruff": "ruff",
    "ruff-check": "ruff",
    "ruff-format": "ruff-format",
    "black": "black",
    "isort": "isort",
    "prettier": "prettier",
    "eslint": "eslint",
    "go-fmt": "gofmt",
    "gofmt": "gofmt",
    "fmt": "rustfmt",
    "rustfmt": "rustfmt",
    "cargo-fmt": "rustfmt",
}
# a CI step that runs a tool in its checking form
IN_CI = {
    "ruff": re.compile(r"\bruff\s+check\b|\bruff\s+\.|\bruff\b(?!\s+format)"),
    "ruff-format": re.compile(r"\bruff\s+format\b"),
    "black": re.compile(r"\bblack\b"),
    "prettier": re.compile(r"\bprettier\b"),
    "eslint": re.compile(r"\beslint\b"),
    "gofmt": re.compile(r"\bgofmt\b"),
    "rustfmt": re.compile(r"\bcargo\s+fmt\b|\brustfmt\b"),
}


def _pyproject(read: Read) -> Iterable[tuple[str, str]]:
    text = read("pyproject.toml")
    try:
        tool = tomllib.loads(text).get("tool", {}) if text else {}
    except tomllib.TOMLDecodeError:
        return
    if "ruff" in tool:
        yield "ruff", "pyproject.toml `[tool.ruff]`"
        if isinstance(tool["ruff"], dict) and "format" in tool["ruff"]:
            yield "ruff-format", "pyproject.toml `[tool.ruff.format]`"
    for name in ("black", "isort"):
        if name in tool:
            yield name, f"pyproject.toml `[tool.{name}]`"


def _precommit(read: Read) -> Iterable[tuple[str, str]]:
    text = read(".pre-commit-config.yaml")
    try:
        data = yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        return
    for hook_id in _hook_ids(data):
        if hook_id in HOOKS:
            yield HOOKS[hook_id], f".pre-commit-config.yaml hook `{hook_id}`"


def _hook_ids(config: object) -> Iterable[str]:
    """The hook ids of a pre-commit configuration read as YAML ("" for a malformed hook)."""
    repos = config.get("repos") if isinstance(config, dict) else None
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            yield str(hook.get("id", "")) if isinstance(hook, dict) else ""


def _package(read: Read) -> Iterable[tuple[str, str]]:
    text = read("package.json")
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    for field in ("devDependencies", "dependencies"):
        deps = data.get(field)
        for name in ("prettier", "eslint"):
            if isinstance(deps, dict) and name in deps:
                yield name, f"package.json `{field}`"


def _languages(read: Read) -> Iterable[tuple[str, str]]:
    if read("go.mod") is not None:
        yield "gofmt", "go.mod (gofmt is Go's one format)"
    for name in ("rustfmt.toml", ".rustfmt.toml"):
        if read("Cargo.toml") is not None and read(name) is not None:
            yield "rustfmt", name


def _ci(steps: Iterable[tuple[str, Origin]]) -> Iterable[tuple[str, str]]:
    for body, origin in steps:
        for tool, pattern in IN_CI.items():
            if pattern.search(body):
                yield tool, f"{origin.file}, job `{origin.job}`, step `{origin.step}`"


def infer(read: Read, ci_steps: Iterable[tuple[str, Origin]] = ()) -> tuple[Inferred, ...]:
    """The declared fix commands, each once, in the order first declared. `ci_steps` are the
    `run:` scripts of the CI workflows with their origins."""
    seen: dict[str, Inferred] = {}
    for source in (
        _pyproject(read),
        _precommit(read),
        _package(read),
        _languages(read),
        _ci(ci_steps),
    ):
        for tool, where in source:
            if tool not in seen:
                seen[tool] = Inferred(COMMANDS[tool], Origin("", detail=f"declared in {where}"))
    return tuple(seen.values())
