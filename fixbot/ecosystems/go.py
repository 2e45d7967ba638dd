"""Go modules, tested by `go test` (https://pkg.go.dev/cmd/go#hdr-Test_packages)."""

from __future__ import annotations

import re

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Missing, Tests
from fixbot.ecosystems.tree import Tree


def holds(name: str, tree: Tree) -> bool:
    """A package under the module's own path (`module example.com/m` in go.mod)."""
    module = re.search(r"^module\s+(\S+)", tree.read("go.mod"), re.MULTILINE)
    return module is not None and (name == module[1] or name.startswith(module[1] + "/"))


def advice(missing: MissingDependency, where: str) -> str:
    """Require the providing module in go.mod."""
    return f"require the module that provides `{missing.name}` in go.mod (`go get {missing.name}`)"


ECOSYSTEM = Ecosystem(
    name="go",
    markers=("go.mod",),
    tests=Tests(
        names=r".*_test\.go",
        sources=(),
        skips=(r"\bt\.Skip\w*\(",),
        definitions=(r"^func\s+(Test\w+)\s*\(",),
        assertions=(r"\bt\.(?:Error|Fatal)\w*\(",),
    ),
    dependencies=Dependencies(manifests=("go.mod",), locks=("go.sum",), declared_in=("go.mod",)),
    commands=Commands(setup=(("go.mod", "go mod download"),), check=(("go.mod", "go test ./..."),)),
    missing=Missing(
        loader=re.compile(r"no required module provides package (?P<name>[\w./~-]+)"),
        advice=advice,
        said=r"no required module provides package \S+; to add it",
        failed=r"no required module provides package|cannot find package",
        holds=holds,
    ),
    dialects=("go",),
    runner_config=(r"\.golangci\.ya?ml",),
)
