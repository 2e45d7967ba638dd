"""The Action's inputs that are not settings: the token and the working directory.

Every other input is a setting: it is declared once in `fixbot.core.settings.Settings` and read by
`fixbot.core.config.load_settings(..., action=True)`. The runner sets `INPUT_<NAME>` (upper case,
hyphens kept) for every input in action.yml. Source:
https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from fixbot.core.github_env import GitHubEnv


class ExtraInput(BaseModel):
    """An Action input that is not a setting (declared here, rendered into action.yml)."""

    name: str
    description: str
    default: str


EXTRA_INPUTS = (
    ExtraInput(
        name="working-directory",
        description="Folder of the project inside the repository (monorepos).",
        default=".",
    ),
    ExtraInput(
        name="github-token",
        description="Token for pushing and the GitHub API. Pushes made with the default "
        "GITHUB_TOKEN start no workflow run: fixbot then dispatches CI on its commit "
        "(`dispatch-workflows`). With `uses: docker://...` action.yml's defaults do not "
        "apply: pass it explicitly (or set `GITHUB_TOKEN` in `env:`).",
        default="${{ github.token }}",
    ),
)


def variable(name: str) -> str:
    """The environment variable of input `name`: `INPUT_` + name in upper case, hyphens kept."""
    return "INPUT_" + name.upper()


class Inputs(BaseModel):
    """The non-setting inputs: the token and the working directory (relative to the workspace)."""

    token: str
    working_directory: str


def read_inputs(env: Mapping[str, str], github: GitHubEnv) -> Inputs:
    """Read the token and the working directory from `env` (its `GITHUB_*` part: `github`)."""
    # `uses: docker://...` skips action.yml's defaults: fall back to a GITHUB_TOKEN in `env:`.
    fallback = github.github_token.get_secret_value() if github.github_token else ""
    return Inputs(
        token=(env.get(variable("github-token"), "") or fallback).strip(),
        working_directory=env.get(variable("working-directory"), "").strip() or ".",
    )
