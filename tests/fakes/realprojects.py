"""Real projects, one per ecosystem, for the zero-configuration end-to-end tests: each one's
released source from its registry (PyPI, npm, Debian's archive for Go and Rust), its CI
workflow at `.github/workflows/ci.yml`, and one off-by-one in a function its own tests cover.

Downloaded once per user into `~/.cache/fixbot/zeroconf/` (the real HOME's, by the password
database: the tests' HOME is a temporary one), sha256 checked; with the Python project's pinned
test requirements as wheels and the npm project's packages in npm's cache, so a later run needs
no network. `require(project)` skips the calling test, saying why, when the registry cannot be
reached or the tool chain is not installed.

The workflows, and where each comes from:
- Go, spf13/pflag 1.0.6 (Debian's golang-github-spf13-pflag-dev, upstream commit d5e0c06): its
  own `ci.yaml`, vendored in tests/data/workflows/spf13__pflag/ (a later upstream commit, listed
  in tests/data/README.md; its `test` job runs `go test -race -v ./...`, as at this version).
- Rust, strsim 0.10.0 (Debian's librust-strsim-dev): its own `.github/workflows/ci.yml`, which
  the crate's source ships.
- Python, click 8.1.7 (PyPI's sdist) and npm, minimist 1.2.5 (npm's tarball): their own
  workflows cannot run here (click's runs tox under uv for Python 3.14, vendored in
  tests/data/workflows/pallets__click/; minimist's, of its later repository minimistjs/minimist,
  call a reusable workflow, which has no steps to reproduce), so each has GitHub's starter
  workflow for its ecosystem (actions/starter-workflows, ci/python-package.yml and
  ci/node.js.yml) with the install step the project's files ask for (click's
  requirements/tests.txt; `npm install`, minimist shipping no lock file for `npm ci`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tarfile
import textwrap
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USER_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
CACHE = USER_HOME / ".cache" / "fixbot" / "zeroconf"
TIMEOUT_S = 120.0
CI = ".github/workflows/ci.yml"
DATA = Path(__file__).resolve().parents[1] / "data" / "workflows"


@dataclass(frozen=True)
class Real:
    """One real project: where its source is (`url`, `sha256`, `inner` the project's folder
    in the archive), its workflow, the bug (`path`: `fixed` becomes `buggy`), the tool its CI
    sets up, what fixbot infers from the workflow (the `check` of `job`'s step `step`, the
    start of the `setup` it says), and how its CI run shows the failure (`job_shown`,
    `steps_shown`, `log`)."""

    ecosystem: str
    name: str
    url: str
    sha256: str
    inner: str
    workflow: str
    path: str
    fixed: str
    buggy: str
    tool: str
    check: str
    setup: str
    job: str
    step: str
    job_shown: str
    steps_shown: tuple[str, ...]
    log: str


PYTHON_CI = textwrap.dedent(
    """\
    name: Python package

    on:
      push:
        branches: [ "main" ]
      pull_request:
        branches: [ "main" ]

    jobs:
      build:

        runs-on: ubuntu-latest
        strategy:
          fail-fast: false
          matrix:
            python-version: ["3.11", "3.12"]

        steps:
        - uses: actions/checkout@v4
        - name: Set up Python ${{ matrix.python-version }}
          uses: actions/setup-python@v3
          with:
            python-version: ${{ matrix.python-version }}
        - name: Install dependencies
          run: |
            python -m pip install -r requirements/tests.txt
            python -m pip install -e .
        - name: Test with pytest
          run: |
            pytest
    """
)

NODE_CI = textwrap.dedent(
    """\
    name: Node.js CI

    on:
      push:
        branches: [ "main" ]
      pull_request:
        branches: [ "main" ]

    jobs:
      build:

        runs-on: ubuntu-latest

        strategy:
          matrix:
            node-version: [18.x, 20.x, 22.x]

        steps:
        - uses: actions/checkout@v4
        - name: Use Node.js ${{ matrix.node-version }}
          uses: actions/setup-node@v4
          with:
            node-version: ${{ matrix.node-version }}
            cache: 'npm'
        - run: npm install
        - run: npm run build --if-present
        - run: npm test
    """
)

DEBIAN = "http://deb.debian.org/debian/pool/main"

PROJECTS: dict[str, Real] = {
    "python": Real(
        "python",
        "click 8.1.7",
        "https://files.pythonhosted.org/packages/96/d3/f04c7bfcf5c1862a2a5b845c6b2b360488cf47af"
        "55dfa79c98f6a6bf98b5/click-8.1.7.tar.gz",
        "ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de",
        "click-8.1.7",
        PYTHON_CI,
        "src/click/utils.py",
        'return " ".join(words[: i + 1])',
        'return " ".join(words[:i])',
        "python",
        "pytest",
        "`bash -e -c 'python -m pip install -r requirements/tests.txt",
        "build",
        "Test with pytest",
        "build (3.11)",
        (
            "Run actions/checkout@v4",
            "Set up Python 3.11",
            "Install dependencies",
            "Test with pytest",
        ),
        "FAILED tests/test_utils.py::test_make_default_short_help[-All the. way down.-45-False]"
        " - AssertionError\n1 failed, 583 passed in 3.10s\n",
    ),
    "node": Real(
        "node",
        "minimist 1.2.5",
        "https://registry.npmjs.org/minimist/-/minimist-1.2.5.tgz",
        "a1800ce4d39356e96497bd09a41fad0033a13dd8eeb469008333547505ce4350",
        "package",
        NODE_CI,
        "index.js",
        "var letters = arg.slice(1,-1).split('');",
        "var letters = arg.slice(2,-1).split('');",
        "node",
        "npm test",
        "`npm install` (from .github/workflows/ci.yml, job `build`, step `Run npm install`)",
        "build",
        "Run npm test",
        "build (18.x)",
        (
            "Run actions/checkout@v4",
            "Use Node.js 18.x",
            "Run npm install",
            "Run npm run build --if-present",
            "Run npm test",
        ),
        "not ok test/short.js ...................................... 7/11\n",
    ),
    "go": Real(
        "go",
        "spf13/pflag 1.0.6",
        f"{DEBIAN}/g/golang-github-spf13-pflag/"
        "golang-github-spf13-pflag-dev_1.0.6~git20210604-d5e0c0615ace-1_all.deb",
        "bd1c3c2a3e47512a64da02ebea900eb5a3f3c5d386e559d5718a3a935c0ea570",
        "usr/share/gocode/src/github.com/spf13/pflag",
        "",  # the vendored ci.yaml, read by `workflow_of`
        "flag.go",
        "\tname := s[2:]\n",
        "\tname := s[3:]\n",
        "go",
        "go test -race -v ./...",
        "none",
        "test",
        "Test",
        "Test (1.12)",
        ("Checkout repository", "Set up Go", "Test"),
        "--- FAIL: TestLongFlags (0.00s)\nFAIL\nFAIL\tgithub.com/spf13/pflag\t0.041s\n",
    ),
    "rust": Real(
        "rust",
        "strsim 0.10.0",
        f"{DEBIAN}/r/rust-strsim/librust-strsim-dev_0.10.0-1_amd64.deb",
        "6b676122f64f7c2d3d130db4e367b4fdaaf7c61b65a024110cbe99814471a3a1",
        "usr/share/cargo/registry/strsim-0.10.0",
        "",  # the crate's own .github/workflows/ci.yml
        "src/lib.rs",
        "let mut cache: Vec<usize> = (1..b_len+1).collect();",
        "let mut cache: Vec<usize> = (0..b_len).collect();",
        "cargo",
        "cargo test --verbose",
        "`cargo build --verbose` (from .github/workflows/ci.yml, job `build`, step `Build the",
        "build",
        "Test the code",
        "build (ubuntu-latest, beta)",
        ("Run actions/checkout@v1", "Install Rust", "Build the code", "Test the code"),
        "---- tests::levenshtein_diff_short stdout ----\nassertion `left == right` failed\n"
        "test result: FAILED. 58 passed; 9 failed; 0 ignored\n",
    ),
}


def require(real: Real) -> None:
    """Skip the calling test, saying why, when `real`'s tool chain is not installed here."""
    wanted = {"python": None, "node": "npm", "go": "go", "rust": "cargo"}[real.ecosystem]
    if wanted and shutil.which(wanted) is None:
        pytest.skip(f"{wanted} is not on PATH: {real.name} cannot be checked here")
    if real.url.endswith(".deb") and shutil.which("dpkg-deb") is None:
        pytest.skip(f"dpkg-deb is not installed: {real.name}'s Debian package cannot be unpacked")
    if real.ecosystem == "go" and shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: pflag's CI runs `go test -race`, which needs cgo")


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    """The cache's lock `name`, held: parallel test workers fill each cache entry once. Skips
    the calling test when the user's cache folder cannot be written."""
    try:
        (CACHE / ".locks").mkdir(parents=True, exist_ok=True)
        handle = (CACHE / ".locks" / name).open("w")
    except OSError as error:
        pytest.skip(f"the cache {CACHE} cannot be written ({error}): the projects are not here")
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def archive(real: Real) -> Path:
    """`real`'s archive in the cache, downloaded first (sha256 checked); skips the calling test
    when the registry cannot be reached."""
    target = CACHE / "archives" / real.url.rsplit("/", 1)[1]
    with _locked(target.name):
        return _download(real, target)


