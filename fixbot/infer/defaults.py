"""Each ecosystem's default set-up and check, the last place a plan comes from.

This small table moves to the ecosystem registry (`fixbot/ecosystems/`, one module per
language, its `Commands`) when that lands; the values here are the same: (marker file at the
root, command), the first whose file exists wins, `""` for always.
"""

from __future__ import annotations

from collections.abc import Callable

from fixbot.infer.plan import Inferred, Origin, Plan

# ecosystem -> (markers, set-up choices, check choices)
DEFAULTS: dict[
    str, tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]
] = {
    "python": (
        ("pyproject.toml", "setup.py", "setup.cfg"),
        (
            ("requirements-dev.txt", "python -m pip install -r requirements-dev.txt"),
            ("pyproject.toml", "python -m pip install -e ."),
            ("setup.py", "python -m pip install -e ."),
            ("requirements.txt", "python -m pip install -r requirements.txt"),
        ),
        (("", "python -m pytest"),),
    ),
    "node": (
        ("package.json",),
        (
            ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
            ("yarn.lock", "yarn install --frozen-lockfile"),
            ("package-lock.json", "npm ci"),
            ("package.json", "npm install"),
        ),
        (("package.json", "npm test"),),
    ),
    "go": (("go.mod",), (("go.mod", "go mod download"),), (("go.mod", "go test ./..."),)),
    "rust": (("Cargo.toml",), (("Cargo.toml", "cargo fetch"),), (("Cargo.toml", "cargo test"),)),
}


def ecosystem(exists: Callable[[str], bool]) -> str | None:
    """The first ecosystem whose marker file is at the root (`exists(name)`), None for none."""
    return next(
        (name for name, (markers, _, _) in DEFAULTS.items() if any(map(exists, markers))), None
    )


def plan(name: str, exists: Callable[[str], bool]) -> Plan:
    """The ecosystem `name`'s default plan for a root where `exists(file)` says what is there."""
    _, setups, checks = DEFAULTS[name]
    detail = f"the {name} default"
    setup = [
        Inferred(cmd, Origin(file, detail=detail))
        for file, cmd in setups
        if not file or exists(file)
    ][:1]
    check = next(
        (
            Inferred(cmd, Origin(file, detail=detail))
            for file, cmd in checks
            if not file or exists(file)
        ),
        None,
    )
    return Plan(check=check, setup=tuple(setup))
