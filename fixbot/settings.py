"""Settings: one validated model, layered from defaults, files, environment and flags.

Precedence (lowest first): defaults < `[tool.fixbot]` in pyproject.toml < `.fixbot.toml`
< environment `FIXBOT_<NAME>` < command-line flags / Action inputs.

Keys may be written `max-attempts` or `max_attempts` in TOML. Every problem from every layer is
collected and raised together as one `ConfigError`, each naming where the bad value came from.

The layering is done here rather than by pydantic-settings' sources because the file locations
depend on `-C DIR` and every error must name its source (flag, variable or file key).
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class ConfigError(Exception):
    """Bad configuration or usage; `problems` lists every problem found, each with its fix."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class EditProtocol(StrEnum):
    """How the model returns edits: function calling, SEARCH/REPLACE text, or auto-detect."""

    AUTO = "auto"
    TOOLS = "tools"
    TEXT = "text"


class OnSuccess(StrEnum):
    """What the Action does with a verified fix."""

    AUTO = "auto"  # push on a same-repository PR branch, pull-request otherwise
    PUSH = "push"
    PULL_REQUEST = "pull-request"
    NONE = "none"


class OnEscalation(StrEnum):
    """What the Action does when fixbot gives up."""

    PULL_REQUEST = "pull-request"
    COMMENT = "comment"
    NONE = "none"


LIST_FIELDS = ("fix_commands", "fallback_models", "protected_paths")


