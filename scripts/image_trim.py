"""Make fixbot's container image smaller, right after `pip install --no-compile` (the Dockerfile).

    python scripts/image_trim.py            # in the image's build, as root
    python scripts/image_trim.py --dry-run  # print what it would remove from this Python's packages

Each step prints what it saved, in MB (10^6 bytes). What the image leaves out and why is in
docs/image.md ("Size and cold start"); the image's tests check that what fixbot uses still works
inside it.

1. litellm, which fixbot calls as a library, without what only its proxy server or a Rust build
   uses: the LiteLLM proxy's admin UI, API docs page and OpenAPI document (static files served
   by the proxy: `LITELLM_UNUSED`) and the optional Rust extension
   (`litellm/rust_bridge/_native*.so`; litellm's loader,
   `litellm.rust_bridge.loader.get_native_bridge`, returns None without it and its catalog,
   `litellm.rust_bridge.catalog.RULES`, sends chat completions to Python only).
2. hf-xet uninstalled: huggingface_hub's Xet download backend, used only when it is installed
   (`huggingface_hub.utils.is_xet_available`).
3. botocore's service models (one folder per AWS service, 440 of them) kept only for the services
   litellm's own source names in quotes (Bedrock, SageMaker, S3, KMS, ...) and the ones boto3's
   credential chain calls (`CREDENTIAL_SERVICES`): a Bedrock model still signs, assumes a role
   and reads SSO credentials.
4. `strip --strip-unneeded` on the installed packages' shared objects (symbol tables only; needs
   binutils, which the Dockerfile installs for this step and removes in the same layer).
5. Bytecode for the modules every run imports, nothing else: every `fixbot` module and what
   importing them, PyGithub and gql loads (about 1,200 modules, the standard library's among
   them). The rest compile in memory when used; litellm's 940 modules (16 MB of bytecode) when a
   run first calls the model, 1.1 s more on 2 cores (docs/image.md, "Size and cold start").

A path that step 1 expects and does not find stops the build (exit 1, naming it): a new litellm
that moved it must be looked at, not shipped untrimmed or half-trimmed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

# boto3's default credential chain: AssumeRole and web identity (GitHub's OIDC token) through STS,
# IAM Identity Center through SSO and SSO-OIDC (botocore.credentials, botocore.utils).
CREDENTIAL_SERVICES = frozenset({"sts", "sso", "sso-oidc"})
LITELLM_UNUSED = (
    "proxy/_experimental/out",  # the proxy's admin UI
    "proxy/swagger",  # the proxy's API docs page
    "proxy/_lazy_openapi_snapshot.json",  # the proxy's OpenAPI document
    "rust_bridge/_native*.so",  # the optional Rust extension
)
QUOTED_NAME = re.compile(r"""["']([a-z0-9][a-z0-9-]*)["']""")
# What every Action run imports besides fixbot's modules (fixbot imports these, and litellm, inside
# the functions that use them). litellm is left out: only a run that calls the model imports it.
IMPORTED = ("github", "gql", "gql.transport.requests")


def package_dir(name: str) -> Path:
    """The folder of the installed package `name`. Raises SystemExit when it is not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"image_trim: {name} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def size(paths: Iterable[Path]) -> int:
    """Bytes of the files under `paths` (files or folders; symbolic links not followed)."""
    total = 0
    for path in paths:
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
        elif path.is_dir() and not path.is_symlink():
            total += sum(
                f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()
            )
    return total


def remove(paths: list[Path], dry_run: bool) -> int:
    """Remove `paths` (files or folders); the bytes they held."""
    freed = size(paths)
    if not dry_run:
        for path in paths:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return freed


def litellm_unused(litellm: Path) -> list[Path]:
    """The paths of `LITELLM_UNUSED` in the litellm package at `litellm`.
    Raises SystemExit naming a pattern that matches nothing."""
    found = []
    for pattern in LITELLM_UNUSED:
        matches = sorted(litellm.glob(pattern))
        if not matches:
            raise SystemExit(
                f"image_trim: litellm has no {pattern} any more: update LITELLM_UNUSED"
            )
        found += matches
    return found


def kept_services(litellm: Path, services: Iterable[str]) -> set[str]:
    """The botocore services (folder names of `botocore/data`) to keep: those litellm's source
    under `litellm` names in a quoted string, and `CREDENTIAL_SERVICES`."""
    services = set(services)
    named: set[str] = set()
    for source in litellm.rglob("*.py"):
        named.update(QUOTED_NAME.findall(source.read_text("utf-8", errors="replace")))
    return (named & services) | (CREDENTIAL_SERVICES & services)


def unused_services(litellm: Path, botocore_data: Path) -> list[Path]:
    """The service folders of `botocore_data` that `kept_services` does not keep."""
    folders = [p for p in botocore_data.iterdir() if p.is_dir()]
    keep = kept_services(litellm, (p.name for p in folders))
    return sorted(p for p in folders if p.name not in keep)


def shared_objects(root: Path) -> list[Path]:
    """Every ELF shared object (`*.so`, `*.so.N`) under `root`, symbolic links not included."""
    return sorted(p for p in root.rglob("*.so*") if p.is_file() and not p.is_symlink())


def strip(objects: list[Path], dry_run: bool) -> int:
    """`strip --strip-unneeded` each of `objects`; the bytes saved.
    Raises SystemExit when strip is missing or fails."""
    if dry_run:
        return 0
    program = shutil.which("strip")
    if program is None:
        raise SystemExit("image_trim: strip is missing (apt-get install binutils)")
    before = size(objects)
    subprocess.run([program, "--strip-unneeded", *map(str, objects)], check=True)
    return before - size(objects)


# Files fixbot copies into the project's own Python (the observer's pytest plugin and every
# part copied beside it, the line tracer), never imported by fixbot: the image has no pytest
# for the plugin or its parts to import.
COPIED = ("fixbot.observe.pytest_plugin", "fixbot.agent.linetrace")


def copied() -> set[str]:
    """The module names of `COPIED` and of the observer's parts (`fixbot.observe.channel.PARTS`,
    the one list of what is copied beside the plugin)."""
    from fixbot.observe.channel import PARTS

    return {*COPIED, *(f"fixbot.observe.{part.stem}" for part in PARTS)}


def compile_imported(dry_run: bool) -> int:
    """Import every fixbot module and `IMPORTED` with bytecode writing on; the bytes of the .pyc
    files written (this process's imports write them: Python's own import system compiles)."""
    if dry_run:
        return 0
    sys.dont_write_bytecode = False
    import fixbot

    names = [m.name for m in pkgutil.walk_packages(fixbot.__path__, "fixbot.")]
    skipped = copied()
    names = [n for n in names if not n.endswith("__main__") and n not in skipped]
    for name in [*IMPORTED, *names]:
        importlib.import_module(name)
    written = 0
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if source and source.endswith(".py"):
            cached = importlib.util.cache_from_source(source)
            if os.path.exists(cached):
                written += os.path.getsize(cached)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="remove and change nothing")
    dry_run = parser.parse_args(argv).dry_run
    litellm = package_dir("litellm")
    site = litellm.parent

    def say(step: str, freed: int) -> None:
        print(f"image_trim: {step}: {freed / 1e6:.1f} MB", flush=True)

    say("litellm's proxy UI, API docs and Rust extension", remove(litellm_unused(litellm), dry_run))
    if importlib.util.find_spec("hf_xet") is not None:
        xet = size([package_dir("hf_xet")])
        if not dry_run:
            pip = [sys.executable, "-m", "pip", "uninstall", "--yes", "--quiet", "hf-xet"]
            subprocess.run(pip, check=True)
        say("hf-xet", xet)
    unused = unused_services(litellm, package_dir("botocore") / "data")
    say(
        f"botocore's models of {len(unused)} services litellm does not call",
        remove(unused, dry_run),
    )
    say("symbols of the shared objects", strip(shared_objects(site), dry_run))
    say("bytecode written for the modules a run imports", compile_imported(dry_run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
