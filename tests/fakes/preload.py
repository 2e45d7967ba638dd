"""A real `LD_PRELOAD` library for the attacks of an earlier step's GITHUB_ENV: built at test
time with the machine's C compiler (scripts/image-tools.sh installs gcc where apt-get exists)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = r"""
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
    FILE *f = fopen(MARK, "a");
    if (f) { fprintf(f, "preload %d\n", (int)getuid()); fclose(f); }
}
"""


def preload_library(folder: Path, mark: str) -> Path:
    """Build `folder/evil.so`: every dynamically linked program that loads it appends
    `preload <uid>` to the file `mark` (a path as the loading process sees it). Skips the test
    without a C compiler outside CI, fails it in CI."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler: run bash scripts/setup.sh --tests (it installs gcc)")
        pytest.skip("no C compiler (gcc) on this machine")
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "evil.c"
    source.write_text(SOURCE, encoding="utf-8")
    library = folder / "evil.so"
    subprocess.run(
        [gcc, "-shared", "-fPIC", f'-DMARK="{mark}"', "-o", str(library), str(source)],
        check=True,
        capture_output=True,
    )
    return library
