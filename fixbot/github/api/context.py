"""The Action run's context: the step's environment read once, and the GitHub clients it opens.

`make_context` is the one place below `fixbot.github.action.main` that reads the step's
environment; it builds what the run needs of it, typed: the runner's `GITHUB_*` variables
(`GitHubEnv`), the non-setting inputs, the settings' variables, the secrets to mask and redact,
where fixbot's clone of the workspace is, and the run's environment (the one mapping handed on:
the engine's, whose commands get it without secrets). Nothing below reads the step's
environment (tests/test_env_walk.py). `Context` also holds where output goes, the connectors
(replaced in tests) and the notes collected on the way. The gate settings, the REST client, the
token's login and the permission cache are made on first use and kept for the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TextIO

from fixbot.core.config import Gates, read_gates
from fixbot.core.errors import GitError
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import Outcome, ReviewThread
from fixbot.core.secrets import secret_values
from fixbot.github.api import checkout
from fixbot.github.api.graphql import GraphQL
from fixbot.github.api.rest import GitHub
from fixbot.github.events.inputs import Inputs, read_inputs
from fixbot.github.events.permission import Permissions
from fixbot.policy.state import RunState
from fixbot.process import worlds
from fixbot.security.leakscan import known_secrets
from fixbot.security.redact import Redactor

Connect = Callable[[str, str, str], GitHub]
ConnectGraphQL = Callable[[str, str], GraphQL]


@dataclass
class Context:
    """What the run needs of the step's environment, built once by `make_context`.

    `github`: its `GITHUB_*` variables, typed; `inputs`: the token and the working directory;
    `settings_variables`: its `INPUT_*` and `FIXBOT_*` variables, the workflow's layers of the
    settings (`load_settings`, `read_gates`); `environment`: the run's environment, read-only
    (`fixbot.run.engine.run`'s and the re-check's `env`: the project's commands get it without
    secrets, the model agent its keys); `redactor` and `secrets`: the secret values it holds;
    `state_base`: where fixbot's private folders live; `clone`: where fixbot's clone of the
    workspace is (made by `fixbot.github.action`, read by `repo`).
    """

    github: GitHubEnv
    inputs: Inputs
    out: TextIO
    connect: Connect
    workspace: Path
    run_url: str
    settings_variables: Mapping[str, str]
    environment: Mapping[str, str]
    redactor: Redactor
    secrets: Mapping[str, str]
    state_base: Path
    clone: Path
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
        the publish step reads, diffs, replays and pushes. Raises `GitError` when it is not
        there, or it or its `.git` is a link (to the workspace's): fixbot's git never runs in
        the workspace instead."""
        dot = self.clone / ".git"
        if self.clone.is_symlink() or dot.is_symlink() or not dot.is_dir():
            raise GitError(
                f"fixbot's clone of the workspace is missing at {self.clone}: it is made at the "
                "start of the run, and nothing of fixbot's runs in the workspace instead"
            )
        return self.clone

    @property
    def run_id(self) -> str:
        """This workflow run's id (`GITHUB_RUN_ID`), "0" outside Actions."""
        return self.github.run_id or "0"

    def gates(self) -> Gates:
        """The gate settings as the workflow sets them (read once; `ConfigError` when one is
        invalid, raised where the run reports errors)."""
        if self._gates is None:
            self._gates = read_gates(self.settings_variables)
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
            self._rest.secrets = dict(self.secrets)
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


SETTING_PREFIXES = ("INPUT_", "FIXBOT_")  # the variables `fixbot.core.config` reads settings from


def make_context(env: Mapping[str, str], out: TextIO, connect: Connect) -> Context:
    """The `Context` of the step's environment `env`: the one place the Action reads it."""
    github = GitHubEnv.read(env)
    inputs = read_inputs(env, github)
    workspace = Path(github.workspace or Path.cwd())
    base = worlds.state_base(os.geteuid(), env)
    return Context(
        github,
        inputs,
        out,
        connect,
        workspace,
        github.run_url,
        settings_variables=MappingProxyType(
            {name: value for name, value in env.items() if name.startswith(SETTING_PREFIXES)}
        ),
        environment=run_environment(env),
        redactor=Redactor.from_env({}, extra=secret_values(env)),
        secrets=MappingProxyType(known_secrets(env, github_token=inputs.token)),
        state_base=base,
        clone=worlds.clone_path(workspace, base),
    )


def run_environment(env: Mapping[str, str]) -> Mapping[str, str]:
    """The run's environment, made from the step's `env` once: all of it, read-only. The engine
    takes it as the CLI's run takes the environment fixbot was started with: the project's
    commands get it without secrets (`fixbot.core.secrets.check_environment`), the model agent
    its keys, the redactor its secret values."""
    return MappingProxyType(dict(env))


@dataclass(frozen=True)
class Finished:
    """What the engine returned, and the review threads it was given."""

    outcome: Outcome
    state: RunState
    threads: list[ReviewThread]
