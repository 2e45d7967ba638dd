"""The ecosystem registry: every fact about a language comes from its module in
`fixbot/ecosystems/`, and a new ecosystem is one module (`test_a_new_ecosystem_is_one_module`
drops tests/data/extending/ecosystems/maven.py into the folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixbot import ecosystems
from fixbot.core.failure import MissingDependency
from fixbot.ecosystems import registry
from fixbot.ecosystems.base import Ecosystem, first
from fixbot.logs.dialects import BY_NAME
from tests.fakes.plugin import EXTENDING, AddModule
from tests.test_layers import graph

ALL = registry.all_ecosystems()


def test_the_registry_holds_one_ecosystem_per_module() -> None:
    assert registry.names() == ["go", "node", "php", "python", "ruby", "rust"]
    modules = sorted(p.stem for p in Path(ecosystems.__path__[0]).glob("*.py"))
    assert [m for m in modules if m not in ("__init__", "base", "registry", "tree")] == (
        registry.names()
    )
    assert registry.find("rust") is ALL[-1] and registry.find("npm") is None


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/api.rs", True),  # Cargo's integration tests
        ("crates/core/tests/parse.rs", True),
        ("src/lib.rs", False),
        ("tests/helpers.mjs", True),
        ("test/setup.cts", True),
        ("src/button.test.tsx", True),
        ("src/index.mjs", False),
        ("tests/test_api.py", True),
        ("tests/helpers.py", True),
        ("pkg/parse_test.go", True),
        ("pkg/parse.go", False),
        ("spec/models/user_spec.rb", True),
        ("test/unit/parser_test.rb", True),
        ("lib/parser.rb", False),
        ("tests/Unit/ParserTest.php", True),
        ("tests/fixtures/data.json", False),
        ("docs/testing.md", False),
    ],
)
def test_test_files_come_from_every_ecosystem(path: str, test: bool) -> None:
    assert registry.is_test_file(path) is test


@pytest.mark.parametrize(
    ("path", "manifest"),
    [
        ("pyproject.toml", True),
        ("requirements/test.in", True),
        ("dev-requirements.txt", True),
        ("web/package-lock.json", True),
        ("Cargo.lock", True),
        ("go.sum", True),
        ("Gemfile.lock", True),
        ("composer.json", True),
        ("docs/requirements.md", False),
        ("src/package.py", False),
    ],
)
def test_manifests_and_lock_files_come_from_every_ecosystem(path: str, manifest: bool) -> None:
    assert registry.is_manifest(path) is manifest


def test_each_ecosystems_dialects_are_registered_dialects_of_no_other() -> None:
    claimed = [name for e in ALL for name in e.dialects]
    assert set(claimed) <= set(BY_NAME) and len(claimed) == len(set(claimed))


@pytest.mark.parametrize("ecosystem", ALL, ids=registry.names())
def test_each_ecosystems_expressions_compile(ecosystem: Ecosystem) -> None:
    words = [ecosystem.tests.names, *ecosystem.tests.skips, *ecosystem.runner_config]
    if ecosystem.missing is not None:
        words += [w for w in (ecosystem.missing.said, ecosystem.missing.failed) if w]
        assert "name" in ecosystem.missing.loader.groupindex
    assert all(re.compile(word) for word in words)


@pytest.mark.parametrize("ecosystem", [e for e in ALL if e.missing], ids=lambda e: e.name)
def test_each_ecosystems_advice_names_the_package_and_the_setting(ecosystem: Ecosystem) -> None:
    assert ecosystem.missing is not None
    for declared in (False, True):
        missing = MissingDependency(
            ecosystem=ecosystem.name, name="pkgx", manifest="m", declared=declared
        )
        advice = ecosystem.missing.advice(missing, "--setup-command")
        assert "`pkgx`" in advice


def files(root: Path, *names: str) -> Path:
    """`root` holding the empty files `names`."""
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


@pytest.mark.parametrize(
    ("tree", "found", "setup", "check"),
    [
        (("pyproject.toml",), ["python"], ["python -m pip install -e ."], ["python -m pytest"]),
        (
            ("requirements-dev.txt", "requirements.txt"),
            ["python"],
            ["python -m pip install -r requirements-dev.txt"],
            ["python -m pytest"],
        ),
        (("package.json", "yarn.lock"), ["node"], ["yarn install --frozen-lockfile"], ["npm test"]),
        (("package.json", "package-lock.json"), ["node"], ["npm ci"], ["npm test"]),
        (("go.mod",), ["go"], ["go mod download"], ["go test ./..."]),
        (("Cargo.toml",), ["rust"], ["cargo fetch"], ["cargo test"]),
        (("Gemfile", "spec/a_spec.rb"), ["ruby"], ["bundle install"], ["bundle exec rspec"]),
        (("Gemfile", "Rakefile"), ["ruby"], ["bundle install"], ["bundle exec rake test"]),
        (
            ("pyproject.toml", "package.json"),
            ["node", "python"],
            ["npm install", "python -m pip install -e ."],
            ["npm test", "python -m pytest"],
        ),
        (("README.md",), [], [], []),
    ],
)
def test_a_project_is_recognised_with_its_default_commands(
    tmp_path: Path, tree: tuple[str, ...], found: list[str], setup: list[str], check: list[str]
) -> None:
    root = files(tmp_path, *tree)
    recognised = registry.recognised(root)
    assert [e.name for e in recognised] == found
    assert [e.default_setup(root) for e in recognised] == setup
    assert [e.default_check(root) for e in recognised] == check


def test_the_missing_package_is_read_by_its_ecosystems_loader() -> None:
    # Ruby's message for a `require` of a gem that is not installed (kernel_require.rb)
    ruby = (
        "/usr/lib/ruby/3.2.0/rubygems/core_ext/kernel_require.rb:136:in `require': "
        "cannot load such file -- rspec/expectations (LoadError)"
    )
    found = registry.missing_package(ruby)
    assert found is not None and (found[0].name, found[1]) == ("ruby", "rspec")
    assert ruby[found[2] :].startswith("cannot load such file")
    relative = "in `require_relative': cannot load such file -- /w/lib/helper (LoadError)"
    assert registry.missing_package(relative) is None
    both = "Cannot find module 'left-pad/x'\nModuleNotFoundError: No module named 'yaml.x'"
    found = registry.missing_package(both)
    assert found is not None and (found[0].name, found[1]) == ("node", "left-pad")


def test_a_skip_in_any_ecosystem_is_a_skip() -> None:
    skip = re.compile(registry.skips(), re.MULTILINE)
    for text in ("#[test]\n#[ignore]\nfn slow() {}", "  skip 'flaky'", "it.skip('x', f)"):
        assert skip.search(text), text
    assert not skip.search("def skip_header(lines):\n    return lines[1:]")


def test_generated_folders_are_skipped_in_the_walk(tmp_path: Path) -> None:
    root = files(tmp_path, "node_modules/x/index.py", "target/debug/x.rs", "src/app.py")
    walked = {p.relative_to(root).as_posix() for p, _, _ in registry.tree(root).folders()}
    assert walked == {".", "src"}


def test_a_new_ecosystem_is_one_module(tmp_path: Path, add_module: AddModule) -> None:
    root = files(tmp_path, "pom.xml", "src/test/java/app/ParserTest.java")
    assert registry.recognised(root) == () and not registry.is_test_file("src/test/java/X.java")
    # The whole change: the module `maven.py` in `fixbot/ecosystems/`.
    add_module(ecosystems, EXTENDING / "ecosystems" / "maven.py", registry.all_ecosystems)
    maven = registry.find("maven")
    assert maven is not None and registry.recognised(root) == (maven,)
    assert (maven.default_setup(root), maven.default_check(root)) == (
        "mvn -B -q dependency:go-offline",
        "mvn -B test",
    )
    assert registry.is_test_file("src/test/java/app/ParserTest.java")
    assert registry.is_test_file("src/test/java/app/Fixtures.java")  # under src/test
    assert not registry.is_test_file("src/main/java/app/Parser.java")
    assert registry.is_manifest("pom.xml") and "target" in registry.generated()
    assert re.search(registry.skips(), "  @Disabled\n  void slow() {}")


def test_the_ecosystems_stand_on_core_alone_and_core_on_none_of_them() -> None:
    """They share the lowest layer with `core` (docs/ARCHITECTURE.md): an ecosystem imports
    nothing of fixbot's but `core` and its own package, and `core` imports no ecosystem."""
    imports = graph()
    ours = {name: found for name, found in imports.items() if name.startswith("fixbot.ecosystems")}
    assert len(ours) >= 9
    assert all(t.startswith(("fixbot.core", "fixbot.ecosystems")) for f in ours.values() for t in f)
    core = [t for n, f in imports.items() if n.startswith("fixbot.core") for t in f]
    assert core and not any(t.startswith("fixbot.ecosystems") for t in core)


def test_a_root_may_be_a_predicate_over_its_names() -> None:
    """A reader that follows no link (zero configuration's) asks with its own `exists`; `first`
    says which file chose the command."""
    names = {"package.json", "pnpm-lock.yaml"}
    node = registry.find("node")
    assert node is not None and registry.recognised(names.__contains__) == (node,)
    assert first(node.commands.setup, names.__contains__) == (
        "pnpm-lock.yaml",
        "pnpm install --frozen-lockfile",
    )
    python = registry.find("python")
    assert python is not None
    assert first(python.commands.check, set().__contains__) == ("", "python -m pytest")
    assert python.default_check(set().__contains__) == "python -m pytest"
