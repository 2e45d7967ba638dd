"""A Go module in a test's temporary folder, and the environment `go` runs in there: the set-up
the tests of Go leads and Go spectra share. A test that asks for one without `go` on PATH skips.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

GO_MOD = "module example.com/mod\n\ngo 1.19\n"


def go_module(tmp_path: Path, files: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """`tmp_path/mod`, the module `example.com/mod` (`GO_MOD`) holding `files` (path relative
    to the module's folder -> text), and the environment to run `go` there with: go's own folder
    and /usr/bin:/bin on PATH, HOME and GOCACHE under `tmp_path`. Skips the test (pytest.skip)
    when no `go` is on PATH."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go on PATH")
    repo = tmp_path / "mod"
    for rel, text in {"go.mod": GO_MOD, **files}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    env = {
        "PATH": f"{Path(go).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GOCACHE": str(tmp_path / "gocache"),
    }
    return repo, env


def go_test(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`go test ./...` run in `repo` with `env` (`go_module`'s), its output captured as text;
    its exit code is not checked (the tests that use it fail on purpose)."""
    go = shutil.which("go", path=env["PATH"]) or "go"
    return subprocess.run(
        [go, "test", "./..."], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