class Settings(BaseModel):
    """Every setting of `fixbot run` and `fixbot action`.

    Units: `timeout`, `backoff` and `max_duration` are seconds; `max_cost_usd` is USD;
    `max_tokens_per_run` counts prompt plus completion tokens over the whole run.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # the check and the loop
    check: str = Field(min_length=1, description="The check command, run with the shell.")
    desired: str | None = Field(None, description="What 'fixed' means, in words, for the model.")
    max_attempts: int = Field(5, ge=1, le=50, description="Fix attempts before giving up.")
    timeout: float = Field(600, gt=0, description="Seconds allowed for one check run.")
    backoff: float = Field(1.0, ge=0, le=60, description="First transient backoff, seconds.")
    circuit_breaker: int = Field(
        3, ge=2, le=20, description="Same failure this many times in a row opens the breaker."
    )
    max_transient_retries: int = Field(
        3, ge=0, le=10, description="Re-runs of a transient failure."
    )
    max_duration: float | None = Field(None, gt=0, description="Wall-time budget, seconds.")
    fix_commands: list[str] = Field(
        default_factory=list, description="Deterministic fix commands, run before the model."
    )
    # the model
    model: str | None = Field(None, description="litellm model string, e.g. openai/gpt-4o.")
    api_base: str | None = Field(None, description="Base URL of an OpenAI-compatible server.")
    fallback_models: list[str] = Field(
        default_factory=list, description="Models tried in order when the model is unavailable."
    )
    escalation_model: str | None = Field(None, description="Model used from attempt 2 on.")
    max_tokens_per_run: int | None = Field(None, gt=0, description="Token budget for the run.")
    max_cost_usd: float | None = Field(None, gt=0, description="Cost budget for the run, USD.")
    temperature: float = Field(0.0, ge=0, le=2, description="Model sampling temperature.")
    edit_protocol: EditProtocol = Field(EditProtocol.AUTO, description="auto, tools or text.")
    max_tool_calls: int = Field(30, ge=1, le=200, description="Tool calls per attempt.")
    max_diff_lines: int = Field(
        500, ge=1, description="Diff size since start that opens the breaker."
    )
    protected_paths: list[str] = Field(
        default_factory=lambda: [".github/workflows/**"],
        description="Glob patterns the model may never edit.",
    )
    allow_test_edits: bool = Field(False, description="Allow deleting or skipping tests.")
    review: bool = Field(True, description="Self-review the diff once the check is green.")
    max_review_rounds: int = Field(2, ge=0, le=5, description="Review fix rounds.")
    # the run
    state_dir: str = Field(".fixbot", description="State folder, relative to the repository.")
    resume: bool = Field(True, description="Continue an unfinished run from its state file.")
    commit: bool = Field(True, description="Commit each verified fix as 'fixbot: <summary>'.")
    allow_dirty: bool = Field(False, description="Start on a working tree with changes.")
    # the Action
    on_success: OnSuccess = Field(OnSuccess.AUTO, description="push, pull-request or none.")
    on_escalation: OnEscalation = Field(
        OnEscalation.PULL_REQUEST, description="pull-request, comment or none."
    )
    allow_forks: bool = Field(False, description="Run on fork pull requests (patch only).")
    fail_on_escalation: bool = Field(True, description="Fail the step when fixbot gives up.")
    max_threads: int = Field(
        20, ge=0, le=100, description="Open review threads given to the model (0: none)."
    )

    @field_validator("check")
    @classmethod
    def _check_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the check command is empty: pass --check 'pytest -q'")
        return value

    def digest(self) -> str:
        """Hex SHA-256 of the settings that change what a run does (resume compares it)."""
        keep = self.model_dump(
            mode="json", exclude={"resume", "allow_dirty", "state_dir", "max_attempts"}
        )
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()


FIELDS = tuple(Settings.model_fields)


def _key(name: str) -> str:
    return name.strip().replace("-", "_").lower()


def split_list(value: str) -> list[str]:
    """A list setting from text: a JSON list of strings, or else one item per non-blank line.

    Text that merely starts with `[` (a shell test such as `[ -f x ] && ...`) is one item a line.
    """
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            return [str(item) for item in parsed]
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_file_layer(path: Path, table: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
    """Read the `table` of a TOML file; return (values by field name, problems)."""
    if not path.is_file():
        return {}, []
    try:
        data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"{path}: not valid TOML ({exc}); fix the syntax"]
    for part in table:
        data = data.get(part, {}) if isinstance(data, dict) else {}
    where = f"{path.name} [{'.'.join(table)}]" if table else path.name
    values: dict[str, Any] = {}
    problems: list[str] = []
    for raw_key, value in data.items():
        key = _key(raw_key)
        if key not in FIELDS:
            problems.append(f"{where}: unknown key '{raw_key}'; known keys: {', '.join(FIELDS)}")
        else:
            values[key] = (value, f"{where} {raw_key}")
    return values, problems


def read_env_layer(env: Mapping[str, str], prefix: str = "FIXBOT_") -> dict[str, Any]:
    """Read `FIXBOT_<NAME>` variables; list values are a JSON list or one item per line."""
    values: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(prefix) or raw == "":
            continue
        key = _key(name[len(prefix) :])
        if key not in FIELDS:
            continue  # FIXBOT_* variables of other tools or later versions are not ours to judge
        values[key] = (split_list(raw) if key in LIST_FIELDS else raw, name)
    return values


def load_settings(
    repo: Path,
    flags: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    flag_names: Mapping[str, str] | None = None,
) -> Settings:
    """Build `Settings` for the repository at `repo`.

    `flags` maps field names to values given on the command line (or as Action inputs); None
    values are skipped. `flag_names` maps field names to how the user wrote them (`--max-attempts`,
    `INPUT_MAX-ATTEMPTS`) for error messages. Raises `ConfigError` listing every problem.
    """
    env = os.environ if env is None else env
    merged: dict[str, tuple[Any, str]] = {}
    problems: list[str] = []
    for layer, found in (
        read_file_layer(repo / "pyproject.toml", ("tool", "fixbot")),
        read_file_layer(repo / ".fixbot.toml", ()),
    ):
        merged.update(layer)
        problems.extend(found)
    merged.update(read_env_layer(env))
    names = flag_names or {}
    for key, value in flags.items():
        if value is not None:
            merged[key] = (value, names.get(key, "--" + key.replace("_", "-")))
    if "check" not in merged:
        problems.append(
            "no check command: pass --check 'pytest -q', set FIXBOT_CHECK, "
            "or add check = '...' under [tool.fixbot] in pyproject.toml"
        )
    try:
        settings = Settings.model_validate({k: v for k, (v, _) in merged.items()})
    except ValidationError as exc:
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else "?"
            source = merged.get(field, (None, field))[1]
            if error["type"] == "missing":
                continue  # reported above with the fix
            problems.append(f"{source}: {error['msg']} (got {error.get('input')!r})")
        raise ConfigError(problems) from exc
    if problems:
        raise ConfigError(problems)
    return settings
