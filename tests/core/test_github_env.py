"""The runner's `GITHUB_*` variables are read in one place, typed (`fixbot.core.github_env`):
GitHub's defaults and the token rule live there, and no other module reads a `GITHUB_*` (or
`GH_TOKEN`) variable itself."""

from __future__ import annotations

import re

import pytest

from fixbot.core.github_env import GitHubEnv
from tests.fakes.paths import ROOT

HOME = ROOT / "fixbot" / "core" / "github_env.py"
# `env.get("GITHUB_X")`, `env["GH_TOKEN"]`, `os.environ.get('GITHUB_X')`, `getenv("GITHUB_X")`
READ = re.compile(r"""(\.get\(|\[|getenv\()\s*["'](GITHUB_|GH_TOKEN)""")


def test_no_module_but_the_home_reads_a_github_variable() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "fixbot").rglob("*.py"))
        if path != HOME
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if READ.search(line)
    ]
    assert found == []


def test_the_pattern_finds_the_reads_it_forbids() -> None:
    for line in ['env.get("GITHUB_API_URL")', "os.environ['GH_TOKEN']", 'getenv("GITHUB_SHA")']:
        assert READ.search(line), line
    assert not READ.search('RUNNER_URLS = frozenset({"GITHUB_API_URL"})')


def test_githubs_defaults_apply_where_the_runner_set_nothing() -> None:
    bare = GitHubEnv.read({})
    assert (bare.api_url, bare.graphql_url, bare.server_url) == (
        "https://api.github.com",
        "https://api.github.com/graphql",
        "https://github.com",
    )
    assert not bare.actions and bare.run_id is None and bare.token == ""
    ghes = GitHubEnv.read(
        {
            "GITHUB_API_URL": "https://ghe.example/api/v3",
            "GITHUB_SERVER_URL": "https://ghe.example:8443/",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_RUN_ID": "42",
            "GITHUB_ACTIONS": "true",
            "GITHUB_STEP_SUMMARY": "",  # empty: unset
        }
    )
    assert ghes.api_url == "https://ghe.example/api/v3" and ghes.actions
    assert ghes.server_host == "ghe.example:8443" and ghes.step_summary is None
    assert ghes.run_url == "https://ghe.example:8443/o/r/actions/runs/42"
    assert ghes.commit_url("abc") == "https://ghe.example:8443/o/r/commit/abc"


def test_only_the_mapping_given_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Action's `main(env)` decides what fixbot sees: the process's own variables do not
    leak in (a test's, or a step's that `main` was not given)."""
    monkeypatch.setenv("GITHUB_REPOSITORY", "process/own")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_process")
    found = GitHubEnv.read({"GITHUB_EVENT_NAME": "push"})
    assert found.repository == "" and found.token == "" and found.event_name == "push"


def test_the_tokens_never_show_in_the_models_text() -> None:
    found = GitHubEnv.read({"GITHUB_TOKEN": "ghp_secret", "GH_TOKEN": "gho_other"})
    assert found.token == "ghp_secret"
    assert "ghp_secret" not in repr(found) and "gho_other" not in str(found)


def test_only_the_runners_true_means_inside_actions() -> None:
    assert GitHubEnv.read({"GITHUB_ACTIONS": "true"}).actions
    assert not any(GitHubEnv.read({"GITHUB_ACTIONS": v}).actions for v in ("1", "maybe", "TRUE"))
