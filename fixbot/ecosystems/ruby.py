"""Ruby: Bundler projects, tested by RSpec (`spec/**/*_spec.rb`) or minitest through rake
(`test/**/*_test.rb`) (https://bundler.io/guides/gemfile.html, https://rspec.info/features/3-13/rspec-core/command-line/pattern/)."""

from __future__ import annotations

import re

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Missing, Tests, first_part
from fixbot.ecosystems.tree import Tree


def holds(name: str, tree: Tree) -> bool:
    """A file `name.rb` or a folder `name/` of Ruby files in the repository (`lib/` is on the
    load path of a gem's tests)."""
    for root, dirs, files in tree.folders():
        if f"{name}.rb" in files:
            return True
        if name in dirs and next((root / name).glob("*.rb"), None) is not None:
            return True
    return False


def advice(missing: MissingDependency, where: str) -> str:
    """Declare the gem in the Gemfile and install the bundle in the set-up."""
    name = missing.name
    if missing.declared:
        return f"`{name}` is in the Gemfile but not installed: run `bundle install` in {where}"
    return (
        f"add the gem that provides `{name}` to the Gemfile's test group "
        f"(`bundle add {name} --group test`), `bundle install` in {where}"
    )


ECOSYSTEM = Ecosystem(
    name="ruby",
    markers=("Gemfile",),
    tests=Tests(
        names=r".*_spec\.rb|.*_test\.rb|test_.*\.rb",
        sources=(".rb",),
        folders=frozenset({"spec", "test"}),
        skips=(r"^\s*(?:skip|pending)\s+[\"']|^\s*x(?:it|describe|context|specify)\s+[\"']",),
    ),
    dependencies=Dependencies(
        manifests=("Gemfile",),
        locks=("Gemfile.lock",),
        declared_in=("Gemfile",),
    ),
    commands=Commands(
        setup=(("Gemfile", "bundle install"),),
        check=(
            (".rspec", "bundle exec rspec"),
            ("spec", "bundle exec rspec"),
            ("Rakefile", "bundle exec rake test"),
        ),
    ),
    missing=Missing(
        # `require "x"` of a gem that is not installed; a `require_relative` path starts with
        # `/` or `.`, a file of the project
        loader=re.compile(r"cannot load such file -- (?P<name>(?![./])[\w./-]+)"),
        advice=advice,
        failed=r"\bLoadError\b|cannot load such file",
        top=first_part,
        holds=holds,
    ),
    runner_config=(r"\.rspec|\.rubocop\.ya?ml",),
)
