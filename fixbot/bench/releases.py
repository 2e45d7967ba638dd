"""A case's release, the first phase of preparing it (`fixbot.bench.prepare`): its archive
downloaded into the cache's `archives/` (`fixbot.bench.cache`) once, and found there after.

An sdist comes from PyPI's Simple API (sha256 checked against PyPI's), an npm tarball from
`npm pack` (which checks its integrity), and a file of Debian's archive, in `archives/debian/`,
from a Debian mirror, checked against the sha256 its case pins.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from fixbot.bench.archives import PrepareError
from fixbot.bench.cache import PASSED, PASSED_PROXY, locked, program
from fixbot.bench.corpus import Case, Ecosystem
from fixbot.process.spawn import run_command

PYPI_SIMPLE = "https://pypi.org/simple"  # PEP 691: https://peps.python.org/pep-0691/
# Debian's mirror network (https://deb.debian.org): plain http, as apt uses it; a case's sha256
# is what the download is trusted by. FIXBOT_BENCH_DEBIAN_MIRROR names another mirror (tests:
# a file:// folder).
DEBIAN_MIRROR = "http://deb.debian.org/debian"
DOWNLOAD_TIMEOUT_S = 120.0
ARCHIVES = (".tar.gz", ".tgz", ".zip")  # what `download` leaves; partial files end in .part


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
    with locked(folder / ".locks" / f"{stem}.lock"):
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
    with locked(folder / ".locks" / f"{target.name}.lock"):
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
    npm = program("npm", "install Node.js and npm (https://nodejs.org)")
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
