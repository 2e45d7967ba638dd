"""The one list of secrets: what the check never sees, what is redacted, which files are secret."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core import secrets
from fixbot.core.settings import Settings
from fixbot.run import engine
from tests.fakes.repo import make_repo

SCRUBBED = [
    "HF_TOKEN",
    "PERPLEXITYAI_API_KEY",
    "DATABRICKS_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "GROQ_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "INPUT_MODEL",
    "FIXBOT_MODEL",
    "github_token",
]
PASSED = [
    "PATH",
    "HOME",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "PIP_INDEX_URL",
    "UV_INDEX_PRIVATE_PASSWORD",
    "TWINE_PASSWORD",
    "DATABASE_URL",
    "AZURE_DEVOPS_TOKEN",
    "GITHUB_SHA",
]


@pytest.mark.parametrize("name", SCRUBBED)
def test_model_keys_and_github_tokens_are_scrubbed(name: str) -> None:
    assert secrets.is_scrubbed(name)
    assert name not in secrets.check_environment({name: "value-1234567890"})


@pytest.mark.parametrize("name", PASSED)
def test_other_variables_pass_so_a_private_registry_works(name: str) -> None:
    assert secrets.check_environment({name: "value-1234567890"}) == {name: "value-1234567890"}


def _litellm_file(name: str) -> Path:
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / name


def litellm_key_names() -> set[str]:
    """Credential variable names read from the installed litellm's source (not imported)."""
    utils = _litellm_file("utils.py").read_text(encoding="utf-8")
    start = utils.index("def validate_environment(")
    block = utils[start : utils.index("\ndef ", start + 1)]
    sources = [block, _litellm_file("main.py").read_text(encoding="utf-8")]
    sources += [p.read_text(encoding="utf-8") for p in _litellm_file("llms").rglob("*.py")]
    reads = re.compile(
        r"(?:get_secret(?:_str)?|os\.environ\.get|os\.getenv|os\.environ\[|in os\.environ|append)"
        r"\(?\s*\"([A-Z][A-Z0-9_]*)\""
    )
    names = {m for text in sources for m in reads.findall(text)}
    names |= set(re.findall(r'"([A-Z][A-Z0-9_]*)"', block))
    return {n for n in names if secrets.KEY_SUFFIX.search(n)}


def test_every_credential_litellm_reads_is_scrubbed() -> None:
    names = litellm_key_names()
    assert {"OPENAI_API_KEY", "HF_TOKEN", "PERPLEXITYAI_API_KEY"} <= names  # the scan works
    assert sorted(n for n in names if not secrets.is_provider_key(n)) == []


def test_secret_values_include_url_passwords_and_provider_keys() -> None:
    env = {
        "DATABASE_URL": "postgres://app:s3cr%40tpass@db:5432/app",
        "HF_TOKEN": "hf_abcdefghijklmnop",
        "MODEL": "gpt-4o-mini-long",
        "GIT_AUTHOR_NAME": "Fixbot Tester",
        "SHORT_TOKEN": "abc",
        "MAX_TOKENS": "123456789",
    }
    assert set(secrets.secret_values(env)) == {"s3cr%40tpass", "s3cr@tpass", "hf_abcdefghijklmnop"}


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        (".env", True),
        (".env.production", True),
        ("prod.env", True),
        (".ENV", True),
        ("deploy.pem", True),
        ("server.key", True),
        ("id_rsa", True),
        ("id_ed25519", True),
        (".npmrc", True),
        (".pypirc", True),
        (".netrc", True),
        (".git-credentials", True),
        (".env.example", False),
        ("id_rsa.pub", False),
        ("environment.py", False),
        ("keys.py", False),
    ],
)
def test_secret_file_names(name: str, secret: bool) -> None:
    assert secrets.is_secret_file(name) is secret


@pytest.mark.slow
def test_the_check_process_sees_no_model_key_or_token(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    seen = tmp_path / "seen.txt"
    script = "import os, sys; open(sys.argv[1], 'w').write(' '.join(sorted(os.environ)))"
    check = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)} {shlex.quote(str(seen))}"
    env = {**dict.fromkeys(SCRUBBED + PASSED, "value-1234567890"), "PATH": "/usr/bin:/bin"}
    env["HOME"] = str(tmp_path / "home")  # a HOME is a path, absolute: fixbot's state is under it
    outcome, _ = engine.run(Settings(check=check, fix_commands=["true"]), repo, env=env)
    assert outcome.outcome.value == "passed", outcome.reason
    names = set(seen.read_text().split())
    assert not names & set(SCRUBBED)
    assert set(PASSED) - {"HOME"} <= names


@pytest.mark.parametrize(
    ("model", "provider", "variable"),
    [
        ("anthropic/claude-x", "anthropic", "ANTHROPIC_API_KEY"),
        ("gpt-4o", "openai", "OPENAI_API_KEY"),  # a bare name is OpenAI's, as litellm reads it
        ("gemini/x", "gemini", "GEMINI_API_KEY"),
        ("together_ai/meta/llama", "together_ai", "TOGETHERAI_API_KEY"),
        ("acme/x", "acme", "ACME_API_KEY"),  # not in the table: the usual name
    ],
)
def test_the_provider_and_key_variable_of_a_model(model: str, provider: str, variable: str) -> None:
    assert secrets.provider_of(model) == provider
    assert secrets.key_variable(model) == variable


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("OPENAI_API_KEY", True),
        ("openai_api_key", True),
        ("DATABRICKS_TOKEN", True),  # a listed provider's stem with a key suffix
        ("MISTRAL_SECRET", True),
        ("ACME_API_KEY", False),  # not a provider litellm knows
        ("OPENAI_BASE_URL", False),  # a listed provider, but not a credential
    ],
)
def test_is_provider_key(name: str, expected: bool) -> None:
    assert secrets.is_provider_key(name) is expected


def test_every_table_keyed_by_provider_names_known_providers() -> None:
    assert set(secrets.DEFAULT_BASES) <= set(secrets.KEY_VARIABLES)
    for variable in secrets.KEY_VARIABLES.values():
        assert all(secrets.is_provider_key(v) for v in variable.split(" and "))


@pytest.mark.slow
def test_importing_the_provider_table_does_not_import_litellm() -> None:
    code = "import sys, fixbot.core.secrets; assert 'litellm' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
