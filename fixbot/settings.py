"""Settings: every setting of `fixbot run` and `fixbot action`, each declared once.

A `Settings` field is the single declaration of a setting: its type, default, bounds and help
text, plus a `Surface` in its `Annotated` metadata saying how it appears on every surface. Every
surface is derived from it (see `spec`): the CLI flag `--<name>` (with aliases such as `--check`),
the Action input `<name>` (`INPUT_<NAME>`), the variables `FIXBOT_<NAME>` and the
`[tool.fixbot]` / `.fixbot.toml` keys (`name` or `name_with_underscores`). `action.yml`, the
README's settings table and `docs/action.md` are generated from these declarations by
`scripts/gen_settings.py`, and a test fails when they drift. Layering lives in `fixbot.config`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.fields import FieldInfo

from fixbot.errors import ConfigError

__all__ = ["ConfigError", "EditProtocol", "OnEscalation", "OnSuccess", "Settings", "Spec", "spec"]


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


@dataclass(frozen=True)
class Surface:
    """How a setting appears to users; put in a `Settings` field's `Annotated` metadata.

    `name` is the one public name (the Action input and the flag `--<name>`; default: the field
    name with hyphens); `aliases` are further accepted names (a short flag such as `check`).
    `cli` / `action`: whether `fixbot run` has a flag and action.yml an input for it.
    `trust`: in the Action only the workflow (inputs, `FIXBOT_*`) may set it, never a file from
    the pull request (see DESIGN.md, "Trust"). `secret`: its value is masked and redacted.
    `action_default`: the default in the Action when it differs from the CLI's.
    `off_flag`: an extra flag that sets a boolean to false (`--fresh` for `resume`).
    """

    metavar: str | None = None
    example: str | None = None
    name: str | None = None
    aliases: tuple[str, ...] = ()
    cli: bool = True
    action: bool = True
    trust: bool = False
    secret: bool = False
    action_default: Any = None
    off_flag: str | None = None


def _s(**kwargs: Any) -> Surface:
    return Surface(**kwargs)


class Settings(BaseModel):
    """Every setting of `fixbot run` and `fixbot action` (see the module docstring).

    Units: `timeout`, `setup_timeout`, `fix_command_timeout`, `backoff` and `max_duration` are
    seconds; `max_cost_usd` is USD; `max_tokens_per_run` counts prompt plus completion tokens
    over the whole run.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # -- the check and the loop ------------------------------------------------------------------
    check: Annotated[
        str, _s(metavar="CMD", example="pytest -q", name="check-command", aliases=("check",))
    ] = Field(min_length=1, description="The check command, run with the shell.")
    setup: Annotated[
        str | None,
        _s(metavar="CMD", example="pip install -e '.[test]'", name="setup-command"),
    ] = Field(
        None,
        description="Shell command that prepares the environment, run once before the first "
        "check (and again when a fix changes a dependency manifest).",
    )
    setup_timeout: Annotated[float, _s(metavar="S")] = Field(
        900, gt=0, allow_inf_nan=False, description="Seconds allowed for the set-up command."
    )
    fix_commands: Annotated[
        list[str], _s(metavar="CMD", example="ruff check --fix .", aliases=("fix-command",))
    ] = Field(
        default_factory=list,
        description="Deterministic fix commands, run before the model, one per line.",
    )
    fix_command_timeout: Annotated[float, _s(metavar="S")] = Field(
        300, gt=0, allow_inf_nan=False, description="Seconds allowed for each fix command."
    )
    run_as: Annotated[str, _s(metavar="USER", trust=True)] = Field(
        "auto",
        description="The user the check, set-up and fix commands run as: `auto` (an unprivileged "
        "user, `fixbot` else `nobody`, when fixbot runs as root; fixbot's own user otherwise), "
        "`self`, or a user name (fixbot must be root).",
    )
    max_log_bytes: Annotated[int, _s(metavar="BYTES", example="1048576")] = Field(
        16 * 1024 * 1024,
        ge=1,
        le=1024**3,
        description="Output of one command kept in its log: the first and last halves, with the "
        "count of the bytes dropped between them.",
    )
    desired: Annotated[str | None, _s(metavar="TEXT")] = Field(
        None, description="What 'fixed' means, in words, for the model."
    )
    hint: Annotated[str | None, _s(metavar="TEXT")] = Field(
        None, description="A hint for the model (untrusted text, like a pull request comment)."
    )
    inputs_file: Annotated[str | None, _s(metavar="FILE", aliases=("inputs",), trust=True)] = Field(
        None, description="File fed to the check's stdin (else stdin is closed)."
    )
    max_attempts: Annotated[int, _s(metavar="N", trust=True)] = Field(
        5, ge=1, le=50, description="Fix attempts before giving up."
    )
    timeout: Annotated[float, _s(metavar="S")] = Field(
        600, gt=0, allow_inf_nan=False, description="Seconds allowed for one check run."
    )
    backoff: Annotated[float, _s(metavar="S")] = Field(
        1.0,
        ge=0,
        le=60,
        description="First wait before re-running a transient failure, seconds (doubles, "
        "with jitter, up to 60 s).",
    )
    circuit_breaker: Annotated[int, _s(metavar="N")] = Field(
        3, ge=2, le=20, description="The same failure this many times in a row opens the breaker."
    )
    max_transient_retries: Annotated[int, _s(metavar="N")] = Field(
        3, ge=0, le=10, description="Re-runs of a transient failure."
    )
    max_duration: Annotated[float | None, _s(metavar="S", trust=True, action_default=1200)] = Field(
        None, gt=0, allow_inf_nan=False, description="Wall-time budget for the run, seconds."
    )
    max_diff_lines: Annotated[int, _s(metavar="N", trust=True)] = Field(
        500, ge=1, description="Diff size since the start that opens the breaker, in lines."
    )
    # -- the model --------------------------------------------------------------------------------
    model: Annotated[str | None, _s(metavar="MODEL", example="openai/gpt-4o", trust=True)] = Field(
        None, description="litellm model string; without it only the fix commands run."
    )
    api_base: Annotated[
        str | None,
        _s(metavar="URL", example="http://localhost:8000/v1", trust=True, secret=True),
    ] = Field(None, description="Base URL of an OpenAI-compatible server.")
    fallback_models: Annotated[
        list[str], _s(metavar="MODEL", aliases=("fallback-model",), trust=True)
    ] = Field(
        default_factory=list,
        description="Models tried in order when the model is unavailable, one per line.",
    )
    escalation_model: Annotated[str | None, _s(metavar="MODEL", trust=True)] = Field(
        None, description="A stronger model used from fix attempt 2 on."
    )
    max_tokens_per_run: Annotated[int | None, _s(metavar="N", trust=True)] = Field(
        500_000,
        gt=0,
        description="Token budget for the run (prompt plus completion); the demo's run takes "
        "about 5,400 (bench/RESULTS-cost.md).",
    )
    max_cost_usd: Annotated[float | None, _s(metavar="USD", trust=True)] = Field(
        2.0,
        gt=0,
        allow_inf_nan=False,
        description="Model cost budget for the run, USD (the demo's run costs about $0.02 with "
        "gpt-4o); where a model's price is unknown only the token budget applies.",
    )
    temperature: Annotated[float, _s(metavar="T")] = Field(
        0.0, ge=0, le=2, allow_inf_nan=False, description="Model sampling temperature."
    )
    edit_protocol: Annotated[EditProtocol, _s(metavar="auto|tools|text")] = Field(
        EditProtocol.AUTO,
        description="How the model edits: `tools` (function calling), `text` (SEARCH/REPLACE "
        "blocks) or `auto` (litellm's capability data).",
    )
    search_provider: Annotated[str | None, _s(metavar="NAME", example="tavily", trust=True)] = (
        Field(
            None,
            description="litellm web search provider for attempts 2+ (key: e.g. TAVILY_API_KEY).",
        )
    )
    max_tool_calls: Annotated[int, _s(metavar="N", trust=True)] = Field(
        30, ge=1, le=200, description="Model tool calls per attempt."
    )
    protected_paths: Annotated[
        list[str],
        _s(metavar="GLOB", example="migrations/**", aliases=("protected-path",), trust=True),
    ] = Field(
        default_factory=lambda: [".github/**"],
        description="Glob patterns the model may never edit, one per line.",
    )
    allow_test_edits: Annotated[bool, _s(trust=True)] = Field(
        False, description="Allow the model to delete, skip or weaken tests."
    )
    review: Annotated[bool, _s()] = Field(
        True, description="Self-review the diff once the check is green."
    )
    max_review_rounds: Annotated[int, _s(metavar="N")] = Field(
        2, ge=0, le=5, description="Fix rounds for blocker/major self-review findings."
    )
    # -- the run ----------------------------------------------------------------------------------
    state_dir: Annotated[str, _s(metavar="DIR", trust=True)] = Field(
        ".fixbot", description="State folder for logs and the report, relative to the repository."
    )
    resume: Annotated[bool, _s(action=False, off_flag="fresh")] = Field(
        True, description="Continue an unfinished run from its state file (`--fresh` starts over)."
    )
    commit: Annotated[bool, _s(action=False)] = Field(
        True, description="Commit each verified fix as 'fixbot: <summary>'."
    )
    allow_dirty: Annotated[bool, _s(action=False)] = Field(
        False, description="Start on a working tree with uncommitted changes."
    )
    discard: Annotated[bool, _s(action=False)] = Field(
        False,
        description="Remove the uncommitted changes fixbot's last run left (only when the "
        "working tree is exactly what that run left) and start again.",
    )
    # -- the Action -------------------------------------------------------------------------------
    on_success: Annotated[OnSuccess, _s(metavar="MODE", cli=False)] = Field(
        OnSuccess.AUTO,
        description="What to do with a verified fix: `push`, `pull-request` or `none`; `auto` "
        "pushes on a same-repository pull request and opens a pull request otherwise.",
    )
    on_escalation: Annotated[OnEscalation, _s(metavar="MODE", cli=False)] = Field(
        OnEscalation.PULL_REQUEST,
        description="What to do when fixbot gives up: a draft `pull-request` with the best "
        "attempt, a `comment` (or issue), or `none`.",
    )
    allow_forks: Annotated[bool, _s(cli=False, trust=True)] = Field(
        False, description="Run on fork pull requests; the fix is only offered as a patch."
    )
    fail_on_escalation: Annotated[bool, _s(cli=False)] = Field(
        True, description="Fail the step when fixbot gives up (a refusal never fails it)."
    )
    max_threads: Annotated[int, _s(metavar="N", cli=False)] = Field(
        20, ge=0, le=100, description="Open review threads given to the model; 0 turns them off."
    )

    @field_validator("check")
    @classmethod
    def _check_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the check command is empty: pass --check 'pytest -q'")
        return value

    @field_validator("state_dir")
    @classmethod
    def _state_dir_inside(cls, value: str) -> str:
        return check_state_dir(value)

    def digest(self) -> str:
        """Hex SHA-256 of the settings that change what a run does (resume compares it)."""
        keep = self.model_dump(
            mode="json",
            exclude={"resume", "allow_dirty", "discard", "state_dir", "max_attempts", "hint"},
        )
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()


