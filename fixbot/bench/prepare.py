"""Rebuild a case on disk: download its release, make the broken repository and its environment.

Everything downloaded or installed is cached under `cache_root()` (`~/.cache/fixbot/bench/`, or
`FIXBOT_BENCH_CACHE`): `archives/` holds the sdists (PyPI's Simple API, sha256 checked), npm
tarballs (`npm pack`) and, in `archives/debian/`, the files of Debian's archive a case names
(checked against the case's sha256), `envs/` one venv or node_modules per (interpreter,
requirements), shared by the cases that need the same, `envs/go/` the build cache and
GOPATH every Go case shares, and `envs/rust/` the CARGO_HOME every Rust case shares (a Rust
case's build stays in its repository's `target/`). A second `prepare` of a case is offline: it
unpacks the cached archive into a fresh repository and reuses the environment.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pwd
import re
import shlex
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixbot.bench.archives import PrepareError, unpack
from fixbot.bench.corpus import Case, Ecosystem
from fixbot.process import git
from fixbot.process.spawn import run_command

PYPI_SIMPLE = "https://pypi.org/simple"  # PEP 691: https://peps.python.org/pep-0691/
# Debian's mirror network (https://deb.debian.org): plain http, as apt uses it; a case's sha256
# is what the download is trusted by. FIXBOT_BENCH_DEBIAN_MIRROR names another mirror (tests:
# a file:// folder).
DEBIAN_MIRROR = "http://deb.debian.org/debian"
INSTALL_TIMEOUT_S = 900.0  # one venv or node_modules install
DOWNLOAD_TIMEOUT_S = 120.0
PASSED = ("HOME", "LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CERT")
PASSED_PROXY = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")
EXCLUDED = (
    "__pycache__/",
    ".pytest_cache/",
    "*.pyc",
    "*.egg-info/",
    "/node_modules",
    ".mypy_cache/",
    "/.tox",  # a tox check's environments, made in the repository at run time
)
# what a Rust case's check leaves in its repository: git ignores them, fixbot's edits never touch
# them (a crate from Debian's archive ships no lock file; cargo writes one)
EXCLUDED_RUST = ("/target/", "/Cargo.lock")
# rustup's proxies (`cargo` in ~/.cargo/bin) find their tool chains with these, when set
PASSED_RUST = ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN")
ARCHIVES = (".tar.gz", ".tgz", ".zip")  # what `download` leaves; partial files end in .part
READY = ".fixbot-bench-ready"  # written last: an environment without it is rebuilt


@dataclass(frozen=True)
class Prepared:
    """A case on disk, ready for the check.

    `repo`: a git repository with one commit "broken" on which `check` fails; `env`: the complete
    environment to run `check` and `hidden_command` with (the case's venv or node_modules first on
    PATH); `fix_patch` and `hidden_patch` are unified diffs for `git apply` in `repo`.
    """

    case: Case
    repo: Path
    env: dict[str, str]
    check: str
    hidden_command: str | None
    fix_patch: str
    hidden_patch: str


def cache_root() -> Path:
    """`FIXBOT_BENCH_CACHE`, else `~/.cache/fixbot/bench`."""
    given = os.environ.get("FIXBOT_BENCH_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "fixbot" / "bench"


def prepare(case: Case, cache: Path, into: Path | None = None) -> Prepared:
    """Rebuild `case`: its repository at `into` (default `cache/work/<id>`, replaced if present)
    and its environment under `cache/envs/`.

    Raises `PrepareError` when the download, unpacking, the broken patch or the install fails.
    """
    archive = download(case, cache / "archives")
    env_dir = environment(case, cache / "envs")
    repo = into or cache / "work" / case.id
    if repo.exists():
        shutil.rmtree(repo)
    if case.package.into:
        # a monorepo: the release is one package in a subfolder; the [broken] patch makes the
        # root's own files (validated by corpus.py), and the check runs from the root
        repo.mkdir(parents=True)
        unpack(archive, repo / case.package.into, case.package.root)
    else:
        unpack(archive, repo, case.package.root)
    _init_repo(repo, case)
    if case.ecosystem is Ecosystem.NPM:
        (repo / "node_modules").symlink_to(env_dir / "node_modules", target_is_directory=True)
    return Prepared(
        case=case,
        repo=repo,
        env=check_env(case, env_dir),
        check=case.check.command,
        hidden_command=case.hidden.command,
        fix_patch=case.fix.patch,
        hidden_patch=case.hidden.patch,
    )


# -- the release ------------------------------------------------------------------------------


def download(case: Case, folder: Path) -> Path:
    """The cached archive of `case.package`, downloaded first if absent.

    Raises `PrepareError` when the registry has no such release or cannot be reached.
    """
    if case.package.debian and case.package.sha256:
        return download_debian(case.package.debian, case.package.sha256, folder / "debian")
    folder.mkdir(parents=True, exist_ok=True)
    name, version = case.package.name, case.package.version
    stem = f"{case.ecosystem.value}-{name.replace('/', '__')}-{version}"
    for found in folder.glob(f"{glob_escape(stem)}.*"):
        if found.name.endswith(ARCHIVES):
            return found
    with _locked(folder / ".locks" / f"{stem}.lock"):
        for found in folder.glob(f"{glob_escape(stem)}.*"):
            if found.name.endswith(ARCHIVES):
                return found
        if case.ecosystem is Ecosystem.PYTHON:
            return _download_sdist(name, version, folder, stem)
        return _download_npm(name, version, folder, stem)


def debian_mirror() -> str:
    """`FIXBOT_BENCH_DEBIAN_MIRROR`, else `DEBIAN_MIRROR`: the folder above Debian's `pool/`."""
    return os.environ.get("FIXBOT_BENCH_DEBIAN_MIRROR", DEBIAN_MIRROR).rstrip("/")


