"""A rust case: its crate from a Debian `.deb` (here a file:// mirror, never the internet), the
check run by `cargo` offline with the bench's own CARGO_HOME, the build in the repository's own
`target/` (never shared between two trees of one crate), and a machine without cargo told so in
the words test_run_corpus treats as unavailable."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.bench.archives import PrepareError
from fixbot.bench.corpus import Case
from fixbot.bench.prepare import apply_patch, prepare
from fixbot.bench.verify import verify_case
from tests.bench.test_debian import deb, mirror_with, sha
from tests.bench.test_run_corpus import unavailable

POOL = "main/r/rust-calc/librust-calc-dev_1.0.0-1_amd64.deb"
ROOT = "usr/share/cargo/registry/calc-1.0.0"
MANIFEST = b'[package]\nname = "calc"\nversion = "1.0.0"\nedition = "2018"\n'
LIB = b"pub fn add(a: i64, b: i64) -> i64 {\n    a - b\n}\n"
BROKEN = """--- /dev/null
+++ b/tests/add.rs
@@ -0,0 +1,4 @@
+#[test]
+fn adds() {
+    assert_eq!(calc::add(2, 3), 5);
+}
"""
FIX = """--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,3 +1,3 @@
 pub fn add(a: i64, b: i64) -> i64 {
-    a - b
+    a + b
 }
"""
HIDDEN = """--- /dev/null
+++ b/tests/hidden.rs
@@ -0,0 +1,4 @@
+#[test]
+fn hidden_adds() {
+    assert_eq!(calc::add(-1, 1), 0);
+}
"""


def rust_case(package: dict[str, str], **over: object) -> Case:
    data: dict[str, object] = {
        "id": "calc-1-0-0",
        "family": "regression",
        "ecosystem": "rust",
        "summary": "add subtracts",
        "source": ["https://example.org/calc/changelog"],
        "package": package,
        "check": {"command": "cargo test --test add", "expect": "test adds ... FAILED"},
        "broken": {"patch": BROKEN},
        "fix": {"patch": FIX},
        "hidden": {"patch": HIDDEN, "command": "cargo test --test hidden"},
    }
    data.update(over)
    return Case.model_validate(data)


def served_crate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A librust-calc-dev `.deb` laid out as Debian's are (the crate's source under
    /usr/share/cargo/registry/), on a file:// mirror; the case's [package] for it."""
    files = {f"./{ROOT}/Cargo.toml": MANIFEST, f"./{ROOT}/src/lib.rs": LIB}
    data = deb(files)
    monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", mirror_with(tmp_path / "m", POOL, data))
    return {"name": "calc", "version": "1.0.0", "debian": POOL, "sha256": sha(data), "root": ROOT}


def test_a_rust_case_names_a_debian_file_and_installs_nothing() -> None:
    pinned = {"name": "calc", "version": "1.0.0", "debian": POOL, "sha256": "ab" * 32}
    assert rust_case({**pinned, "root": ROOT}).package.root == ROOT
    with pytest.raises(ValueError, match="no crate registry is reached"):
        rust_case({"name": "calc", "version": "1.0.0"})
    with pytest.raises(ValueError, match="a rust case installs nothing"):
        rust_case({**pinned, "root": ROOT}, environment={"requirements": ["serde@1"]})


def test_a_machine_without_cargo_is_told_so_and_the_corpus_test_calls_it_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = served_crate(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(PrepareError, match="no Rust tool chain") as raised:
        prepare(rust_case(package), tmp_path / "cache")
    assert unavailable(str(raised.value))


def cargo_or_skip() -> None:
    if shutil.which("cargo") is None:
        pytest.skip("no Rust tool chain on this machine (setup.sh --tests installs Debian's cargo)")


def run(command: str, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, shell=True, cwd=repo, env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.slow
def test_a_rust_case_from_a_deb_fails_then_passes_offline_and_leaves_git_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crate's folder of the `.deb` is the repository; cargo runs with the bench's own
    CARGO_HOME and no network: a dependency from a registry fails to resolve; what the build
    leaves (target/, Cargo.lock) is ignored by git."""
    cargo_or_skip()
    case = rust_case(served_crate(tmp_path, monkeypatch))
    cache = tmp_path / "cache"
    assert verify_case(case, cache).problems == []
    prepared = prepare(case, cache)
    env = prepared.env
    assert env["CARGO_NET_OFFLINE"] == "true"
    assert Path(env["CARGO_HOME"]).is_relative_to(cache / "envs")
    assert "CARGO_TARGET_DIR" not in env
    done = run(prepared.check, prepared.repo, env)
    assert done.returncode != 0 and "test adds ... FAILED" in done.stdout
    assert (prepared.repo / "target").is_dir()
    status = run("git status --porcelain", prepared.repo, env)
    assert status.stdout == ""
    with (prepared.repo / "Cargo.toml").open("a") as manifest:
        manifest.write('\n[dependencies]\nserde = "1"\n')
    offline = run("cargo build", prepared.repo, env)
    assert offline.returncode != 0 and "serde" in offline.stderr


@pytest.mark.slow
def test_two_trees_of_one_crate_never_test_each_others_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broken tree is prepared first (older files), the fixed one is built after it: were
    the build folder shared, cargo would find the broken tree's sources older than the fixed
    build and test that build."""
    cargo_or_skip()
    case = rust_case(served_crate(tmp_path, monkeypatch))
    cache = tmp_path / "cache"
    broken = prepare(case, cache, tmp_path / "broken")
    fixed = prepare(case, cache, tmp_path / "fixed")
    apply_patch(fixed.repo, case.fix.patch, "the fix")
    assert run(case.check.command, fixed.repo, fixed.env).returncode == 0
    done = run(case.check.command, broken.repo, broken.env)
    assert done.returncode != 0 and "test adds ... FAILED" in done.stdout
