"""One declaration per setting: the `Settings` field drives every surface, and they never drift."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
import yaml

from fixbot.cli import build_parser, flags_from, main
from fixbot.core.config import Gates, load_settings, read_gates
from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings
from fixbot.core.surfaces import Spec, shown_default, spec, specs
from fixbot.core.values import check_state_dir
from tests.fakes.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def sample(item: Spec) -> tuple[str, Any]:
    """A raw text value for `item` different from its default, and the value it must parse to."""
    if item.is_bool:
        return ("false", False) if item.default else ("true", True)
    if item.field == "system_packages":  # Debian names, split on spaces too
        return "nodejs npm\nlibpq-dev", ["nodejs", "npm", "libpq-dev"]
    if item.is_list:
        return "a one\nb two", ["a one", "b two"]
    default = item.default
    if isinstance(default, StrEnum):
        other = next(m for m in type(default) if m is not default)
        return other.value, other
    if item.field == "state_dir":
        return "custom-state", "custom-state"
    if item.field == "edit_protocol":  # a protocol's name (the registry's; any name parses)
        return "text", "text"
    if isinstance(default, float) or item.field in ("max_duration", "max_cost_usd"):
        return "1.5", 1.5
    if isinstance(default, int) or item.field in ("max_tokens_per_run", "max_output_tokens"):
        return "4", 4
    return "some text", "some text"


ALL = [pytest.param(item, id=item.name) for item in specs() if item.field != "check"]


def test_generated_files_are_up_to_date() -> None:
    loaded = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_settings.py")
    assert loaded and loaded.loader
    gen = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(gen)
    stale = [p.name for p, text in gen.generated().items() if p.read_text("utf-8") != text]
    assert stale == [], "run .venv/bin/python scripts/gen_settings.py"


@pytest.mark.parametrize("item", ALL)
def test_one_field_drives_every_surface(item: Spec, tmp_path: Path) -> None:
    raw, want = sample(item)
    base = {"check": "true"}
    # the flag (parsed by the real parser)
    if item.surface.cli:
        if item.is_bool:
            argv = [f"--{item.name}" if want else f"--no-{item.name}"]
        else:
            argv = [arg for line in raw.splitlines() for arg in (item.flags[0], line)]
        args = build_parser().parse_args(["run", "--check", "true", *argv])
        got = load_settings(tmp_path, flags_from(args), {})
        assert getattr(got, item.field) == want, item.flags
    # the variable
    got = load_settings(tmp_path, base, {item.variables[0]: raw})
    assert getattr(got, item.field) == want, item.variables[0]
    # the file key (a workflow-only setting is still read from files by `fixbot run`)
    key = item.name
    (tmp_path / ".fixbot.toml").write_text(f"{key} = {toml_value(raw, item)}\n")
    got = load_settings(tmp_path, base, {})
    assert getattr(got, item.field) == want, key
    (tmp_path / ".fixbot.toml").unlink()
    # the Action input, declared in action.yml with an empty default (so a value the runner
    # passes was given by the workflow) and fixbot's default in its description; the README row
    if item.surface.action:
        declared = ACTION["inputs"][item.name]
        assert declared["default"] == ""
        shown = shown_default(item.action_default).replace("\n", ", ")
        assert declared["description"].endswith(f"Default: `{shown}`." if shown else "unset.")
        env = {"INPUT_CHECK-COMMAND": "true", item.input_variable: raw}
        got = load_settings(tmp_path, {}, env, action=True)
        assert getattr(got, item.field) == want, item.input_variable
    assert re.search(rf"^\| `{re.escape(item.name)}` \|", README, re.M), item.name


def toml_value(raw: str, item: Spec) -> str:
    if item.is_bool:
        return raw
    if raw.replace(".", "").isdigit():
        return raw
    return repr(raw) if "\n" not in raw else '"""' + raw + '"""'


def test_action_inputs_are_exactly_the_settings_plus_token_and_folder() -> None:
    want = {item.name for item in specs() if item.surface.action}
    assert set(ACTION["inputs"]) == want | {"github-token", "working-directory"}
    assert ACTION["inputs"]["check-command"]["required"] is False  # inferred when empty


def test_short_aliases_and_a_single_string_for_a_list(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["run", "--check", "pytest -q", "--fix-command", "ruff check --fix ."]
    )
    assert flags_from(args)["fix_commands"] == ["ruff check --fix ."]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixbot]\ncheck = "pytest"\nfix-commands = "ruff check --fix ."\n'
    )
    settings = load_settings(tmp_path, {}, {"FIXBOT_CHECK": "pytest -q"})
    assert settings.fix_commands == ["ruff check --fix ."]
    assert settings.check == "pytest -q"


def test_unknown_key_suggests_the_closest(tmp_path: Path) -> None:
    (tmp_path / ".fixbot.toml").write_text("check = 'x'\nmax-atempts = 3\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {}, {})
    assert caught.value.problems == [
        ".fixbot.toml: unknown key 'max-atempts'; did you mean 'max-attempts'?"
    ]


def test_configuration_errors_are_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "-C", str(ROOT), "--check", "true", "--max-attempts", "0"])
    err = capsys.readouterr()
    assert code == 2
    assert err.err.count("greater than or equal to 1") == 1
    assert err.out == ""


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0"])
def test_timeouts_must_be_finite_and_positive(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="FIXBOT_TIMEOUT"):
        load_settings(tmp_path, {"check": "true"}, {"FIXBOT_TIMEOUT": value})


@pytest.mark.parametrize(
    "value", ["/tmp/x", "../up", "a/../../b", "st\n*", "*", "state[1]", ".git", ".GIT/x", ""]
)
def test_state_dir_stays_inside_the_repository(value: str) -> None:
    with pytest.raises(ValueError, match="relative path inside the repository"):
        check_state_dir(value)
    assert check_state_dir("build/fixbot-state/") == "build/fixbot-state"


def test_action_ignores_trust_settings_from_the_pull_requests_files(tmp_path: Path) -> None:
    (tmp_path / ".fixbot.toml").write_text(
        'api-base = "http://attacker.example/v1"\nmodel = "openai/x"\ntimeout = 42\n'
    )
    warnings: list[str] = []
    env = {"INPUT_CHECK-COMMAND": "true"}
    settings = load_settings(tmp_path, {}, env, action=True, warnings=warnings)
    assert settings.api_base is None and settings.model is None
    assert settings.timeout == 42  # behaviour settings still come from the repository
    assert len(warnings) == 1 and "api-base, model" in warnings[0]
    # the workflow itself may set them, and `fixbot run` on one's own checkout reads the file
    env["INPUT_API-BASE"] = "http://127.0.0.1:9/v1"
    assert load_settings(tmp_path, {}, env, action=True).api_base == "http://127.0.0.1:9/v1"
    assert load_settings(tmp_path, {"check": "t"}, {}).api_base == "http://attacker.example/v1"


def test_an_input_the_workflow_gives_wins_even_when_it_equals_the_default(tmp_path: Path) -> None:
    """An input the workflow gives is the workflow's even when it equals the default: taken for
    "not given", it would let a pull request's `.fixbot.toml` override the workflow's value."""
    (tmp_path / ".fixbot.toml").write_text("timeout = 42\n")
    env = {"INPUT_CHECK-COMMAND": "true", "INPUT_TIMEOUT": shown_default(spec("timeout").default)}
    assert load_settings(tmp_path, {}, env, action=True).timeout == 600
    env["INPUT_TIMEOUT"] = ""  # not given (action.yml's empty default): the repository decides
    assert load_settings(tmp_path, {}, env, action=True).timeout == 42


def test_whether_a_failure_is_reported_is_the_workflows_alone(tmp_path: Path) -> None:
    """A pull request's `.fixbot.toml` set `fail-on-escalation = false` over the workflow's
    explicit `true`, and the job went green."""
    (tmp_path / ".fixbot.toml").write_text(
        'fail-on-escalation = false\non-escalation = "none"\nreview = false\n'
    )
    warnings: list[str] = []
    env = {"INPUT_CHECK-COMMAND": "true", "INPUT_FAIL-ON-ESCALATION": "true"}
    settings = load_settings(tmp_path, {}, env, action=True, warnings=warnings)
    assert settings.fail_on_escalation is True
    assert settings.on_escalation.value == "pull-request" and settings.review is True
    assert "fail-on-escalation, on-escalation, review" in warnings[0]


def test_trust_settings_from_the_steps_environment_are_ignored(tmp_path: Path) -> None:
    """An earlier step (`pip install -e .` of the pull request) wrote FIXBOT_* into GITHUB_ENV:
    in the Action only behaviour settings are read from there."""
    env = {
        "INPUT_CHECK-COMMAND": "true",
        "FIXBOT_API_BASE": "http://attacker.example/v1",
        "FIXBOT_RUN_AS": "self",
        "FIXBOT_TIMEOUT": "42",
    }
    warnings: list[str] = []
    settings = load_settings(tmp_path, {}, env, action=True, warnings=warnings)
    assert settings.api_base is None and settings.run_as == "auto"
    assert settings.timeout == 42
    assert warnings == [
        "ignored FIXBOT_API_BASE, FIXBOT_RUN_AS: in the Action these settings come from the "
        "step's `with:` inputs only; the environment may have been written by an earlier step "
        "(GITHUB_ENV)"
    ]
    env["INPUT_API-BASE"] = "http://127.0.0.1:9/v1"
    assert load_settings(tmp_path, {}, env, action=True).api_base == "http://127.0.0.1:9/v1"
    # on one's own machine the environment is the user's
    assert load_settings(tmp_path, {"check": "t"}, env).api_base == "http://attacker.example/v1"


def test_the_action_and_the_cli_have_a_wall_time_budget(tmp_path: Path) -> None:
    """A slow local model must not keep a CLI run going for 10 minutes unbounded."""
    env = {"INPUT_CHECK-COMMAND": "true"}
    assert load_settings(tmp_path, {}, env, action=True).max_duration == 1200
    assert load_settings(tmp_path, {"check": "t"}, {}).max_duration == 1200


def test_the_gate_settings_come_from_the_workflow_only() -> None:
    assert read_gates({}).allow_forks is False
    assert read_gates({}) == Gates(
        **{name: spec(name).action_default for name in Gates.model_fields}
    )  # the Action's defaults
    assert read_gates({"INPUT_ALLOW-FORKS": "true"}).allow_forks is True
    assert read_gates({"FIXBOT_ALLOW_FORKS": "true"}).allow_forks is False  # GITHUB_ENV
    assert read_gates({"INPUT_MAX-FIXES-PER-PR": "2"}).max_fixes_per_pr == 2
    with pytest.raises(ConfigError, match="INPUT_ALLOW-FORKS"):
        read_gates({"INPUT_ALLOW-FORKS": "maybe"})


def test_every_gate_setting_is_a_setting_the_workflow_alone_sets() -> None:
    """A gate decides before the branch is checked out: its setting is trust-bearing, typed as
    the `Settings` field of the same name."""
    for name, field in Gates.model_fields.items():
        assert spec(name).surface.trust, name
        assert field.annotation == Settings.model_fields[name].annotation, name


# A flag inside a sentence (after a space, a backtick or a parenthesis), not a git argument
# written as its own string literal ("--name-only").
FLAG = re.compile(r"(?<=[\s`(])--([a-z][a-z0-9-]+)")
NOT_OURS = {
    *("pid", "fork", "kill-child", "mount-proc", "user", "map-current-user"),  # unshare(1)
    "version",  # `fixbot --version`
    "fix",  # `ruff check --fix`
    "no-verify",  # git commit --no-verify, in a docstring
    "test",  # `node --test`
    *("show", "env", "run"),  # jest's `--showConfig`, `--env`, `--runInBand` (camelCase)
    "force",  # "never --force", in docs
    "stat",  # `git diff --stat`
    "runxfail",  # pytest's `--runxfail` (fixbot/tamper/xfailed.py)
    "stage",  # `git ls-files --stage` (the clone's index, fixbot/process/index.py)
    "no-local",  # `git clone --no-local` (fixbot's clone)
    # git's, in the hand-over the commands' shell runs (fixbot/process/handover.py)
    *("git-path", "no-tags", "quiet", "ff-only"),
    "stdin",  # `git check-ignore --stdin`
    *("check-only", "diff"),  # a formatter's own `--diff` / `--check-only` (agent/formatdiff.py)
    *("ci", "format", "output", "reporter"),  # jest's and vitest's flags fixbot adds to them
    "coverage",  # jest's `--coverage`, vitest's `--coverage.enabled` (agent/nodecov.py)
    "include",  # `grep --include='*_test.go'` (agent/gocov.py)
    "tests",  # `bash scripts/setup.sh --tests` (README command 2)
    "deselect",  # `pytest --deselect`, a cheat fixbot looks for
    "reuid",  # `setpriv --reuid`, how root drops to the commands' user in their namespace
    "pdeathsig",  # `setpriv --pdeathsig keep`
    "all",  # `git log --all`
    "preserve-env",  # `sudo --preserve-env`
    "fixbot-reexec",  # argv of fixbot's own re-execution, never the user's (fixbot.cli)
    "yes",  # `apt-get install --yes`
    *("filter", "offline"),  # `pnpm --filter`, `npm --offline exec` (run/npxbin.py)
    "no-install-recommends",  # `apt-get install --no-install-recommends`
    "save-dev",  # `npm install --save-dev`, the recovery plan for a missing npm package
    "dev",  # `cargo add --dev`, the recovery plan for an undeclared crate
    # pip's, npm's and git's own flags in the bench's preparation of a case (fixbot/bench)
    *("disable-pip-version-check", "without-pip", "ignore-scripts", "loglevel", "no-audit"),
    *("no-fund", "silent", "whitespace", "git", "porcelain", "untracked-files"),
    # the bench's deterministic tier: ruff's and npx's own flags
    *("exit-zero", "extend-exclude", "no-cache", "select", "unsafe-fixes", "no-install"),
    # the ecosystems' default set-up and missing-package advice (fixbot/ecosystems/)
    *("frozen-lockfile", "group"),
    # git config's, reading the workspace's identity as data (fixbot/process/worlds.py)
    *("file", "no-includes"),
    # git's index plumbing for the unwritten clone (`checkout-index --index`, `diff
    # --no-index`; fixbot/process/index.py, fixbot/process/readback.py)
    *("index", "no-index"),
    # libtest's `--exact`, rustc's `--print`, cargo's `--target` (agent/rustcov.py); node's
    # `--require` of the coverage hook (agent/v8js.py)
    *("exact", "print", "target", "require"),
    # unshare(1)'s and mount(8)'s, hiding the homes (fixbot/process/homes.py)
    *("mount", "move", "rbind", "propagation"),
    # npm's, a monorepo package's check (`npm test --prefix packages/x`; fixbot/agent/context.py)
    "prefix",
    # jest's and vitest's, naming fixbot's reporter on their command line (README, the runners)
    *("reporters", "reporter"),
    # pytest's, collecting a module's doctests (fixbot/tamper/doctests.py)
    "doctest-modules",
    # npx's, options that can change what it runs (fixbot/run/npxbin.py)
    *("package", "ignore-existing"),
    # pytest's, naming its configuration file (fixbot/run/supportfiles.py)
    "config-file",
}


def test_every_flag_a_message_names_exists() -> None:
    """Messages, templates and docs name only real flags (`--fallback-models`, not a guess)."""
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    real = {
        opt[2:]
        for command in commands.values()  # every subcommand's flags (`fixbot stats --since`)
        for action in command._actions
        for opt in action.option_strings
    }
    real |= {f"no-{name}" for name in real}
    sources = [p for p in (ROOT / "fixbot").rglob("*") if p.suffix in (".py", ".j2")]
    sources = [p for p in sources if p.name not in ("git.py", "commits.py", "checkout.py")]
    # the test runners' own flags (`tsc --pretty`, `node --test-reporter`) describe their output;
    # the commands the inference writes are other tools' (`prettier --write`, `yarn install
    # --frozen-lockfile`)
    sources = [p for p in sources if "dialects" not in p.parts and "infer" not in p.parts]
    named: dict[str, str] = {}
    for path in [*sources, ROOT / "README.md"]:
        for found in FLAG.findall(path.read_text(encoding="utf-8")):
            named.setdefault(found, path.name)
    unknown = {flag: where for flag, where in named.items() if flag not in real | NOT_OURS}
    assert unknown == {}


@pytest.mark.slow
def test_help_shows_metavars_defaults_and_examples() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fixbot", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert "--fix-commands CMD, --fix-command CMD" in done.stdout
    assert "(default: 5)" in done.stdout
    assert "e.g. 'pytest -q'" in done.stdout
    assert "FIX_COMMANDS" not in done.stdout.replace("FIXBOT_", "")
