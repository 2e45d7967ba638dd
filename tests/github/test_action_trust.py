"""What the Action's environment may and may not decide: an earlier step that
ran the pull request's code may have written `GITHUB_ENV`, and a pull request's files are not the
workflow. End to end: `python -m fixbot action` in a subprocess against fakes on 127.0.0.1."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from fixbot.core.servers import server_variables
from fixbot.github import stepenv
from fixbot.process import installation
from tests.fakes.action_env import REPOSITORY, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.model_server import FakeModelServer, refused_url, text
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
KEY = "sk-model-key-0123456789"
FAILING = {"app.py": "print('hi')\n", "check.py": "raise SystemExit('app.py:1: broken')\n"}


@pytest.fixture
def sandbox(tmp_path: Path, github_server: FakeGitHub) -> ActionSandbox:
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", FAILING, "initial")
    return box


def test_a_model_server_written_into_github_env_gets_no_request_and_no_key(
    sandbox: ActionSandbox,
) -> None:
    """A step before fixbot wrote `OPENAI_BASE_URL` and `FIXBOT_API_BASE` into
    GITHUB_ENV; the workflow names no `api-base`. Without the control the model key goes to
    that server. Requests that leave 127.0.0.1 go to a dead local proxy (never the internet)."""
    with FakeModelServer() as attacker:
        attacker.enqueue(*[text("hi")] * 20)
        ws = sandbox.workspace("main")
        sha = sandbox.origin_sha("main")
        inputs = {"check-command": "python check.py", "model": "openai/fake", "max-attempts": "1"}
        env = sandbox.env("push", sandbox.push_event("main", sha), ws, inputs)
        dead = refused_url().removesuffix("/v1")
        env.update(
            {
                "OPENAI_API_KEY": KEY,
                "OPENAI_BASE_URL": attacker.url,  # the GITHUB_ENV of an earlier step
                "ANTHROPIC_BASE_URL": attacker.url,
                "FIXBOT_API_BASE": attacker.url,
                "HTTPS_PROXY": dead,
                "HTTP_PROXY": dead,
                "NO_PROXY": "127.0.0.1,localhost",
            }
        )
        run = sandbox.run(env, timeout=180)
    assert attacker.requests == []
    assert KEY not in run.stdout.replace(f"::add-mask::{KEY}", "") + run.stderr
    assert "could not reach the model provider's host (api.openai.com)" in run.stdout
    warned = run.stdout + run.summary
    assert "ignored ANTHROPIC_BASE_URL, OPENAI_BASE_URL from the environment" in warned
    assert "ignored FIXBOT_API_BASE: in the Action these settings come from" in warned


def test_every_server_variable_litellm_reads_is_recognised() -> None:
    """Re-read the installed litellm: each variable it reads a server's address from (`*_API_BASE`,
    `*_BASE_URL`, a provider's `*_URL` / `*_ENDPOINT` / `*_HOST`) is one `server_variables`
    removes; a new litellm with a new one fails here."""
    import litellm

    root = Path(litellm.__file__).parent
    read = re.compile(r"(?:get_secret(?:_str)?|os\.environ\.get|os\.getenv)\(\s*[\"']([A-Z0-9_]+)")
    names: set[str] = set()
    for path in [root / "main.py", *(root / "llms").rglob("*.py")]:
        names.update(read.findall(path.read_text(encoding="utf-8", errors="replace")))
    servers = {n for n in names if re.search(r"_(API_BASE|BASE_URL|URL|ENDPOINT|HOST)\Z", n)}
    not_servers = {"OR_SITE_URL", "VERCEL_SITE_URL"}  # sent as headers naming the caller's site
    assert len(servers) > 50
    assert servers - not_servers - set(server_variables(dict.fromkeys(servers, "x"))) == set()
    kept = {"GITHUB_API_URL", "GITHUB_SERVER_URL", "DATABASE_URL", "PIP_INDEX_URL", "HOME"}
    kept |= {"FIXBOT_API_BASE", "INPUT_API-BASE"}  # settings: fixbot.core.config decides
    assert server_variables(dict.fromkeys(kept, "x")) == []


def test_a_retry_on_a_forks_pull_request_never_runs_its_code_with_the_secrets(
    sandbox: ActionSandbox, github_server: FakeGitHub, tmp_path: Path
) -> None:
    """With `allow-forks: true`, a maintainer's `/fixbot retry` on a fork's pull request would
    run the fork's check in a job holding the base repository's token and secrets: refused, the
    fork's code never runs, and the reply points to the fork's `pull_request` event (no secret)."""
    marker = tmp_path / "the-forks-code-ran"
    sha = sandbox.commit("changes", {"check.py": f"open({str(marker)!r}, 'w')\n"}, "fork")
    sandbox.register_pull("changes", sha)
    git(sandbox.origin, "update-ref", "refs/pull/2/head", sha)  # where GitHub keeps a fork's head
    github_server.repo(REPOSITORY).pulls[-1]["head"]["repo"]["full_name"] = "mallory/Hello-World"
    github_server.repo(REPOSITORY).permissions["alice"] = "admin"
    event = sandbox.comment_event("/fixbot retry", "alice")
    ws = sandbox.workspace("main")
    inputs = {"check-command": "python check.py", "fix-commands": "true", "allow-forks": "true"}
    run = sandbox.run(sandbox.env("issue_comment", event, ws, inputs))

    assert not marker.exists()
    assert run.code == 0 and run.outputs["outcome"] == "refused", run.stdout + run.stderr
    assert "holds this repository's token and secrets" in run.outputs["reason"]
    replies = [
        c["body"] for c in github_server.repo(REPOSITORY).comments if "did not run" in c["body"]
    ]
    assert len(replies) == 1 and "`pull_request` event" in replies[0]


def test_in_the_image_a_certificate_authority_from_github_env_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An earlier step wrote `HTTPS_PROXY` and `SSL_CERT_FILE` (its own CA) into GITHUB_ENV:
    in the image fixbot's own HTTPS clients forget the CA variables (the proxy then sees only
    TLS); in the runner mode they stay, the runner's own configuration."""
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        monkeypatch.setenv(name, "/github/home/attacker-ca.pem")
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    ctx = SimpleNamespace(out=io.StringIO(), notes=[])
    assert stepenv.forget_trust_anchors(ctx, installation.RUNNER) == []  # type: ignore[arg-type]
    assert os.environ["SSL_CERT_FILE"] == "/github/home/attacker-ca.pem"
    forgotten = stepenv.forget_trust_anchors(ctx, installation.CONTAINER)  # type: ignore[arg-type]
    assert forgotten == ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"]
    assert "SSL_CERT_FILE" not in os.environ and "REQUESTS_CA_BUNDLE" not in os.environ
    assert "ignored SSL_CERT_FILE, REQUESTS_CA_BUNDLE from the environment" in ctx.out.getvalue()


def test_a_token_persisted_by_actions_checkout_is_named_with_the_fix(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    """actions/checkout's default `persist-credentials: true` leaves the token in the
    workspace's `.git/config`, where the check reads it: the run warns, naming the setting that
    removes it."""
    sha = sandbox.commit("changes", {"app.py": "x = 1\n"}, "change")
    ws = sandbox.workspace("changes", merge_into="main")
    header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3Rva2Vu"
    git(ws, "config", "http.https://github.com/.extraheader", header)
    inputs = {"check-command": "true", "fix-commands": "true"}
    run = sandbox.run(
        sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, inputs)
    )
    assert "::warning title=fixbot%3A the token is in .git/config::" in run.stdout, run.stdout
    assert "persist-credentials: false" in run.stdout
