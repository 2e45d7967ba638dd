"""The environment variables that point litellm at a model server (`OPENAI_BASE_URL`, ...).

In the Action they carry no trust (an earlier step may have written them into `GITHUB_ENV`): fixbot
removes them and talks only to the `api-base` input's server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fixbot.core.secrets import provider_stems

# Where litellm finds a provider's server when no `api_base` is passed: `get_secret("X")` of
# litellm 1.x (main.py and llms/**): `OPENAI_BASE_URL`, `OPENAI_API_BASE`, `ANTHROPIC_BASE_URL`,
# `AZURE_API_BASE`, `OLLAMA_API_BASE`, `HF_ENDPOINT`, `WATSONX_URL`, `GIGACHAT_AUTH_URL`, ...
# Any name with these suffixes; `_URL`, `_ENDPOINT` and `_HOST` only after a provider's name.
SERVER_SUFFIX = re.compile(r"_(?:API_BASE|BASE_URL|API_BASE_URL)\Z")
PROVIDER_SERVER_SUFFIX = re.compile(r"_(?:URL|ENDPOINT|HOST)\Z")
OTHER_SERVER_PREFIXES = ("WML_", "AWS_BEDROCK_", "AGENTCORE_", "GITHUB_COPILOT_", "LITELLM_")
# Set by the runner, and GitHub refuses to let a step overwrite them through GITHUB_ENV.
RUNNER_URLS = frozenset({"GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "GITHUB_SERVER_URL"})


def server_variables(env: Mapping[str, str]) -> list[str]:
    """The names in `env` that can point litellm at a model server (sorted).

    In the Action they are removed from fixbot's environment (`fixbot.github.action`): a step
    before fixbot that ran the pull request's code may have written them into `GITHUB_ENV`, and
    litellm would send the model key to that server. The server is then only `api-base`,
    passed to litellm explicitly.
    """
    stems = tuple(f"{stem}_" for stem in provider_stems()) + OTHER_SERVER_PREFIXES
    found = []
    for name in env:
        upper = name.upper()
        if upper in RUNNER_URLS or upper.startswith(("FIXBOT_", "INPUT_")):
            continue  # fixbot's own settings: `fixbot.core.config` decides who may set them
        if SERVER_SUFFIX.search(upper) or (
            PROVIDER_SERVER_SUFFIX.search(upper) and upper.startswith(stems)
        ):
            found.append(name)
    return sorted(found)
