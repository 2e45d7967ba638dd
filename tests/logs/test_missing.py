"""A missing dependency against a missing module of the code, on real loader output
(`tests/data/logs/`), decided with real temporary repositories (`fixbot.logs.missing`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.failure import CheckResult, ErrorClass
from fixbot.logs.digest import digest
from fixbot.logs.missing import declaration, named
from fixbot.policy.recovery import recovery_plan
from tests.fakes.paths import DATA

LOGS = DATA / "logs"
# (sample, ecosystem, name the loader reported missing)
SAMPLES = [
    ("import-pretend.log", "python", "pretend"),
    ("import.log", "python", "yaml_loader"),
    ("missing_dependency-npm.log", "node", "left-pad"),
    ("missing_dependency-npm-esm.log", "node", "left-pad"),
    ("missing_dependency-go.log", "go", "github.com/stretchr/testify/assert"),
    ("missing_dependency-cargo.log", "rust", "pretty_assertions"),
    ("missing_dependency-pytest-plugin.log", "fixture", "mocker"),
    ("missing_dependency-program-python.log", "program", "pandoc"),
    ("missing_dependency-program-node.log", "program", "pandoc"),
    ("missing_dependency-program-go.log", "program", "pandoc"),
    ("missing_dependency-program-env-node.log", "program", "node"),
]


def failure_in(repo: Path, sample: str):  # type: ignore[no-untyped-def]
    """The digested failure of a vendored log, as if the check had printed it in `repo`."""
    log = repo / "check.log"
    log.write_bytes((LOGS / sample).read_bytes())
    result = CheckResult(command="t", exit_code=1, duration_s=1.0, log_path=log, output_bytes=1)
    return digest(result, repo)


def files(root: Path, tree: dict[str, str]) -> Path:
    """`root` holding `tree` (path -> text)."""
    for path, text in tree.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.mark.parametrize(("sample", "ecosystem", "name"), SAMPLES)
def test_the_loaders_name_the_missing_package(sample: str, ecosystem: str, name: str) -> None:
    assert named((LOGS / sample).read_text()) == (ecosystem, name)


def test_a_test_dependency_not_in_the_repository_stops_before_any_fixer(tmp_path: Path) -> None:
    repo = files(tmp_path, {"src/packaging/tags.py": "", "tests/requirements.txt": "pytest\n"})
    failure = failure_in(repo, "import-pretend.log")
    c = failure.classification
    assert (c.error_class, c.category) == (ErrorClass.PERMANENT, "missing_dependency")
    assert c.missing is not None and c.missing.name == "pretend"
    assert (c.missing.manifest, c.missing.declared) == ("tests/requirements.txt", False)
    plan = recovery_plan(failure, 600.0)
    assert plan is not None and plan.category == "missing_dependency"
    assert "`pretend`" in plan.chosen.action and "tests/requirements.txt" in plan.chosen.action
    assert "--setup-command" in plan.chosen.action and not plan.chosen.automated


def test_a_declared_but_uninstalled_dependency_names_the_set_up(tmp_path: Path) -> None:
    repo = files(tmp_path, {"tests/requirements.txt": "coverage\npretend>=1.0\npytest\n"})
    failure = failure_in(repo, "import-pretend.log")
    missing = failure.classification.missing
    assert missing is not None and (missing.manifest, missing.declared) == (
        "tests/requirements.txt",
        True,
    )
    plan = recovery_plan(failure, 600.0, in_action=True)
    assert plan is not None
    assert plan.chosen.action.startswith("`pretend` is listed in tests/requirements.txt")
    assert "`setup-command`" in plan.chosen.action


@pytest.mark.parametrize(
    ("sample", "tree"),
    [
        ("import.log", {"app/yaml_loader.py": ""}),  # a module of the code: a typo or a move
        ("import-pretend.log", {"tests/pretend.py": ""}),  # pytest puts tests/ on sys.path
        ("missing_dependency-npm.log", {"node_modules/left-pad/package.json": "{}"}),
        ("missing_dependency-npm.log", {"packages/pad/package.json": '{"name": "left-pad"}'}),
        ("missing_dependency-go.log", {"go.mod": "module github.com/stretchr/testify\n"}),
        ("missing_dependency-cargo.log", {"src/pretty_assertions.rs": ""}),
        (
            "missing_dependency-cargo.log",
            {"Cargo.toml": '[dev-dependencies]\npretty_assertions = "1"\n'},
        ),
    ],
)
def test_a_name_the_repository_holds_is_the_codes_problem(
    tmp_path: Path, sample: str, tree: dict[str, str]
) -> None:
    c = failure_in(files(tmp_path, tree), sample).classification
    assert c.error_class is ErrorClass.FIXABLE and c.category == "import", c
    assert c.missing is None


@pytest.mark.parametrize(
    ("sample", "tree", "says"),
    [
        (
            "missing_dependency-npm.log",
            {"package.json": '{"name": "pad"}'},
            "npm install --save-dev left-pad",
        ),
        (
            "missing_dependency-npm-esm.log",
            {"package.json": '{"devDependencies": {"left-pad": "1"}}'},
            "npm ci",
        ),
        (
            "missing_dependency-go.log",
            {"go.mod": "module example.com/adder\n"},
            "go get github.com/stretchr/testify/assert",
        ),
        (
            "missing_dependency-cargo.log",
            {"Cargo.toml": '[package]\nname = "adder"\n'},
            "cargo add --dev pretty_assertions",
        ),
    ],
)
def test_a_missing_package_of_npm_go_and_cargo_is_permanent(
    tmp_path: Path, sample: str, tree: dict[str, str], says: str
) -> None:
    failure = failure_in(files(tmp_path, tree), sample)
    assert failure.classification.category == "missing_dependency"
    plan = recovery_plan(failure, 600.0)
    assert plan is not None and says in plan.chosen.action


def test_the_most_specific_requirements_file_is_named(tmp_path: Path) -> None:
    repo = files(tmp_path, {"requirements.txt": "attrs\n", "requirements-dev.txt": "black\n"})
    assert declaration("python", "pretend", repo) == ("requirements-dev.txt", False)
    files(repo, {"pyproject.toml": '[dependency-groups]\ntest = ["pretend", "pytest"]\n'})
    assert declaration("python", "pretend", repo) == ("pyproject.toml", True)
    assert declaration("python", "pre", repo) == ("requirements-dev.txt", False)


@pytest.mark.parametrize(
    "line",
    [
        "Error: Cannot find module './lib/pad'",  # a file of the project
        "Error: Cannot find module '/home/runner/work/pad/pad/lib.js'",
        "Error: Cannot find module '@/components/pad'",  # a bundler's path alias
        "Error: Cannot find module '~/pad'",
        "ImportError: cannot import name 'pad' from 'strings'",  # the module is there
    ],
)
def test_files_of_the_project_and_aliases_are_no_missing_package(line: str) -> None:
    assert named(line) is None


# Ruby's `require` of a gem that is not installed (rubygems' kernel_require.rb), as a check
# prints it; the ecosystem came as one module (`fixbot/ecosystems/ruby.py`)
RUBY = (
    "An error occurred while loading ./spec/parser_spec.rb.\n"
    "Failure/Error: require 'webmock/rspec'\n\nLoadError:\n"
    "  cannot load such file -- webmock/rspec\n"
    "# /usr/lib/ruby/3.2.0/rubygems/core_ext/kernel_require.rb:136:in `require'\n"
)


def test_a_missing_gem_is_read_and_advised_by_its_module(tmp_path: Path) -> None:
    repo = files(tmp_path, {"Gemfile": "source 'https://rubygems.org'\ngem 'rspec'\n"})
    log = repo / "check.log"
    log.write_text(RUBY)
    result = CheckResult(command="t", exit_code=1, duration_s=1.0, log_path=log, output_bytes=1)
    failure = digest(result, repo)
    c = failure.classification
    assert (c.category, c.missing and c.missing.ecosystem) == ("missing_dependency", "ruby")
    assert c.missing is not None and (c.missing.name, c.missing.manifest) == ("webmock", "Gemfile")
    plan = recovery_plan(failure, 600.0)
    assert plan is not None and "bundle add webmock --group test" in plan.chosen.action
    files(repo, {"lib/webmock.rb": ""})  # the project's own file: a load path problem
    assert digest(result, repo).classification.category == "import"


def test_a_plugins_fixture_not_found_is_the_missing_plugin(tmp_path: Path) -> None:
    repo = files(tmp_path, {"requirements-dev.txt": "pytest\n", "test_a.py": ""})
    failure = failure_in(repo, "missing_dependency-pytest-plugin.log")
    c = failure.classification
    assert (c.error_class, c.category) == (ErrorClass.PERMANENT, "missing_dependency")
    assert c.missing is not None
    assert (c.missing.ecosystem, c.missing.name) == ("python", "pytest-mock")
    assert c.missing.provides == "the fixture `mocker`"
    plan = recovery_plan(failure, 600.0)
    assert plan is not None and "pytest-mock" in plan.chosen.action
    assert "requirements-dev.txt" in plan.chosen.action


@pytest.mark.parametrize(
    "sample",
    [
        "missing_dependency-program-python.log",
        "missing_dependency-program-node.log",
        "missing_dependency-program-go.log",
        "missing_dependency-program-env-node.log",
    ],
)
def test_a_program_the_tests_run_that_is_not_installed_is_the_environments(
    tmp_path: Path, sample: str
) -> None:
    failure = failure_in(files(tmp_path, {"src/render.py": ""}), sample)
    c = failure.classification
    assert (c.error_class, c.category) == (ErrorClass.PERMANENT, "missing_dependency"), c
    assert c.missing is not None and c.missing.ecosystem == "program"
    plan = recovery_plan(failure, 600.0, in_action=True)
    assert plan is not None and f"`{c.missing.name}`" in plan.chosen.action
    assert "system-packages" in plan.chosen.action


@pytest.mark.parametrize(
    ("sample", "tree"),
    [
        # the fixture is the project's own, out of pytest's reach: the code's problem
        ("missing_dependency-pytest-plugin.log", {"tests/helpers.py": "def mocker(x):\n"}),
        # the program is the project's own script, run from the wrong folder
        ("missing_dependency-program-node.log", {"bin/pandoc": "#!/bin/sh\n"}),
    ],
)
def test_a_fixture_or_program_the_repository_holds_is_the_codes(
    tmp_path: Path, sample: str, tree: dict[str, str]
) -> None:
    c = failure_in(files(tmp_path, tree), sample).classification
    assert c.error_class is ErrorClass.FIXABLE and c.missing is None, c


@pytest.mark.parametrize(
    "line",
    [
        "E       fixture 'mocker_x' not found",  # no plugin registers it: a typo
        "E       fixture 'client' not found",  # several plugins do: not ours to guess
        "E   FileNotFoundError: [Errno 2] No such file or directory: 'data.json'",  # open()
        "Error: spawn ./bin/render ENOENT",  # a path: the project's file
    ],
)
def test_other_missing_names_are_no_missing_environment(line: str) -> None:
    assert named(line) is None
