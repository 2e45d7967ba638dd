"""Preflight: every set-up problem at once, with its fix, before any check or model call."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.errors import ConfigError
from fixbot.core.secrets import KEY_VARIABLES, UNCHECKED_PROVIDERS
from fixbot.core.settings import Settings
from fixbot.process.lock import run_lock
from fixbot.run.preflight import missing_keys, preflight
from tests.fakes.repo import make_repo


def executable(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 99\n")
    path.chmod(0o755)


@pytest.mark.parametrize(
    "check",
    ["bash -c 'trap \"\" TERM; exec pytest -q'", "cd tests && ../.venv/bin/pytest -q"],
)
def test_valid_checks_are_accepted(tmp_path: Path, check: str) -> None:
    repo = make_repo(tmp_path / "repo", {"tests/test_a.py": "def test(): pass\n"})
    executable(repo / ".venv" / "bin" / "pytest")
    executable(tmp_path / "bin" / "pytest")
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    assert preflight(Settings(check=check, fix_commands=["true"]), repo, env) == []


def test_invalid_checks_are_named_before_the_check_runs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    env = {"PATH": "/usr/bin:/bin"}

    def problems(check: str) -> list[str]:
        return preflight(Settings(check=check, fix_commands=["true"]), repo, env)

    [cd] = problems("cd nonexistent && pytest -q")
    assert "`cd nonexistent`" in cd and "fails in" in cd and "fix the folder" in cd
    source = problems("source .venv/bin/activate && pytest -q")
    if subprocess.run(["/bin/sh", "-c", "command -v source"], check=False).returncode != 0:
        [named] = source
        assert "`source`" in named and "is a bash builtin" in named and "/bin/sh" in named
        assert "pip install" not in named
        assert ". FILE" in named and "--check 'bash -c" in named
    [path] = problems("cd . && ./.venv/bin/pytest -q")
    assert "`./.venv/bin/pytest`" in path and "not an executable file" in path


def test_every_problem_at_once_fast_and_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fast as in bounded work: the key is looked up, never tried on the provider."""
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    settings = Settings(check="pytset -q", model="anthropic/claude-sonnet-4-5")

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("preflight reaches no network")

    monkeypatch.setattr(socket.socket, "connect", refused)
    problems = preflight(settings, repo, {"PATH": os.defpath})
    assert len(problems) == 2, problems
    assert problems[0].startswith("ANTHROPIC_API_KEY is not set")
    assert "`pytset`" in problems[1] and "--setup-command" in problems[1]
    no_fixer = preflight(Settings(check="true"), repo, {"PATH": os.defpath})
    assert no_fixer and "no fixer is configured" in no_fixer[0] and "--model" in no_fixer[0]


def test_empty_repository_and_missing_folder(tmp_path: Path) -> None:
    settings = Settings(check="true", fix_commands=["true"])
    assert "does not exist" in preflight(settings, tmp_path / "nope", {})[0]
    assert "not a git repository" in preflight(settings, tmp_path, {})[0]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert "no commits yet: commit first" in preflight(settings, tmp_path, {})[0]


def test_a_setup_command_or_api_base_defers_those_checks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    settings = Settings(
        check="pytest -q", setup="pip install pytest", model="openai/x", api_base="http://h/v1"
    )
    assert preflight(settings, repo, {"PATH": ""}) == []


def test_the_key_table_agrees_with_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    from fixbot.agent.llm import litellm_module

    litellm = litellm_module()
    for name in [n for n in os.environ if n.endswith(("_API_KEY", "_TOKEN"))]:
        monkeypatch.delenv(name)
    checked = 0
    for provider, variable in KEY_VARIABLES.items():
        if provider in UNCHECKED_PROVIDERS:
            continue
        found = litellm.validate_environment(model=f"{provider}/some-model")
        if found["missing_keys"]:  # litellm names none for a few aliases (text-completion-openai)
            assert variable in found["missing_keys"], (provider, found)
            checked += 1
    assert checked >= 10


def test_the_key_check_never_puts_the_given_environment_into_fixbots_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """litellm's `validate_environment` reads `os.environ`: asked with the environment fixbot
    was started with swapped in, fixbot's own process held an earlier step's `SSL_VERIFY` (and
    any other name) while litellm ran, or imported, in it."""
    from fixbot.agent.llm import litellm_module

    seen: list[str | None] = []

    def validate(model: str) -> dict[str, object]:
        seen.append(os.environ.get("SSL_VERIFY"))
        return {"missing_keys": ["WATSONX_APIKEY", "WATSONX_URL"]}

    monkeypatch.setattr(litellm_module(), "validate_environment", validate)
    monkeypatch.delenv("SSL_VERIFY", raising=False)
    given = {"SSL_VERIFY": "False", "WATSONX_URL": "https://example.invalid"}
    assert missing_keys("watsonx/granite", given) == ["WATSONX_APIKEY"]
    assert seen == [None]


HOLD = """
import sys, time
from pathlib import Path
from fixbot.process.lock import run_lock
with run_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.mark.slow
def test_one_run_per_repository_and_a_killed_holder_does_not_block(tmp_path: Path) -> None:
    state = tmp_path / ".fixbot"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(state)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError) as caught, run_lock(state):
            pass
        assert f"another fixbot run (PID {holder.pid}, started at " in caught.value.problems[0]
    finally:
        holder.kill()
        holder.wait()
    with run_lock(state):  # the kernel released the dead holder's lock
        assert (state / "lock").read_text().startswith('{"pid": ' + str(os.getpid()))


@pytest.mark.skipif(
    subprocess.run(["/bin/sh", "-c", "command -v source"], check=False).returncode == 0,
    reason="this machine's /bin/sh has `source`",
)
def test_the_suggested_bash_check_runs_as_pasted(tmp_path: Path) -> None:
    """The preflight's `--check 'bash -c ...'` parses as one check command, and that command,
    run the way fixbot runs checks (`/bin/sh -c`), sources the virtualenv and passes."""
    import re
    import shlex

    from fixbot.arguments import build_parser

    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    executable(repo / "bin" / "pytest")
    (repo / "bin" / "pytest").write_text("#!/bin/sh\nexit 0\n")
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "activate").write_text('PATH="$PWD/bin:$PATH"; export PATH\n')
    check = "source .venv/bin/activate && pytest -q"
    env = {"PATH": "/usr/bin:/bin"}
    [problem] = preflight(Settings(check=check, fix_commands=["true"]), repo, env)
    suggested = re.search(r"run it under bash: (--check .+)$", problem)
    assert suggested, problem
    args = build_parser().parse_args(["run", *shlex.split(suggested[1])])
    assert args.check.startswith("bash -c ")
    ran = subprocess.run(["/bin/sh", "-c", args.check], cwd=repo, env=env, check=False)
    assert ran.returncode == 0
    assert preflight(Settings(check=args.check, fix_commands=["true"]), repo, env) == []