def download_debian(pool: str, sha256: str, folder: Path) -> Path:
    """`pool`'s file of Debian's archive (its path under `pool/`) in `folder`, downloaded first
    when absent; a cached copy is checked again, and a damaged one downloaded anew.

    Raises `PrepareError` when the mirror cannot be reached, has no such file (the pool keeps
    the files of Debian's current releases only) or sends bytes whose sha256 is not `sha256`;
    nothing is kept then.
    """
    target = folder / pool.rsplit("/", 1)[-1]
    if _sha256_of(target) == sha256:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder / ".locks" / f"{target.name}.lock"):
        if _sha256_of(target) == sha256:
            return target
        url = f"{debian_mirror()}/pool/{pool}"
        try:
            with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as answer:
                data = answer.read()
        except urllib.error.HTTPError as error:
            raise PrepareError(
                f"Debian's archive has no {pool} ({url}: {error}): the pool keeps the files of "
                "Debian's current releases only; pick one of those"
            ) from error
        except (OSError, ValueError) as error:
            raise PrepareError(f"Debian's archive cannot be reached ({url}): {error}") from error
        found = hashlib.sha256(data).hexdigest()
        if found != sha256:
            raise PrepareError(f"{url}: sha256 {found} is not the case's {sha256}; nothing kept")
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(data)
        partial.rename(target)
    return target


def _sha256_of(path: Path) -> str | None:
    """The sha256 of the file at `path`, or None when there is none."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def glob_escape(text: str) -> str:
    """`text` with glob's special characters escaped."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def sdist_file(files: list[dict[str, Any]], name: str, version: str) -> dict[str, Any] | None:
    """The sdist entry of `name==version` among a Simple API page's `files`, or None.

    Names compare as PEP 503 normalizes them ("Click" == "click", "zope_x" == "zope.x").
    """
    wanted = f"{normalize(name)}-{version}"
    for item in files:
        filename = str(item["filename"])
        for suffix in (".tar.gz", ".zip"):
            if filename.endswith(suffix):
                stem_name, _, stem_version = filename.removesuffix(suffix).rpartition("-")
                if f"{normalize(stem_name)}-{stem_version}" == wanted:
                    return item
    return None


