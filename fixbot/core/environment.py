"""fixbot's own environment: built from an allowlist, never a trimmed copy of the one it got.

An earlier step of the job can write any variable into `GITHUB_ENV` (GitHub's docs, "Workflow
commands: Setting an environment variable"), and libraries act on variables nobody lists in
advance: libcrypto loads the library an `OPENSSL_CONF` names (config(5ssl)), git sends the
token through an `HTTPS_PROXY` it trusts by a `GIT_SSL_CAINFO`, litellm turns TLS checks off on
`SSL_VERIFY`, git signs fixbot's commit with `GIT_AUTHOR_NAME`. So fixbot's process that holds
the token and the model key (its re-execution, `fixbot.startup`) starts from `build(given,
command)`: only the names below, each for a reason.

- `BASICS`: `PATH` (finding git and the shell; as root it is cut to root-only folders by
  `fixbot.process.programs`), `HOME` (the CLI's state folder and its user's git identity; during
  a run git's HOME is pinned to fixbot's private folder), `XDG_STATE_HOME` and `XDG_CONFIG_HOME`
  (the XDG specification's state and configuration folders of the CLI's user), `LANG`,
  `LC_ALL`, `LC_CTYPE` (the encoding of file names and output; only a plain locale name, never
  a path: `LOCPATH` and `GCONV_PATH` stay out), `CI`, `TERM`, `NO_COLOR`, `COLUMNS` (how
  progress and help are shown).
- `GITHUB_VARIABLES`: the runner's variables `fixbot.core.github_env.GitHubEnv` reads.
- `SETTING_VARIABLES`: the `INPUT_<NAME>` and `FIXBOT_<NAME>` of every setting declared in
  `fixbot.core.settings`, and the Action's extra inputs (generated into this file by
  scripts/gen_settings.py; tests/core/test_settings_surfaces.py fails when it drifts).
- model keys: every name `fixbot.core.secrets.is_provider_key` or `is_search_key` accepts, and
  `PROVIDER_SETTINGS` (a region or API version some providers need, no URL: only a plain
  value, `PLAIN_SETTING`, since a provider's URL is built from it).
- in the CLI only (`run`, the user's own shell): the variables that name a model server
  (`fixbot.core.servers`); in the Action the server is the `api-base` input's.

Proxies and certificate authorities come only from the settings `https-proxy`, `no-proxy` and
`ca-bundle` (`NETWORK_SETTINGS`): `build` turns them into the conventional variables git,
httpx, requests and OpenSSL read, and `announce` names them in the log. A `HTTPS_PROXY` or
`SSL_CERT_FILE` of the environment never reaches fixbot's own process (`announce` says it was
ignored). The project's commands still get the environment fixbot was started with, without
its secrets (`given`, `fixbot.core.secrets.check_environment`): what they need is their business.

Only the standard library and `fixbot.core.secrets` (which imports no more) are imported here:
`fixbot.startup` calls `build` before anything that reads the environment is loaded (importing
`hashlib` or `secrets` already loads libcrypto, which reads `OPENSSL_CONF`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from fixbot.core.secrets import is_provider_key, is_search_key

BASICS = frozenset(
    {"PATH", "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "LC_CTYPE"}
    | {"CI", "TERM", "NO_COLOR", "COLUMNS"}
)
LOCALE_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
PLAIN_VALUE = re.compile(r"[A-Za-z0-9_.@+-]{0,64}\Z")  # a locale or terminal name, no path
# A region, project or API version: providers build their URL from it (litellm's Bedrock
# endpoint is `https://bedrock-runtime.{region}.amazonaws.com`), so no `/`, `#`, `@`, `:`, `?`.
PLAIN_SETTING = re.compile(r"[A-Za-z0-9_.-]{1,64}\Z")
PROVIDER_SETTINGS = frozenset(
    {"AWS_REGION", "AWS_REGION_NAME", "AWS_DEFAULT_REGION", "AZURE_API_VERSION"}
    | {"VERTEXAI_PROJECT", "VERTEXAI_LOCATION", "VERTEX_PROJECT", "VERTEX_LOCATION"}
)
# The variables passed only with a plain value, and the shape that value must have.
PLAIN_SHAPES = (
    (frozenset({*LOCALE_VARIABLES, "TERM", "COLUMNS"}), PLAIN_VALUE),
    (PROVIDER_SETTINGS, PLAIN_SETTING),
)
# The settings that become the proxy and CA variables of fixbot's own clients; the variables
# each one sets (git: http.proxy via HTTPS_PROXY and GIT_SSL_CAINFO, git-config(1); httpx and
# requests: the proxy variables, SSL_CERT_FILE and REQUESTS_CA_BUNDLE; OpenSSL: SSL_CERT_FILE).
NETWORK_SETTINGS = {
    "https-proxy": ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"),
    "no-proxy": ("NO_PROXY", "no_proxy"),
    "ca-bundle": ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO", "CURL_CA_BUNDLE"),
}
# What a proxy or CA variable of the environment would have done: named when ignored.
NETWORK_VARIABLES = frozenset(
    {name for names in NETWORK_SETTINGS.values() for name in names}
    | {"SSL_CERT_DIR", "ALL_PROXY", "all_proxy", "GIT_SSL_CAPATH", "GIT_PROXY_SSL_CAINFO"}
)

# generated:start (scripts/gen_settings.py from fixbot.core.settings and GitHubEnv; do not edit)
SETTING_VARIABLES = frozenset(
    {
        "FIXBOT_ALLOW_BOTS",
        "FIXBOT_ALLOW_DIRTY",
        "FIXBOT_ALLOW_DRAFTS",
        "FIXBOT_ALLOW_FORKS",
        "FIXBOT_ALLOW_TEST_EDITS",
        "FIXBOT_API_BASE",
        "FIXBOT_BACKOFF",
        "FIXBOT_CA_BUNDLE",
        "FIXBOT_CHECK",
        "FIXBOT_CHECK_COMMAND",
        "FIXBOT_CIRCUIT_BREAKER",
        "FIXBOT_COMMAND_PERMISSION",
        "FIXBOT_COMMIT",
        "FIXBOT_DESIRED",
        "FIXBOT_DISCARD",
        "FIXBOT_DISPATCH_WORKFLOWS",
        "FIXBOT_EDIT_PROTOCOL",
        "FIXBOT_ESCALATION_MODEL",
        "FIXBOT_FAIL_ON_ESCALATION",
        "FIXBOT_FALLBACK_MODEL",
        "FIXBOT_FALLBACK_MODELS",
        "FIXBOT_FIX_COMMAND",
        "FIXBOT_FIX_COMMANDS",
        "FIXBOT_FIX_COMMAND_TIMEOUT",
        "FIXBOT_HINT",
        "FIXBOT_HTTPS_PROXY",
        "FIXBOT_INFER_FIXES",
        "FIXBOT_INPUTS",
        "FIXBOT_INPUTS_FILE",
        "FIXBOT_MAX_ATTEMPTS",
        "FIXBOT_MAX_COST_USD",
        "FIXBOT_MAX_DIFF_LINES",
        "FIXBOT_MAX_DURATION",
        "FIXBOT_MAX_FIXES_PER_PR",
        "FIXBOT_MAX_LOG_BYTES",
        "FIXBOT_MAX_OUTPUT_TOKENS",
        "FIXBOT_MAX_REVIEW_ROUNDS",
        "FIXBOT_MAX_RUNS_PER_DAY",
        "FIXBOT_MAX_THREADS",
        "FIXBOT_MAX_TOKENS_PER_RUN",
        "FIXBOT_MAX_TOOL_CALLS",
        "FIXBOT_MAX_TRANSIENT_RETRIES",
        "FIXBOT_MODEL",
        "FIXBOT_NO_PROXY",
        "FIXBOT_ON_ESCALATION",
        "FIXBOT_ON_SUCCESS",
        "FIXBOT_PROTECTED_PATH",
        "FIXBOT_PROTECTED_PATHS",
        "FIXBOT_REQUEST_TIMEOUT",
        "FIXBOT_REQUIRE_LABEL",
        "FIXBOT_RESUME",
        "FIXBOT_REVIEW",
        "FIXBOT_RUN_AS",
        "FIXBOT_SEARCH_PROVIDER",
        "FIXBOT_SETUP",
        "FIXBOT_SETUP_COMMAND",
        "FIXBOT_SETUP_TIMEOUT",
        "FIXBOT_SKIP_LABEL",
        "FIXBOT_STATE_DIR",
        "FIXBOT_SYSTEM_PACKAGES",
        "FIXBOT_TEMPERATURE",
        "FIXBOT_THREAD_AUTHORS",
        "FIXBOT_THREAD_BOTS",
        "FIXBOT_TIMEOUT",
        "INPUT_ALLOW-BOTS",
        "INPUT_ALLOW-DRAFTS",
        "INPUT_ALLOW-FORKS",
        "INPUT_ALLOW-TEST-EDITS",
        "INPUT_API-BASE",
        "INPUT_BACKOFF",
        "INPUT_CA-BUNDLE",
        "INPUT_CHECK-COMMAND",
        "INPUT_CIRCUIT-BREAKER",
        "INPUT_COMMAND-PERMISSION",
        "INPUT_DESIRED",
        "INPUT_DISPATCH-WORKFLOWS",
        "INPUT_EDIT-PROTOCOL",
        "INPUT_ESCALATION-MODEL",
        "INPUT_FAIL-ON-ESCALATION",
        "INPUT_FALLBACK-MODELS",
        "INPUT_FIX-COMMAND-TIMEOUT",
        "INPUT_FIX-COMMANDS",
        "INPUT_GITHUB-TOKEN",
        "INPUT_HINT",
        "INPUT_HTTPS-PROXY",
        "INPUT_INFER-FIXES",
        "INPUT_INPUTS-FILE",
        "INPUT_MAX-ATTEMPTS",
        "INPUT_MAX-COST-USD",
        "INPUT_MAX-DIFF-LINES",
        "INPUT_MAX-DURATION",
        "INPUT_MAX-FIXES-PER-PR",
        "INPUT_MAX-LOG-BYTES",
        "INPUT_MAX-OUTPUT-TOKENS",
        "INPUT_MAX-REVIEW-ROUNDS",
        "INPUT_MAX-RUNS-PER-DAY",
        "INPUT_MAX-THREADS",
        "INPUT_MAX-TOKENS-PER-RUN",
        "INPUT_MAX-TOOL-CALLS",
        "INPUT_MAX-TRANSIENT-RETRIES",
        "INPUT_MODEL",
        "INPUT_NO-PROXY",
        "INPUT_ON-ESCALATION",
        "INPUT_ON-SUCCESS",
        "INPUT_PROTECTED-PATHS",
        "INPUT_REQUEST-TIMEOUT",
        "INPUT_REQUIRE-LABEL",
        "INPUT_REVIEW",
        "INPUT_RUN-AS",
        "INPUT_SEARCH-PROVIDER",
        "INPUT_SETUP-COMMAND",
        "INPUT_SETUP-TIMEOUT",
        "INPUT_SKIP-LABEL",
        "INPUT_STATE-DIR",
        "INPUT_SYSTEM-PACKAGES",
        "INPUT_TEMPERATURE",
        "INPUT_THREAD-AUTHORS",
        "INPUT_THREAD-BOTS",
        "INPUT_TIMEOUT",
        "INPUT_WORKING-DIRECTORY",
    }
)
GITHUB_VARIABLES = frozenset(
    {
        "GH_TOKEN",
        "GITHUB_ACTIONS",
        "GITHUB_API_URL",
        "GITHUB_EVENT_NAME",
        "GITHUB_EVENT_PATH",
        "GITHUB_GRAPHQL_URL",
        "GITHUB_OUTPUT",
        "GITHUB_REF",
        "GITHUB_REPOSITORY",
        "GITHUB_RUN_ID",
        "GITHUB_SERVER_URL",
        "GITHUB_SHA",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_TOKEN",
        "GITHUB_WORKSPACE",
    }
)
# generated:end

_GIVEN: list[dict[str, str] | None] = [None]  # the environment fixbot was started with


def allowed(name: str, command: str, is_server: Callable[[str], bool] | None = None) -> bool:
    """True when the variable `name` may be in the environment of fixbot's own process for the
    subcommand `command` (`run` or `action`); `is_server` tells a model server's variable (the
    CLI keeps those)."""
    if name in BASICS or name in GITHUB_VARIABLES or name in SETTING_VARIABLES:
        return True
    if name in PROVIDER_SETTINGS or is_provider_key(name) or is_search_key(name):
        return True
    return command == "run" and is_server is not None and is_server(name)


def network_values(given: Mapping[str, str], command: str) -> dict[str, str]:
    """The `NETWORK_SETTINGS` given, by setting name: in the Action from its inputs only
    (`INPUT_HTTPS-PROXY`: a `FIXBOT_HTTPS_PROXY` in GITHUB_ENV carries no trust), in the CLI from
    `FIXBOT_HTTPS_PROXY` and the like."""
    found = {}
    for setting in NETWORK_SETTINGS:
        if command == "action":
            value = given.get("INPUT_" + setting.upper(), "")
        else:
            value = given.get("FIXBOT_" + setting.replace("-", "_").upper(), "")
        if value.strip():
            found[setting] = value.strip()
    return found


def _plain_where_needed(name: str, value: str) -> bool:
    """`value` has the shape `PLAIN_SHAPES` asks of the variable `name` (any, for the rest)."""
    return all(shape.match(value) for names, shape in PLAIN_SHAPES if name in names)


def build(
    given: Mapping[str, str], command: str, is_server: Callable[[str], bool] | None = None
) -> dict[str, str]:
    """The environment of fixbot's own process for `command`, from the environment `given`:
    the `allowed` names (a locale or terminal name only when plain), then the variables of the
    network settings (`network_values`)."""
    built = {
        name: value
        for name, value in given.items()
        if allowed(name, command, is_server) and _plain_where_needed(name, value)
    }
    for setting, value in network_values(given, command).items():
        for name in NETWORK_SETTINGS[setting]:
            built[name] = value
    return built


def announce(given: Mapping[str, str], command: str) -> list[str]:
    """Lines for the log: the network settings in use (a proxy without its password) and the
    proxy and CA variables of the environment that were ignored."""
    lines = []
    for setting, value in network_values(given, command).items():
        shown = re.sub(r"//[^/@]*@", "//", value)
        lines.append(f"fixbot: {setting}: {shown} (fixbot's own git, model and GitHub requests)")
    ignored = sorted(name for name in given if name in NETWORK_VARIABLES)
    if ignored:
        lines.append(
            f"fixbot: ignored {', '.join(ignored)} from the environment: proxies and certificate "
            "authorities reach fixbot only through the https-proxy, no-proxy and ca-bundle "
            "settings (the project's commands still get them)"
        )
    return lines


def remember(given: Mapping[str, str]) -> None:
    """Keep `given`, the environment fixbot was started with, in memory (`fixbot.startup`)."""
    _GIVEN[0] = dict(given)


def given(current: Mapping[str, str]) -> dict[str, str]:
    """The environment fixbot was started with (secrets included), for the project's commands
    (without secrets), the settings and the redactor; `current` (this process's own) when
    fixbot was not started as a program (tests call `main` in process)."""
    kept = _GIVEN[0]
    return dict(current if kept is None else kept)
