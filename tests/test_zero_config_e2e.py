"""`fixbot run` with no check at all, on a small real project per ecosystem: the check and the
set-up come from the project's CI workflow, are said before anything runs, and the bug is fixed
end to end (the model served by the fake server, a subprocess)."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import tool_call
from tests.fakes.paths import ROOT
from tests.fakes.projects import PROJECTS, require_toolchain
from tests.fakes.repo import git

PY = sys.executable
USER_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)  # the tests' HOME is a temporary one


def project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("target/\nnode_modules/\n__pycache__/\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "start")
    return root


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[object]:
    """`serve(script)` starts the fake model server with `script`; yields its port."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(script: list[object]) -> int:
        (tmp_path / "script.json").write_text(json.dumps(script))
        port_file = tmp_path / "port"
        proc = subprocess.Popen(
            [
                PY,
                "-m",
                "tests.fakes.model_server",
                "--script",
                str(tmp_path / "script.json"),
                "--port-file",
                str(port_file),
            ],
            cwd=ROOT,
        )
        procs.append(proc)
        while not port_file.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the fake model server exited before it listened"
        return int(port_file.read_text())

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait()


def fixbot(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-fake-key-for-tests",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        # the commands' HOME is not the user's: rustup's proxies find their toolchain by these
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or str(USER_HOME / ".rustup"),
        "CARGO_HOME": os.environ.get("CARGO_HOME") or str(USER_HOME / ".cargo"),
        **{
            f"GIT_{w}_{k}": v
            for w in ("AUTHOR", "COMMITTER")
            for k, v in (("NAME", "t"), ("EMAIL", "t@e"))
        },
    }
    return subprocess.run(
        [PY, "-m", "fixbot", "run", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard only
        cwd=ROOT,
    )


@pytest.mark.slow
@pytest.mark.parametrize("ecosystem", sorted(PROJECTS))
def test_no_check_command_at_all_fixed_end_to_end(
    tmp_path: Path,
    serve,
    ecosystem: str,  # type: ignore[no-untyped-def]
) -> None:
    require_toolchain(ecosystem)
    files, path, buggy, fixed = PROJECTS[ecosystem]
    repo = project(tmp_path / ecosystem, files)
    port = serve(
        [
            tool_call("replace_in_file", path=path, old=buggy, new=fixed),
            tool_call("finish", summary="sum every item", diagnosis="the first item was dropped"),
        ]
    )
    done = fixbot(
        "--model",
        "openai/fake",
        "--api-base",
        f"http://127.0.0.1:{port}/v1",
        "--edit-protocol",
        "tools",
        "--no-review",
        "--no-infer-fixes",
        "-C",
        str(repo),
        "--json",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    check = files[".github/workflows/ci.yml"].split("run: ")[-1].strip()
    said = f"fixbot: check: `{check}` (from .github/workflows/ci.yml, job `test`, step `Run tests`)"
    assert said in done.stderr.splitlines()
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["outcome"] == "fixed", outcome
    assert fixed in (repo / path).read_text() and buggy not in (repo / path).read_text()
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [path]


@pytest.mark.slow
def test_explain_prints_the_plan_and_runs_nothing(tmp_path: Path) -> None:
    files, _, _, _ = PROJECTS["go"]
    repo = project(tmp_path / "go", {**files, "Makefile": "test:\n\ttouch ran\n"})
    done = fixbot("--explain", "-C", str(repo))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "set-up: none",
        "check: `go test ./...` (from .github/workflows/ci.yml, job `test`, step `Run tests`)",
    ]
    assert (
        "fix command: `gofmt -w .` (declared in go.mod (gofmt is Go's one format))" in done.stdout
    )
    assert "note: matrix of job `test`: os=ubuntu-latest (the first combination)" in done.stdout
    given = fixbot("--explain", "--check", "make test", "-C", str(repo))
    assert "check: `make test` (given)" in given.stdout.splitlines()
    assert not (repo / "ran").exists() and git(repo, "status", "--porcelain") == ""
