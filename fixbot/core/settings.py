"""Settings: every setting of `fixbot run` and `fixbot action`, each declared once.

A `Settings` field is the single declaration of a setting: its type, default, bounds and help
text, plus a `Surface` in its `Annotated` metadata saying how it appears on every surface. Every
surface is derived from it (see `spec`): the CLI flag `--<name>` (with aliases such as `--check`),
the Action input `<name>` (`INPUT_<NAME>`), the variables `FIXBOT_<NAME>` and the
`[tool.fixbot]` / `.fixbot.toml` keys (`name` or `name_with_underscores`); `fixbot.core.surfaces`
derives them. `action.yml`, the
README's settings table and runner/action.yml are generated from these declarations by
`scripts/gen_settings.py`, and a test fails when they drift. Layering lives in `fixbot.core.config`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from fixbot.core.errors import ConfigError
from fixbot.core.secrets import DEFAULT_STATE_DIR
from fixbot.core.values import (
    AUTO_PROTOCOL,
    CommandPermission,
    OnEscalation,
    OnSuccess,
    ProtocolName,
    ThreadAuthors,
    check_package_names,
    check_state_dir,
)

__all__ = ["AUTO_PROTOCOL", "ConfigError", "OnEscalation", "OnSuccess", "Settings", "Surface"]


@dataclass(frozen=True)
class Surface:
    """How a setting appears to users; put in a `Settings` field's `Annotated` metadata.

    `name` is the one public name (the Action input and the flag `--<name>`; default: the field
    name with hyphens); `aliases` are further accepted names (a short flag such as `check`).
    `cli` / `action`: whether `fixbot run` has a flag and action.yml an input for it.
    `trust`: in the Action only the step's inputs may set it, never a file from the pull request
    nor a `FIXBOT_*` variable (an earlier step may have written it into `GITHUB_ENV`; see
    docs/SECURITY.md, "The repository's files are not the workflow"). Settings that decide what a
    run may reach (models, `api-base`), spend (budgets) or whether a failure is reported
    (`review`, `on-escalation`, `fail-on-escalation`) carry trust. `secret`: its value is masked
    and redacted.
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

    Units: `timeout`, `setup_timeout`, `fix_command_timeout`, `backoff`, `max_duration` and
    `request_timeout` are seconds; `max_cost_usd` is USD; `max_tokens_per_run` counts prompt plus
    completion tokens over the whole run, `max_output_tokens` completion tokens per request.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # -- the check and the loop ------------------------------------------------------------------
    check: Annotated[
        str, _s(metavar="CMD", example="pytest -q", name="check-command", aliases=("check",))
    ] = Field(
        "",
        description="The check command, run with the shell. Empty: inferred from the "
        "repository's CI workflow (its test job's test step; the steps before it are the "
        "set-up), else its task files, else its ecosystem's default, and shown with where it "
        "came from before anything runs.",
    )
    setup: Annotated[
        str | None,
        _s(metavar="CMD", example="pip install -e '.[test]'", name="setup-command"),
    ] = Field(
        None,
        description="Shell command that prepares the environment, run once before the first "
        "check (and again when a fix changes a dependency manifest).",
    )
    system_packages: Annotated[
        list[str], _s(metavar="PACKAGE", example="nodejs npm", cli=False, trust=True)
    ] = Field(
        default_factory=list,
        description="Debian packages fixbot installs as root (`apt-get install "
        "--no-install-recommends`) before any of the pull request's code runs, separated by "
        "spaces or lines; the container action only (the set-up command runs unprivileged).",
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
    infer_fixes: Annotated[bool, _s()] = Field(
        True,
        description="With no check and no fix command given, the formatters and autofixers "
        "the project declares (ruff, black, isort, prettier, eslint, gofmt, cargo fmt, in its "
        "configuration, pre-commit hooks or CI) are the fix commands; shown before the run.",
    )
    fix_command_timeout: Annotated[float, _s(metavar="S")] = Field(
        300, gt=0, allow_inf_nan=False, description="Seconds allowed for each fix command."
    )
    run_as: Annotated[str, _s(metavar="USER", trust=True)] = Field(
        "auto",
        description="The user the check, set-up and fix commands run as: `auto` (in fixbot's "
        "container image, where fixbot is root: an unprivileged user, `fixbot` else `nobody`; "
        "in the runner mode with passwordless sudo, where fixbot becomes root: the user "
        "`fixbot-commands`, created once; without it, and in the CLI as root too: fixbot's own "
        "user, and the runner mode then runs only collaborators' code), `self`, or a user name "
        "(fixbot must be root). Each command runs in a PID namespace of its own where the "
        "kernel allows.",
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
    max_duration: Annotated[float | None, _s(metavar="S", trust=True)] = Field(
        1200,
        gt=0,
        allow_inf_nan=False,
        description="Wall-time budget for the run, seconds; no check, set-up or fix command runs "
        "past it, whatever its own timeout.",
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
    https_proxy: Annotated[
        str | None,
        _s(metavar="URL", example="http://proxy.internal:3128", trust=True, secret=True, cli=False),
    ] = Field(
        None,
        description="Proxy for fixbot's own git, model and GitHub requests (a self-hosted "
        "runner's), named in the log; read as fixbot starts, from the input or "
        "FIXBOT_HTTPS_PROXY only: an HTTPS_PROXY in the environment never reaches fixbot's own "
        "process (the project's commands still get it).",
    )
    no_proxy: Annotated[str | None, _s(metavar="HOSTS", trust=True, cli=False)] = Field(
        None,
        description="Hosts fixbot reaches without the https-proxy (NO_PROXY's form), read as "
        "fixbot starts like https-proxy.",
    )
    ca_bundle: Annotated[
        str | None, _s(metavar="FILE", example="/etc/ssl/certs/corp.pem", trust=True, cli=False)
    ] = Field(
        None,
        description="Certificate authorities (a PEM file) fixbot's own git, model and GitHub "
        "requests trust instead of the system's, named in the log; read as fixbot starts like "
        "https-proxy: an SSL_CERT_FILE or GIT_SSL_CAINFO in the environment is ignored.",
    )
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
        "about 5,400 (README, What a run costs).",
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
    edit_protocol: Annotated[ProtocolName, _s(metavar="auto|NAME")] = Field(
        AUTO_PROTOCOL,
        description="How the model edits: an edit protocol's name (`tools`: function calling; "
        "`text`: SEARCH/REPLACE blocks), or `auto`: `tools` where litellm's capability data "
        "says the model calls functions, else `text`.",
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
    max_output_tokens: Annotated[int | None, _s(metavar="N", trust=True)] = Field(
        None,
        gt=0,
        description="Output tokens allowed per model request (sent as `max_tokens`); default: "
        "what an edit in the edit protocol needs (4096), within the model's limit, lowered "
        "for a model measured slow so that a reply fits --request-timeout.",
    )
    request_timeout: Annotated[float, _s(metavar="S", trust=True)] = Field(
        180,
        gt=0,
        allow_inf_nan=False,
        description="Seconds allowed for one model request, from sending it to the whole reply; "
        "then it is abandoned, and retried unless the model was writing too slowly for its cap "
        "(a retry then gets a cap its speed fits, or none).",
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
    review: Annotated[bool, _s(trust=True)] = Field(
        True, description="Self-review the diff once the check is green."
    )
    max_review_rounds: Annotated[int, _s(metavar="N")] = Field(
        2, ge=0, le=5, description="Fix rounds for blocker/major self-review findings."
    )
    # -- the run ----------------------------------------------------------------------------------
    state_dir: Annotated[str, _s(metavar="DIR", trust=True)] = Field(
        DEFAULT_STATE_DIR,
        description="State folder for logs and the report, relative to the repository.",
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
        description="What to do with a verified fix: `push`, `pull-request`, `suggest` (one "
        "pull-request review with suggestion blocks, nothing pushed) or `none`; `auto` pushes on "
        "a same-repository pull request and opens a pull request otherwise.",
    )
    on_escalation: Annotated[OnEscalation, _s(metavar="MODE", cli=False, trust=True)] = Field(
        OnEscalation.PULL_REQUEST,
        description="What to do when fixbot gives up: a draft `pull-request` with the best "
        "attempt, a `comment` (or issue), or `none`.",
    )
    allow_forks: Annotated[bool, _s(cli=False, trust=True)] = Field(
        False,
        description="Run on fork pull requests; the fix is only offered as a patch. Only on "
        "`pull_request` and review events, which GitHub runs without secrets: never on "
        "`/fixbot retry` or `workflow_run`.",
    )
    fail_on_escalation: Annotated[bool, _s(cli=False, trust=True)] = Field(
        True, description="Fail the step when fixbot gives up (a refusal never fails it)."
    )
    max_threads: Annotated[int, _s(metavar="N", cli=False)] = Field(
        20, ge=0, le=100, description="Open review threads given to the model; 0 turns them off."
    )
    thread_authors: Annotated[ThreadAuthors, _s(metavar="collaborators|any", trust=True)] = Field(
        ThreadAuthors.COLLABORATORS,
        description="Whose review threads reach the model: `collaborators` (write, maintain or "
        "admin permission) or `any` (for private repositories).",
    )
    thread_bots: Annotated[
        list[str], _s(metavar="LOGIN", example="coderabbitai[bot]", trust=True)
    ] = Field(
        default_factory=list,
        description="Bot logins whose review threads reach the model, one per line.",
    )
    command_permission: Annotated[CommandPermission, _s(metavar="LEVEL", cli=False, trust=True)] = (
        Field(
            CommandPermission.WRITE,
            description="The permission a commenter needs for `/fixbot` commands: `triage`, "
            "`write`, `maintain` or `admin`.",
        )
    )
    max_runs_per_day: Annotated[int, _s(metavar="N", cli=False, trust=True)] = Field(
        10, ge=1, le=1000, description="fixbot runs per pull request in 24 hours."
    )
    allow_bots: Annotated[bool, _s(cli=False, trust=True)] = Field(
        False, description="Fix pull requests opened by bots (any `[bot]` login but fixbot's own)."
    )
    skip_label: Annotated[str, _s(metavar="LABEL", cli=False, trust=True)] = Field(
        "no-fixbot", min_length=1, description="fixbot leaves pull requests with this label alone."
    )
    require_label: Annotated[str | None, _s(metavar="LABEL", cli=False, trust=True)] = Field(
        None, description="When set, fixbot only acts on pull requests with this label."
    )
    allow_drafts: Annotated[bool, _s(cli=False, trust=True)] = Field(
        False, description="Fix draft pull requests too (so does the `require-label` label)."
    )
    dispatch_workflows: Annotated[
        list[str], _s(metavar="WORKFLOW", example="ci.yml", cli=False, trust=True)
    ] = Field(
        default_factory=list,
        description="Workflows (file names such as `ci.yml`, or ids) dispatched on the branch "
        "after fixbot pushes with the job's `GITHUB_TOKEN`, whose pushes start no workflow; "
        "one per line. Empty: on `workflow_run`, the workflow whose failure started it. `none` "
        "dispatches nothing (use it with a GitHub App token, whose pushes start workflows).",
    )
    max_fixes_per_pr: Annotated[int, _s(metavar="N", cli=False, trust=True)] = Field(
        3, ge=1, le=100, description="fixbot's fix commits on one pull request before it stops."
    )

    @field_validator("check")
    @classmethod
    def _check_not_blank(cls, value: str) -> str:
        if value and not value.strip():
            raise ValueError(
                "the check command is blank: pass --check 'pytest -q', or leave it unset for "
                "fixbot to infer it"
            )
        return value

    @field_validator("system_packages")
    @classmethod
    def _debian_names(cls, value: list[str]) -> list[str]:
        return check_package_names(value)

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
