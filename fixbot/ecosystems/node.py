"""JavaScript and TypeScript: npm, yarn, pnpm and bun projects, tested by jest, vitest, mocha,
ava, tap or node's own runner (https://nodejs.org/api/test.html#running-tests-from-the-command-line)."""

from __future__ import annotations

import re

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Missing, Tests
from fixbot.ecosystems.tree import Tree

# A bare package name: `./x`, `~/x`, `node:fs` and a bundler's `@/x` alias are files.
BARE = r"(?![./~]|node:|@/)[^'\s]+"
INSTALLED = "node_modules"  # where npm, yarn and pnpm install a project's packages


def top(name: str) -> str:
    """The package of an import (`@scope/name` kept whole, `lodash/fp` -> `lodash`)."""
    parts = name.split("/")
    return "/".join(parts[:2] if name.startswith("@") else parts[:1])


def holds(name: str, tree: Tree) -> bool:
    """The repository's own package (a self-reference) or one of its workspace packages, or
    one installed in `node_modules` (then it is found, and the import fails for another
    reason)."""
    if (tree.root / INSTALLED / name / "package.json").is_file():
        return True
    quoted = re.compile(rf'"name"\s*:\s*"{re.escape(name)}"')
    return any(
        "package.json" in files and quoted.search(tree.read(root / "package.json"))
        for root, _, files in tree.folders()
    )


def advice(missing: MissingDependency, where: str) -> str:
    """Declare the package in package.json and install it in the set-up."""
    name = missing.name
    if missing.declared:
        return f"`{name}` is in package.json but not installed: run `npm ci` in {where}"
    return f"add `{name}` to package.json (`npm install --save-dev {name}`), `npm ci` in {where}"


ECOSYSTEM = Ecosystem(
    name="node",
    markers=("package.json",),
    tests=Tests(
        names=r".*\.(?:test|spec)\.[cm]?[jt]sx?",
        sources=(".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"),
        folders=frozenset({"tests", "test", "testing", "__tests__", "spec"}),
        skips=(r"\b(?:it|test|describe)\.(?:skip|todo|only)\s*\(|\bx(?:it|describe|test)\s*\(",),
        assertions=(r"\bexpect\s*\(",),
    ),
    dependencies=Dependencies(
        manifests=("package.json",),
        locks=(
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "bun.lock",
            "bun.lockb",
        ),
        declared_in=("package.json",),
        generated=frozenset({INSTALLED, "dist", "build"}),
        installed=INSTALLED,
    ),
    commands=Commands(
        setup=(
            ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
            ("yarn.lock", "yarn install --frozen-lockfile"),
            ("bun.lock", "bun install --frozen-lockfile"),
            ("bun.lockb", "bun install --frozen-lockfile"),
            ("package-lock.json", "npm ci"),
            ("package.json", "npm install"),
        ),
        check=(("package.json", "npm test"),),
    ),
    missing=Missing(
        loader=re.compile(rf"Cannot find (?:module|package) '(?P<name>{BARE})'"),
        advice=advice,
        said=rf"Cannot find (?:module|package) '{BARE}'",
        failed=r"Cannot find module|Can't resolve '",
        top=top,
        holds=holds,
    ),
    dialects=("jest", "vitest", "mocha", "tap", "ava", "node", "tsc", "eslint"),
    coverage=(
        "V8's own coverage, NODE_V8_COVERAGE; jest's and vitest's own V8 coverage for their "
        "checks (`fixbot.agent.nodecov`)"
    ),
    runner_config=(
        r"(?:jest|vitest|karma|playwright|cypress|ava)\.config\.[cm]?[jt]s(?:on)?",
        r"\.mocharc(?:\.\w+)?|karma\.conf\.[jt]s",
        r"\.eslintrc(?:\.\w+)?|eslint\.config\.[cm]?[jt]s",
        r"\.prettierrc(?:\.\w+)?|prettier\.config\.[cm]?js|\.stylelintrc(?:\.\w+)?",
        # the package managers' own configuration: `script-shell=/bin/true` in .npmrc runs
        # no script of `npm test` and exits 0; yarn's and bun's say the same of theirs
        r"\.npmrc|\.yarnrc(?:\.ya?ml)?|bunfig\.toml",
        # the transforms the runners put the tests through: a babel plugin (babel-jest, jest's
        # default) or a vite plugin (vitest reads vite.config.* too) rewrites a test as it loads
        r"babel\.config\.[cm]?js(?:on)?|\.babelrc(?:\.[cm]?js(?:on)?)?|\.swcrc",
        r"vite\.config\.[cm]?[jt]s",
    ),
)