UNSAFE_STATE_DIR = re.compile(r"[\x00-\x1f*?\[\]!\\]")


def check_state_dir(value: str) -> str:
    """`value` when it is a safe state folder, else ValueError saying what to use.

    Safe: a relative path inside the repository, without `..`, control characters (a newline
    would write a second pattern into `.git/info/exclude`), glob characters or backslashes,
    and not `.git` itself.
    """
    text = value.strip().rstrip("/")
    pure = PurePosixPath(text)
    if (
        not text
        or pure.is_absolute()
        or ".." in pure.parts
        or UNSAFE_STATE_DIR.search(text)
        or pure.parts[0].lower() == ".git"
    ):
        raise ValueError(
            "the state folder must be a relative path inside the repository, without '..', "
            "'.git', control or glob characters (e.g. .fixbot)"
        )
    return pure.as_posix()


@dataclass(frozen=True)
class Spec:
    """Everything a surface needs to know of one setting, derived from its declaration."""

    field: str
    name: str  # the public name: Action input, `--<name>`
    names: tuple[str, ...]  # every accepted name, the public one first
    help: str
    default: Any
    required: bool
    is_list: bool
    is_bool: bool
    surface: Surface

    @property
    def flags(self) -> list[str]:
        """The CLI flags: `--<name>` then one per alias."""
        return [f"--{n}" for n in self.names]

    @property
    def variables(self) -> list[str]:
        """The `FIXBOT_*` environment variables that set it."""
        return [f"FIXBOT_{n.replace('-', '_').upper()}" for n in self.names]

    @property
    def input_variable(self) -> str:
        """The variable the runner sets for its Action input (upper case, hyphens kept)."""
        return "INPUT_" + self.name.upper()

    @property
    def action_default(self) -> Any:
        """The default in the Action."""
        override = self.surface.action_default
        return self.default if override is None else override


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return None if info.is_required() else info.default


