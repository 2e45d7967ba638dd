"""fixbot's image on the host: the installation fact (`process.installation`) for one process.

The image ships `/etc/fixbot/runtime`; on the host no such file exists, and tests must not
create one (every other test on the machine would then run as in the image). `in_the_image`
gives one subprocess a private mount namespace (unshare(1) `--mount`, root only) where a fresh
root-owned tmpfs on `/etc/fixbot` holds the file, exactly as the image has it: fixbot's real
check of the file's ownership decides, no variable and no monkeypatch. `as_in_the_image`
stands in for it in the test's own process.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from fixbot.process import installation

RUNTIME_DIR = installation.RUNTIME_FILE.parent
# Python, not a shell: shells drop variables whose names are not shell names (`INPUT_RUN-AS`).
MOUNT_THEN_RUN = (
    "import os, subprocess, sys\n"
    "folder = sys.argv[1]\n"
    "subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=0755,size=64k', 'fixbot-runtime',"
    " folder], check=True)\n"
    "os.umask(0o022)\n"
    "with open(os.path.join(folder, 'runtime'), 'w') as f:\n"
    "    f.write('container\\n')\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
NO_MOUNT = "a private mount namespace (fixbot's image's /etc/fixbot/runtime) needs root"


def can_mount() -> bool:
    """Root with unshare(1): the private mount namespace `in_the_image` needs."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None


# Under CI=true (root) the tests run; elsewhere, without root, they skip with the reason.
needs_mount = pytest.mark.skipif(not can_mount() and not IN_CI, reason=NO_MOUNT)


def in_the_image(argv: list[str]) -> list[str]:
    """`argv` run in a mount namespace of its own where `/etc/fixbot/runtime` is the image's.

    Creates the empty folder `/etc/fixbot` on the host once (the mount point; an empty folder
    says nothing: fixbot reads only the file), as root only: without root the calling test
    skips with the reason (fails under CI=true)."""
    if not can_mount():
        if IN_CI:
            pytest.fail(f"CI=true: {NO_MOUNT}")
        pytest.skip(NO_MOUNT)
    RUNTIME_DIR.mkdir(mode=0o755, exist_ok=True)
    unshare = shutil.which("unshare")
    assert unshare is not None
    helper = [sys.executable, "-I", "-c", MOUNT_THEN_RUN, str(RUNTIME_DIR)]
    return [unshare, "--mount", *helper, *argv]


def as_in_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    """Code run in the test's own process takes itself for fixbot's image (the file's own
    checks are proven in tests/test_installation.py and, for real, by `in_the_image`)."""
    monkeypatch.setattr(installation, "runtime", lambda: installation.CONTAINER)
