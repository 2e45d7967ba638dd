"""The Action run's context: the environment resolved once, and the GitHub clients it opens.

`Context` holds the runner's variables, the non-setting inputs, where output goes, the
connectors (replaced in tests) and the notes collected on the way. The REST client, the
token's login and the permission cache are made on first use and kept for the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from fixbot.core.models import Outcome, ReviewThread
from fixbot.github.api import checkout
from fixbot.github.api.graphql import DEFAULT_URL, GraphQL
from fixbot.github.api.rest import GitHub
from fixbot.github.events.inputs import Inputs, read_inputs
from fixbot.github.events.permission import Permissions
from fixbot.loop.state import RunState
from fixbot.process import worlds
from fixbot.security.leakscan import known_secrets

Connect = Callable[[str, str, str], GitHub]
ConnectGraphQL = Callable[[str, str], GraphQL]


@dataclass
class Context:
    """The run's environment, resolved once in `fixbot.github.action.main`."""

    env: Mapping[str, str]
    inputs: Inputs
    out: TextIO
    connect: Connect
    workspace: Path
    run_url: str
    notes: list[str] = field(default_factory=list)
    fail_on_escalation: bool = True
    connect_graphql: ConnectGraphQL = GraphQL.connect
    _rest: GitHub | None = None
    _login: str | None = None
    _permissions: Permissions | None = None

    @property
    def git_env(self) -> dict[str, str]:
        """Environment for git commands that reach the remote."""
        return checkout.auth_env(self.inputs.token, checkout.server_host(self.env))

    @property
    def repo(self) -> Path:
        """fixbot's own clone of the workspace, made by the run (`fixbot.process.worlds`): where
        the publish step reads, diffs, replays and pushes; the workspace before a run made one."""
        return worlds.clone_of(self.workspace, self.env)

    @property
    def run_id(self) -> str:
        """This workflow run's id (`GITHUB_RUN_ID`), "0" outside Actions."""
        return self.env.get("GITHUB_RUN_ID", "0")

    def graphql(self) -> GraphQL:
        """The GraphQL client at `GITHUB_GRAPHQL_URL` (no request made here)."""
        return self.connect_graphql(
            self.inputs.token, self.env.get("GITHUB_GRAPHQL_URL") or DEFAULT_URL
        )

    def rest(self) -> GitHub:
        """The REST client of `GITHUB_REPOSITORY` at `GITHUB_API_URL` (made once)."""
        if self._rest is None:
            self._rest = self.connect(
                self.inputs.token,
                self.env.get("GITHUB_API_URL", "https://api.github.com"),
                self.env.get("GITHUB_REPOSITORY", ""),
            )
            self._rest.secrets = known_secrets(self.env, github_token=self.inputs.token)
        return self._rest

    def login(self) -> str:
        """fixbot's own login for this token (one `GET /user` per run)."""
        if self._login is None:
            self._login = self.rest().login()
        return self._login

    def permissions(self) -> Permissions:
        """The run's permission cache (one request per login)."""
        if self._permissions is None:
            self._permissions = Permissions(self.rest().permission)
        return self._permissions

    def commit_url(self, sha: str) -> str:
        """The web URL of commit `sha` in this repository."""
        server = self.env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        return f"{server}/{self.env.get('GITHUB_REPOSITORY', '')}/commit/{sha}"


def make_context(env: Mapping[str, str], out: TextIO, connect: Connect) -> Context:
    """The `Context` of the runner's variables `env`."""
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    run_url = (
        f"{server}/{env.get('GITHUB_REPOSITORY', '')}/actions/runs/{env.get('GITHUB_RUN_ID', '')}"
    )
    return Context(
        dict(env),
        read_inputs(env),
        out,
        connect,
        Path(env.get("GITHUB_WORKSPACE") or Path.cwd()),
        run_url,
    )


@dataclass(frozen=True)
class Finished:
    """What the engine returned, and the review threads it was given."""

    outcome: Outcome
    state: RunState
    threads: list[ReviewThread]