def _unwrap(annotation: Any) -> Any:
    """`X` for `X | None`, else the annotation itself."""
    if get_origin(annotation) not in (Union, UnionType):
        return annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    return args[0] if len(args) == 1 else annotation


def _spec(field: str, info: FieldInfo) -> Spec:
    surface = next((m for m in info.metadata if isinstance(m, Surface)), Surface())
    name = surface.name or field.replace("_", "-")
    names = tuple(dict.fromkeys([name, *surface.aliases, field.replace("_", "-")]))
    inner = _unwrap(info.annotation)
    return Spec(
        field=field,
        name=name,
        names=names,
        help=info.description or "",
        default=_default(info),
        required=info.is_required(),
        is_list=get_origin(inner) is list,
        is_bool=inner is bool,
        surface=surface,
    )


def specs() -> list[Spec]:
    """The `Spec` of every setting, in declaration order."""
    return [_spec(field, info) for field, info in Settings.model_fields.items()]


def spec(field: str) -> Spec:
    """The `Spec` of one setting by field name; KeyError for an unknown one."""
    return _spec(field, Settings.model_fields[field])


def by_name() -> dict[str, Spec]:
    """Every accepted name (hyphens or underscores, any case) -> its Spec."""
    found: dict[str, Spec] = {}
    for item in specs():
        for name in item.names:
            found[name] = item
            found[name.replace("-", "_")] = item
    return found


def shown_default(value: Any) -> str:
    """A default as documentation writes it: `5`, `true`, `.github/workflows/**`, or ''."""
    if value is None or value == []:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) else str(value)
    return str(value)