def _download(real: Real, target: Path) -> Path:
    if target.exists() and _sha256(target.read_bytes()) == real.sha256:
        return target
    try:
        with urllib.request.urlopen(real.url, timeout=TIMEOUT_S) as answer:
            data = answer.read()
    except OSError as error:
        pytest.skip(f"{real.url} cannot be reached ({error}): {real.name} is not cached here")
    if _sha256(data) != real.sha256:
        raise AssertionError(f"{real.url}: sha256 {_sha256(data)} is not {real.sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def source(real: Real) -> dict[str, str]:
    """The project's text files (path -> text) as released, with its workflow at
    `.github/workflows/ci.yml` and without the bug (`fixed` present once)."""
    found: dict[str, str] = {}
    path = archive(real)
    if path.suffix == ".deb":
        scratch = CACHE / "unpacked" / path.stem
        with _locked(f"{path.stem}.unpack"):
            if not (scratch / real.inner).is_dir():
                shutil.rmtree(scratch, ignore_errors=True)
                scratch.mkdir(parents=True)
                subprocess.run(["dpkg-deb", "-x", str(path), str(scratch)], check=True)
        for file in sorted((scratch / real.inner).rglob("*")):
            if file.is_file() and not file.is_symlink():
                _add(found, file.relative_to(scratch / real.inner).as_posix(), file.read_bytes())
    else:
        with tarfile.open(path) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.startswith(f"{real.inner}/"):
                    data = tar.extractfile(member)
                    name = member.name.removeprefix(f"{real.inner}/")
                    _add(found, name, data.read() if data else b"")
    files = {k: v for k, v in found.items() if not k.startswith(".github/")}
    files[CI] = workflow_of(real, found)
    assert files[real.path].count(real.fixed) == 1, f"{real.name}: the line to break moved"
    return files


def workflow_of(real: Real, files: dict[str, str]) -> str:
    """The workflow the test's repository holds (see the module's docstring for each)."""
    if real.workflow:
        return real.workflow
    if real.ecosystem == "go":
        return (DATA / "spf13__pflag" / "ci.yaml").read_text(encoding="utf-8")
    return files[CI]


def _add(found: dict[str, str], name: str, data: bytes) -> None:
    try:
        found[name] = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # a binary file (an image, an archive): no check reads it as text


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def environment(real: Real, files: dict[str, str], where: Path) -> dict[str, str]:
    """The variables a run on `real` needs beside the test's: what its CI's set-up action gives
    (a Python of its own on PATH for the Python project: the set-up step installs into it), the
    caches filled once per user, and the network left unused after that."""
    if real.ecosystem == "python":
        wheels = _wheels(files["requirements/tests.txt"])
        venv = where / "python"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        return {
            "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheels),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
    if real.ecosystem == "node":
        _fill_npm_cache(files)
        return {
            "npm_config_cache": str(CACHE / "npm"),
            "npm_config_prefer_offline": "true",
            "npm_config_audit": "false",
            "npm_config_fund": "false",
            "npm_config_update_notifier": "false",
        }
    if real.ecosystem == "go":
        # pflag has no dependency: no module is fetched; the build cache spares the -race
        # build of the standard library on later runs. `go test`'s vet of a Go newer than the
        # CI's Go 1.12 rejects one of this release's test files (a Println of a constant
        # ending in a newline), which its CI never saw: vet is off, the tests are pflag's.
        return {
            "GOPROXY": "off",
            "GOFLAGS": "-mod=mod -vet=off",
            "GOCACHE": str(CACHE / "go-build"),
        }
    return {
        "CARGO_NET_OFFLINE": "true",
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or str(USER_HOME / ".rustup"),
        "CARGO_HOME": os.environ.get("CARGO_HOME") or str(USER_HOME / ".cargo"),
    }


def _wheels(requirements: str) -> Path:
    """A folder of the wheels `requirements` pins, and setuptools and wheel to build the
    project, downloaded from PyPI once per user (skips when PyPI cannot be reached)."""
    folder = CACHE / "wheels" / _sha256(requirements.encode())[:16]
    with _locked(f"wheels-{folder.name}"):
        return _download_wheels(requirements, folder)


def _download_wheels(requirements: str, folder: Path) -> Path:
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "r").write_text(requirements + "\nsetuptools\nwheel\n")
    got = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "-d", str(folder), "-r", str(folder / "r")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if got.returncode != 0:
        pytest.skip(f"PyPI cannot be reached for click's test requirements: {got.stderr[-500:]}")
    done.touch()
    return folder


def _fill_npm_cache(files: dict[str, str]) -> None:
    """npm's cache (in ours) holding every package `npm install` of the project fetches: one
    install into a scratch copy, once per user (skips when npm's registry cannot be reached)."""
    with _locked("npm"):
        _npm_install_once(files)


def _npm_install_once(files: dict[str, str]) -> None:
    done = CACHE / "npm" / f".{_sha256(files['package.json'].encode())[:16]}-complete"
    if done.exists():
        return
    scratch = CACHE / "npm-scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    (scratch / "package.json").write_text(files["package.json"])
    got = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--cache", str(CACHE / "npm")],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if got.returncode != 0:
        pytest.skip(
            f"npm's registry cannot be reached for minimist's packages: {got.stderr[-500:]}"
        )
    shutil.rmtree(scratch, ignore_errors=True)
    done.touch()