def normalize(name: str) -> str:
    """PEP 503's normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _download_sdist(name: str, version: str, folder: Path, stem: str) -> Path:
    """The sdist of `name==version` from PyPI's Simple API (PEP 691 JSON), sha256 checked."""
    url = f"{PYPI_SIMPLE}/{normalize(name)}/"
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_S) as answer:
            files = json.load(answer)["files"]
    except (OSError, ValueError, KeyError) as error:
        raise PrepareError(
            f"PyPI has no project {name} or cannot be reached ({url}): {error}"
        ) from error
    chosen = sdist_file(files, name, version)
    if chosen is None:
        raise PrepareError(f"PyPI has no sdist for {name}=={version}; pick a release with one")
    suffix = ".zip" if chosen["filename"].endswith(".zip") else ".tar.gz"
    target = folder / f"{stem}{suffix}"
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(chosen["url"], timeout=DOWNLOAD_TIMEOUT_S) as answer:
            data = answer.read()
    except OSError as error:
        raise PrepareError(f"downloading {chosen['url']} failed: {error}; try again") from error
    if hashlib.sha256(data).hexdigest() != chosen["hashes"]["sha256"]:
        raise PrepareError(f"{chosen['url']}: sha256 differs from PyPI's; try again")
    partial.write_bytes(data)
    partial.rename(target)
    return target


def _download_npm(name: str, version: str, folder: Path, stem: str) -> Path:
    """The tarball of `name@version` from npm (`npm pack`, which checks its integrity)."""
    npm = _program("npm", "install Node.js and npm (https://nodejs.org)")
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        command = f"{shlex.quote(npm)} pack {shlex.quote(f'{name}@{version}')} --silent"
        env = {k: v for k, v in os.environ.items() if k in PASSED + PASSED_PROXY or k == "PATH"}
        done = run_command(
            command, Path(scratch), folder / ".logs" / f"{stem}.log", DOWNLOAD_TIMEOUT_S, env=env
        )
        packed = list(Path(scratch).glob("*.tgz"))
        if done.exit_code != 0 or len(packed) != 1:
            raise PrepareError(f"npm pack {name}@{version} failed: {done.tail[-2000:]}")
        target = folder / f"{stem}.tgz"
        packed[0].rename(target)
    return target


def _init_repo(repo: Path, case: Case) -> None:
    """git init, apply the broken patch, commit everything as "broken"."""
    git.run(repo, "init", "-q", "-b", "main")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    within = f"/{case.package.into}" if case.package.into else ""
    rust = [within + e for e in EXCLUDED_RUST] if case.ecosystem is Ecosystem.RUST else []
    exclude.write_text("\n".join((*EXCLUDED, *rust)) + "\n", encoding="utf-8")
    if case.broken.patch:
        apply_patch(repo, case.broken.patch, f"{case.id}: the [broken] patch")
    git.run(repo, "add", "-A", "-f", ".", ":!node_modules")
    identity = {
        "GIT_AUTHOR_NAME": "fixbot bench",
        "GIT_AUTHOR_EMAIL": "bench@fixbot.invalid",
        "GIT_COMMITTER_NAME": "fixbot bench",
        "GIT_COMMITTER_EMAIL": "bench@fixbot.invalid",
    }
    git.run(repo, "commit", "-q", "--no-verify", "-m", "broken", env=identity)


def apply_patch(repo: Path, patch: str, what: str) -> None:
    """`git apply` `patch` in `repo`. Raises `PrepareError` naming `what` and git's complaint."""
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False, encoding="utf-8") as f:
        f.write(patch if patch.endswith("\n") else patch + "\n")
    try:
        done = git.completed(repo, "apply", "--whitespace=nowarn", f.name)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        raise PrepareError(f"{what} does not apply: {done.stderr.strip()}")


# -- the environment --------------------------------------------------------------------------


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
    with _locked(folder / ".locks" / f"{env_dir.name}.lock"):
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
    npm = _program("npm", "install Node.js and npm (https://nodejs.org)")
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


def _program(name: str, advice: str) -> str:
    found = shutil.which(name)
    if not found:
        raise PrepareError(f"{name} is not on PATH: {advice}")
    return found


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (parallel prepares share one cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
