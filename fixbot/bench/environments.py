"""A case's environment, the second phase of preparing it (`fixbot.bench.prepare`): one venv or
node_modules per (interpreter, requirements) in the cache's `envs/` (`fixbot.bench.cache`),
shared by the cases that need the same, `envs/go/` the build cache and GOPATH every Go case
shares, `envs/rust/` the CARGO_HOME every Rust case shares (a Rust case's build stays in its
repository's `target/`); and the environment a case's check runs with (`check_env`).
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shlex
import shutil
import sys
from pathlib import Path

from fixbot.bench.archives import PrepareError
from fixbot.bench.cache import PASSED, PASSED_PROXY, locked, program
from fixbot.bench.corpus import Case, Ecosystem
from fixbot.process.spawn import run_command

INSTALL_TIMEOUT_S = 900.0  # one venv or node_modules install
# rustup's proxies (`cargo` in ~/.cargo/bin) find their tool chains with these, when set
PASSED_RUST = ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN")
READY = ".fixbot-bench-ready"  # written last: an environment without it is rebuilt


def interpreter(version: str | None) -> Path:
    """The Python for `version` ("3.12"; None: this one): `python3.12` on PATH (not pyenv's shim),
    else pyenv's installed one.

    Raises `PrepareError` when none is installed.
    """
    if version is None:
        return Path(sys.executable)
    found = shutil.which(f"python{version}")
    # pyenv's shim answers `which` for every installed version but runs only the selected one
    if found and Path(found).parent.name != "shims":
        return Path(found)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(pyenv.glob(f"{version}.*/bin/python{version}"), reverse=True):
        return candidate
    raise PrepareError(
        f"no Python {version}: install it (e.g. `uv python install {version}` or pyenv) so that "
        f"python{version} is on PATH"
    )


def environment(case: Case, folder: Path) -> Path:
    """The cached environment of `case` (a venv, or a folder with node_modules), built first
    if absent. Raises `PrepareError` when the install fails."""
    if case.ecosystem is Ecosystem.GO:
        return go_environment(folder)
    if case.ecosystem is Ecosystem.RUST:
        return rust_environment(folder)
    if case.ecosystem is Ecosystem.PYTHON:
        python = interpreter(case.environment.python)
        key = _key(["python", str(python.resolve()), *case.environment.requirements])
        env_dir = folder / f"py-{key}"
        build = _build_venv
    else:
        key = _key(["npm", *case.environment.requirements])
        env_dir = folder / f"npm-{key}"
        build = _build_node
    if (env_dir / READY).exists():
        return env_dir
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder / ".locks" / f"{env_dir.name}.lock"):
        if not (env_dir / READY).exists():
            if env_dir.exists():
                shutil.rmtree(env_dir)
            env_dir.mkdir()
            build(case, env_dir)
            (env_dir / READY).write_text(json.dumps(case.environment.requirements), "utf-8")
    return env_dir


def go_environment(folder: Path) -> Path:
    """`folder/go`, the build cache (`cache/`) and GOPATH (`path/`) every Go case shares: a Go
    case installs nothing, its module needs only the standard library.

    Raises `PrepareError` when no `go` is on PATH.
    """
    return _tool_chain_folder(
        folder / "go",
        ("cache", "path"),
        "go",
        "no Go tool chain: `go` is not on PATH; install Go 1.19 or newer "
        "(Debian: apt-get install golang-go)",
    )


def go_variables(env_dir: Path) -> dict[str, str]:
    """What makes `go` build and test offline and the same on every machine: modules mode,
    no proxy or checksum database (nothing is downloaded: an import outside the standard library
    fails), the installed tool chain only, no user configuration file, no cgo (no C compiler
    needed), the shared caches (https://pkg.go.dev/cmd/go#hdr-Environment_variables)."""
    return {
        "GOCACHE": str(env_dir / "cache"),
        "GOPATH": str(env_dir / "path"),
        "GOFLAGS": "-mod=mod -modcacherw",
        "GO111MODULE": "on",
        "GOPROXY": "off",
        "GOSUMDB": "off",
        "GONOSUMDB": "*",
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
        "GOWORK": "off",
        "GOENV": "off",
        "CGO_ENABLED": "0",
    }


def rust_environment(folder: Path) -> Path:
    """`folder/rust`, whose `home/` is the CARGO_HOME every Rust case shares (cargo's own
    configuration and caches, not the user's ~/.cargo): a Rust case installs nothing, its crate
    needs only the standard library.

    The build itself (CARGO_TARGET_DIR) stays in each repository's `target/`, never shared:
    cargo keys a path package's build by its name and version and decides freshness by the
    sources' modification times, so two trees of one crate sharing a target folder (the
    broken one copied with its old times after the fixed one was built) would test the other
    tree's build.

    Raises `PrepareError` when no `cargo` is on PATH.
    """
    return _tool_chain_folder(
        folder / "rust",
        ("home",),
        "cargo",
        "no Rust tool chain: `cargo` is not on PATH; install Rust 1.63 or newer "
        "(Debian: apt-get install cargo; or rustup)",
    )


def _tool_chain_folder(env_dir: Path, subs: tuple[str, ...], program: str, missing: str) -> Path:
    """`env_dir` with its shared `subs` folders made, for an ecosystem whose cases install
    nothing but need `program` on PATH. Raises `PrepareError(missing)` without it."""
    if shutil.which(program) is None:
        raise PrepareError(missing)
    for sub in subs:
        (env_dir / sub).mkdir(parents=True, exist_ok=True)
    return env_dir


def rust_variables(env_dir: Path) -> dict[str, str]:
    """What makes `cargo` build and test offline and alike on every machine: the shared
    CARGO_HOME (no user configuration from ~/.cargo), no network (a dependency outside the
    crate fails to resolve), no incremental build data nor debug information (each tree builds
    its crate anew: they only slow the build), no colour codes
    (https://doc.rust-lang.org/cargo/reference/environment-variables.html); rustup's own
    variables when set, else the account's `~/.rustup` as RUSTUP_HOME when it has one: rustup's
    `cargo` finds its tool chain there by HOME, which a check may run with another of
    (https://rust-lang.github.io/rustup/environment-variables.html)."""
    passed = {k: v for k, v in os.environ.items() if k in PASSED_RUST}
    account = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".rustup"
    if "RUSTUP_HOME" not in passed and account.is_dir():
        passed["RUSTUP_HOME"] = str(account)
    return {
        **passed,
        "CARGO_HOME": str(env_dir / "home"),
        "CARGO_NET_OFFLINE": "true",
        "CARGO_INCREMENTAL": "0",
        "CARGO_PROFILE_DEV_DEBUG": "0",  # each tree builds its crate anew: no debug info to link
        "CARGO_TERM_COLOR": "never",
    }


def _key(parts: list[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _build_venv(case: Case, env_dir: Path) -> None:
    python = interpreter(case.environment.python)
    bare = "" if case.environment.requirements else " --without-pip"
    _install(f"{shlex.quote(str(python))} -m venv{bare} {shlex.quote(str(env_dir))}", env_dir, case)
    if case.environment.requirements:
        words = " ".join(shlex.quote(r) for r in case.environment.requirements)
        pip = shlex.quote(str(env_dir / "bin" / "python"))
        _install(f"{pip} -m pip install -q --disable-pip-version-check {words}", env_dir, case)


def _build_node(case: Case, env_dir: Path) -> None:
    npm = program("npm", "install Node.js and npm (https://nodejs.org)")
    manifest = {
        "name": "fixbot-bench-env",
        "private": True,
        "devDependencies": dict(_npm_spec(r) for r in case.environment.requirements),
    }
    (env_dir / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    flags = "--no-audit --no-fund --ignore-scripts --loglevel=error"
    _install(f"{shlex.quote(npm)} install {flags}", env_dir, case)


def _npm_spec(requirement: str) -> tuple[str, str]:
    """ "jest@29.7.0" -> ("jest", "29.7.0"); "@scope/x@1" -> ("@scope/x", "1")."""
    name, at, version = requirement.rpartition("@")
    if not at or not name:
        return requirement, "*"
    return name, version


def _install(command: str, env_dir: Path, case: Case) -> None:
    """Run one install step; raise `PrepareError` with its log's tail when it fails."""
    env = {k: v for k, v in os.environ.items() if k in PASSED + PASSED_PROXY or k == "PATH"}
    env.update({k: v for k, v in os.environ.items() if k.startswith(("PIP_", "npm_config_"))})
    result = run_command(
        command, env_dir, env_dir.parent / f"{env_dir.name}.log", INSTALL_TIMEOUT_S, env=env
    )
    if result.exit_code != 0:
        raise PrepareError(
            f"{case.id}: `{command}` failed (exit {result.exit_code}); its log ends:\n"
            f"{result.tail[-3000:]}"
        )


def check_env(case: Case, env_dir: Path) -> dict[str, str]:
    """The environment the check and hidden command run with: ours reduced to `PASSED`, the
    case's venv or node_modules first on PATH (for Go, `go_variables`; for Rust,
    `rust_variables`), then the case's `variables`."""
    base = {k: v for k, v in os.environ.items() if k in PASSED + PASSED_PROXY}
    path = os.environ.get("PATH", "/usr/bin:/bin")
    if case.ecosystem is Ecosystem.PYTHON:
        base.update({"VIRTUAL_ENV": str(env_dir), "PYTHONDONTWRITEBYTECODE": "1"})
        path = f"{env_dir / 'bin'}{os.pathsep}{path}"
    elif case.ecosystem is Ecosystem.GO:
        base.update(go_variables(env_dir))
    elif case.ecosystem is Ecosystem.RUST:
        base.update(rust_variables(env_dir))
    else:
        path = f"{env_dir / 'node_modules' / '.bin'}{os.pathsep}{path}"
    return {**base, "PATH": path, **case.environment.variables}
