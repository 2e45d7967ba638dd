"""Shared pytest set-up: an isolated git identity and home, no network-bound litellm start-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.repo import GIT_IDENTITY
from tests.fakes.securitydoc import is_named, named_tests

# Vendored projects under tests/data (real fixes, corpora) carry their own tests: data here.
collect_ignore_glob = ["data/*"]

pytest_plugins = (
    "tests.fakes.github_server",
    "tests.fakes.model_server",
    "tests.fakes.agent_repo",
    "tests.fakes.plugin",
    "tests.fakes.tiers",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `hardening` the tests docs/SECURITY.md names (the adversarial and fault tests):
    `pytest -m hardening` runs exactly them."""
    named = named_tests()
    for item in items:
        function = getattr(item, "originalname", None) or item.name.split("[")[0]
        if is_named(item.path, function, named):
            item.add_marker(pytest.mark.hardening)


@pytest.fixture(autouse=True)
def isolated_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Give every test a git identity and a throw-away HOME, so no developer config leaks in.

    PYTHONDONTWRITEBYTECODE is removed: some shells (root's on the project's machines) set it,
    an ordinary user's does not, and a check that runs Python in a repository then leaves
    `__pycache__/` behind. Every test sees the ordinary user's case."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
    # fixbot's private folders (its clones and state) of this test's runs, not the machine's
    from fixbot.process import worlds

    monkeypatch.setattr(worlds, "ROOT_BASE", tmp_path_factory.mktemp("fixbot-worlds") / "fixbot")
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    for name in ("CI", "GITHUB_ACTIONS", "GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in __import__("os").environ if n.startswith(("FIXBOT_", "INPUT_"))]:
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository with one commit, in a temporary folder."""
    from tests.fakes.repo import make_repo

    return make_repo(tmp_path / "repo", {"README.md": "demo\n"})
