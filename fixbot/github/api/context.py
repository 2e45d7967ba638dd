"""The Action run's context: the environment resolved once, and the GitHub clients it opens.

`Context` holds the runner's variables (as given, and typed: `GitHubEnv`), the non-setting
inputs, the gate settings, where output goes, the connectors (replaced in tests) and the notes
collected on the way. The gate settings, the REST client, the token's login and the permission
cache are made on first use and kept for the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from fixbot.core.config import Gates, read_gates
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import Outcome, ReviewThread
from fixbot.github.api import checkout
from fixbot.github.api.graphql import GraphQL
from fixbot.github.api.rest import GitHub
from fixbot.github.events.inputs import Inputs, read_inputs
from fixbot.github.events.permission import Permissions
from fixbot.policy.state import RunState
from fixbot.process import worlds
from fixbot.security.leakscan import known_secrets

Connect = Callable[[str, str, str], GitHub]
ConnectGraphQL = Callable[[str, str], GraphQL]


@dataclass
class Context:
    """The run's environment, resolved once in `fixbot.github.action.main` (`make_context`).

    `env`: the runner's variables as given (the check's environment is made from it);
    `github`: its `GITHUB_*` variables, typed.
    """

    env: Mapping[str, str]
    github: GitHubEnv
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
    _gates: Gates | None = None

    @property
    def git_env(self) -> dict[str, str]:
        """Environment for git commands that reach the remote."""
        return checkout.auth_env(self.inputs.token, self.github.server_host)

    @property
    def repo(self) -> Path:
        """fixbot's own clone of the workspace, made by the run (`fixbot.process.worlds`): where
        the publish step reads, diffs, replays and pushes; the workspace before a run made one."""
        return worlds.clone_of(self.workspace, self.env)

    @property
    def run_id(self) -> str:
        """This workflow run's id (`GITHUB_RUN_ID`), "0" outside Actions."""
        return self.github.run_id or "0"

    def gates(self) -> Gates:
        """The gate settings as the workflow sets them (read once; `ConfigError` when one is
        invalid, raised where the run reports errors)."""
        if self._gates is None:
            self._gates = read_gates(self.env)
        return self._gates

    def graphql(self) -> GraphQL:
        """The GraphQL client at `GITHUB_GRAPHQL_URL` (no request made here)."""
        return self.connect_graphql(self.inputs.token, self.github.graphql_url)

    def rest(self) -> GitHub:
        """The REST client of `GITHUB_REPOSITORY` at `GITHUB_API_URL` (made once)."""
        if self._rest is None:
            self._rest = self.connect(
                self.inputs.token, self.github.api_url, self.github.repository
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
        return self.github.commit_url(sha)


def make_context(env: Mapping[str, str], out: TextIO, connect: Connect) -> Context:
    """The `Context` of the runner's variables `env`: the one place the Action reads them."""
    github = GitHubEnv.read(env)
    return Context(
        dict(env),
        github,
        read_inputs(env, github),
        out,
        connect,
        Path(github.workspace or Path.cwd()),
        github.run_url,
    )


@dataclass(frozen=True)
class Finished:
    """What the engine returned, and the review threads it was given."""

    outcome: Outcome
    state: RunState
    threads: list[ReviewThread]
