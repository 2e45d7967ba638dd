"""The runner's `GITHUB_*` variables, read once into a typed model (`GitHubEnv.read`), and the
one home of GitHub's default URLs and of the token rule.

The names and defaults are GitHub's "Default environment variables"
(https://docs.github.com/en/actions/reference/variables-reference): on github.com the runner
sets `GITHUB_API_URL=https://api.github.com`, `GITHUB_GRAPHQL_URL=https://api.github.com/graphql`
and `GITHUB_SERVER_URL=https://github.com`; GitHub Enterprise Server sets its own, which is why
they are read, and why the defaults below apply only where no runner set them (the CLI on a
developer's machine). Outside a runner every field may be unset.

Only what the entry points hand over is read: `read` takes the environment as a mapping and
never looks at `os.environ` itself, so a test (or the Action's `main(env)`) decides what it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AliasChoices, BeforeValidator, Field, SecretStr
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from fixbot.core.errors import ConfigError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_GRAPHQL_URL = "https://api.github.com/graphql"
DEFAULT_SERVER_URL = "https://github.com"
TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN")  # the token rule, in the order tried


class _Given(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of `os.environ`."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._given = dict(env)
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # Names are matched case-insensitively, as pydantic-settings does (keys lower-cased).
        return {k.lower(): v for k, v in self._given.items() if v != ""}


def _is_true(value: object) -> object:
    """`GITHUB_ACTIONS` counts only as the runner sets it, `true`; any other text is False."""
    return value == "true" if isinstance(value, str) else value


class GitHubEnv(BaseSettings):
    """The runner's variables fixbot reads (all strings as the runner gives them).

    `api_url`, `graphql_url`, `server_url`: GitHub's REST and GraphQL endpoints and web server
    (defaults: github.com's). `repository`: `owner/name`. `event_name`, `event_path`: the event
    and the file holding its JSON payload. `ref`, `sha`: the ref and commit that started the
    workflow. `run_id`: this workflow run's id. `output`, `step_summary`: the step's output and
    summary files. `workspace`: the checkout folder. `actions`: True inside GitHub Actions
    (`GITHUB_ACTIONS=true`). `github_token`, `gh_token`: `GITHUB_TOKEN` and the GitHub CLI's
    `GH_TOKEN` (secrets: never in `repr`); `token` applies the rule between them.
    """

    model_config = SettingsConfigDict(
        env_prefix="GITHUB_", case_sensitive=False, frozen=True, extra="ignore"
    )

    api_url: str = DEFAULT_API_URL
    graphql_url: str = DEFAULT_GRAPHQL_URL
    server_url: str = DEFAULT_SERVER_URL
    repository: str = ""
    event_name: str = ""
    event_path: str = ""
    ref: str | None = None
    sha: str | None = None
    run_id: str | None = None
    output: str | None = None
    step_summary: str | None = None
    workspace: str | None = None
    actions: Annotated[bool, BeforeValidator(_is_true)] = False
    github_token: SecretStr | None = Field(None, validation_alias=AliasChoices("GITHUB_TOKEN"))
    gh_token: SecretStr | None = Field(None, validation_alias=AliasChoices("GH_TOKEN"))

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values `read` passes: the model never reads `os.environ` or a file."""
        return (init_settings,)

    @classmethod
    def read(cls, env: Mapping[str, str]) -> GitHubEnv:
        """The `GITHUB_*` variables of `env` (empty values count as unset)."""
        values: dict[str, Any] = _Given(cls, env)()
        return cls(**values)

    @property
    def token(self) -> str:
        """The token the CLI uses: `GITHUB_TOKEN`, else `GH_TOKEN` (stripped), "" when neither
        is set."""
        for secret in (self.github_token, self.gh_token):
            if secret is not None and secret.get_secret_value().strip():
                return secret.get_secret_value().strip()
        return ""

    def require_token(self, needs: str) -> str:
        """`token`, or `ConfigError` saying `needs` (what needs it: "--pr needs a GitHub
        token") and how to get one when neither variable is set."""
        if not self.token:
            raise ConfigError(
                [
                    f"{needs}: set {' or '.join(TOKEN_VARIABLES)} "
                    "(for example `export GH_TOKEN=$(gh auth token)`)"
                ]
            )
        return self.token

    @property
    def server(self) -> str:
        """`server_url` without a trailing slash."""
        return self.server_url.rstrip("/")

    @property
    def server_host(self) -> str:
        """The host of `server_url` (`github.com` by default), with its port if any."""
        return urlsplit(self.server_url).netloc

    @property
    def run_url(self) -> str:
        """The web page of this workflow run."""
        return f"{self.server}/{self.repository}/actions/runs/{self.run_id or ''}"

    def commit_url(self, sha: str) -> str:
        """The web page of commit `sha` in this repository."""
        return f"{self.server}/{self.repository}/commit/{sha}"

    def run_page(self, repository: str, run_id: int) -> str:
        """The web page of workflow run `run_id` of `repository`."""
        return f"{self.server}/{repository}/actions/runs/{run_id}"
