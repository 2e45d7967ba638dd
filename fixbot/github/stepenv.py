"""What the Action's own process forgets of the step's environment as it starts.

The step's environment carries no trust: an earlier step of the job, which may have run the
pull request's code, can write any variable into `GITHUB_ENV` (GitHub's docs, "Workflow
commands: Setting an environment variable"). fixbot's process removes the tokens once read (so
nothing it starts inherits them), the variables that point litellm at a model server, and, in
its image, the variables that name other certificate authorities. The check still gets the
latter two (the run's environment, `Context.environment`): they are the project's business
there, and it holds no secret.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from fixbot.core import servers
from fixbot.github.api.context import Context
from fixbot.github.events.inputs import variable
from fixbot.process import installation
from fixbot.ui import workflow

# Removed from this process's environment once read. The check never sees them either way:
# the engine gives it `secrets.check_environment(env)` (no inputs, tokens or model keys).
TOKEN_VARIABLES = (
    variable("github-token"),
    "GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)


# The variables that replace the certificate authorities fixbot's own HTTPS clients trust
# (OpenSSL and httpx: SSL_CERT_FILE, SSL_CERT_DIR; requests: REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE).
TRUST_ANCHOR_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def scrub_process_env() -> None:
    """Remove the tokens from this process's environment, so nothing it starts inherits them.

    The token stays in `Context.inputs` for git and the REST client, and in the run's
    environment (`Context.environment`, a copy) so the engine's redactor knows its exact value.
    """
    for name in TOKEN_VARIABLES:
        os.environ.pop(name, None)


def forget_model_servers(ctx: Context, env: Mapping[str, str]) -> list[str]:
    """Remove the variables that point litellm at a model server (`OPENAI_BASE_URL`, ...) from
    this process's environment; return their names, named in a warning.

    litellm would send the model key there: in the Action the server is the `api-base` input's,
    passed to litellm explicitly.
    """
    names = sorted(set(servers.server_variables(env)) | set(servers.server_variables(os.environ)))
    why = (
        "in the Action the model's server is the `api-base` input's (an earlier step may have "
        "written these into GITHUB_ENV)"
    )
    return _forget(ctx, names, why)


def forget_trust_anchors(ctx: Context, runtime: str | None) -> list[str]:
    """In fixbot's image, remove the variables naming other certificate authorities from this
    process's environment; return their names, named in a warning.

    An earlier step can write `HTTPS_PROXY` and `SSL_CERT_FILE` (a CA of its own) into
    GITHUB_ENV: the proxy would then read the model key and the token in the clear. The image
    has its own CA store. In the runner mode the runner's own configuration may need them (a
    self-hosted runner behind a proxy), and the earlier step ran as the runner's user anyway."""
    if runtime != installation.CONTAINER:
        return []
    names = [name for name in TRUST_ANCHOR_VARIABLES if name in os.environ]
    why = "in fixbot's image its own HTTPS clients trust only the image's certificate authorities"
    return _forget(ctx, names, why)


def _forget(ctx: Context, names: Iterable[str], why: str) -> list[str]:
    """Remove `names` from this process's environment and, when any was set, warn with `why`
    (an annotation and a note of the run); return them."""
    gone = list(names)
    for name in gone:
        os.environ.pop(name, None)
    if gone:
        text = f"ignored {', '.join(gone)} from the environment: {why}"
        workflow.warning(text, ctx.out)
        ctx.notes.append(text)
    return gone
