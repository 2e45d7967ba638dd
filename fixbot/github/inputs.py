"""The Action's inputs, read from `INPUT_<NAME>` variables (uppercase, hyphens kept).

The runner sets every input declared in action.yml, empty when the workflow gives none; an
empty input means "not given", so `[tool.fixbot]`, `.fixbot.toml` and `FIXBOT_*` still apply.
Source: https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
("the runner sets INPUT_<VARIABLE_NAME>, converting the name to upper case").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from fixbot.settings import LIST_FIELDS, split_list

SETTINGS_INPUTS: dict[str, str] = {
    "check-command": "check",
    "model": "model",
    "api-base": "api_base",
    "fallback-models": "fallback_models",
    "desired": "desired",
    "max-attempts": "max_attempts",
    "timeout": "timeout",
    "backoff": "backoff",
    "circuit-breaker": "circuit_breaker",
    "fix-commands": "fix_commands",
    "review": "review",
    "on-success": "on_success",
    "on-escalation": "on_escalation",
    "protected-paths": "protected_paths",
    "allow-test-edits": "allow_test_edits",
    "allow-forks": "allow_forks",
    "max-cost-usd": "max_cost_usd",
    "fail-on-escalation": "fail_on_escalation",
    "max-threads": "max_threads",
}
OTHER_INPUTS = ("github-token", "working-directory")
TRUE = ("true", "yes", "1", "on")


def variable(name: str) -> str:
    """The environment variable of input `name`: `INPUT_` + name in upper case, hyphens kept."""
    return "INPUT_" + name.upper()


class Inputs(BaseModel):
    """The inputs: `flags` (Settings field -> raw value, only those given), `names` (field ->
    variable name, for error messages), the token and the working directory."""

    flags: dict[str, Any]
    names: dict[str, str]
    token: str
    working_directory: str
    allow_forks: bool


def _value(field: str, raw: str) -> Any:
    return split_list(raw) if field in LIST_FIELDS else raw.strip()


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """Read every input from `env`; values are validated later by `load_settings`."""
    flags: dict[str, Any] = {}
    names: dict[str, str] = {}
    for name, field in SETTINGS_INPUTS.items():
        raw = env.get(variable(name), "")
        if raw.strip():
            flags[field] = _value(field, raw)
            names[field] = f"input `{name}` ({variable(name)})"
    return Inputs(
        flags=flags,
        names=names,
        # `uses: docker://...` skips action.yml's defaults: fall back to a GITHUB_TOKEN in `env:`.
        token=(env.get(variable("github-token"), "") or env.get("GITHUB_TOKEN", "")).strip(),
        working_directory=env.get(variable("working-directory"), "").strip() or ".",
        allow_forks=env.get(variable("allow-forks"), "").strip().lower() in TRUE,
    )
