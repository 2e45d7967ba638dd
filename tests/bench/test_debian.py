"""A case's release as a file of Debian's archive: downloaded once from a mirror (here a file://
folder or a 127.0.0.1 server, never the internet), refused unless its sha256 is the case's,
unpacked from the folder the case names (a source tarball's or a `.deb`'s); a go case's
environment builds and tests offline, and a machine without Go says so."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.bench.archives import PrepareError, unpack
from fixbot.bench.corpus import Case
from fixbot.bench.prepare import prepare
from fixbot.bench.releases import download_debian
from fixbot.bench.verify import verify_case

POOL = "main/g/golang-calc/golang-calc_1.0.orig.tar.gz"
GO_CALC = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
GO_BROKEN = """--- /dev/null
+++ b/calc_test.go
@@ -0,0 +1,9 @@
+package calc
+
+import "testing"
+
+func TestAdd(t *testing.T) {
+\tif got := Add(2, 3); got != 5 {
+\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)
+\t}
+}
"""
GO_FIX = """--- a/calc.go
+++ b/calc.go
@@ -4,3 +4,3 @@
 func Add(a, b int) int {
-\treturn a - b
+\treturn a + b
 }
"""
GO_HIDDEN = """--- /dev/null
+++ b/hidden_test.go
@@ -0,0 +1,9 @@
+package calc
+
+import "testing"
+
+func TestHiddenAdd(t *testing.T) {
+\tif Add(-1, 1) != 0 {
+\t\tt.Fatal("Add(-1, 1) != 0")
+\t}
+}
"""


def tarball(files: dict[str, bytes], compression: str = "gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=f"w:{compression}") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def ar_member(name: str, data: bytes) -> bytes:
    """One member of an `ar` archive (ar(5)): a 60-byte header, the data, even padding."""
    header = f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
    return header + data + (b"\n" if len(data) % 2 else b"")


def deb(data_files: dict[str, bytes]) -> bytes:
    """A Debian binary package as deb(5) lays it out, its files in `data.tar.xz`."""
    control = tarball({"./control": b"Package: golang-calc-dev\n"}, "xz")
    return (
        b"!<arch>\n"
        + ar_member("debian-binary", b"2.0\n")
        + ar_member("control.tar.xz", control)
        + ar_member("data.tar.xz", tarball(data_files, "xz"))
    )


def mirror_with(root: Path, pool: str, data: bytes) -> str:
    """A file:// mirror under `root` holding `data` at `pool/<pool>`; returns its address."""
    target = root / "pool" / pool
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return root.as_uri()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_debian_file_is_downloaded_once_and_checked_again_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tarball({"calc-1.0/calc.go": GO_CALC.encode()})
    monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", mirror_with(tmp_path / "m", POOL, data))
    cache = tmp_path / "cache"
    got = download_debian(POOL, sha(data), cache)
    assert got == cache / "golang-calc_1.0.orig.tar.gz" and got.read_bytes() == data
    shutil.rmtree(tmp_path / "m")  # offline from now on: the cached copy serves
    assert download_debian(POOL, sha(data), cache).read_bytes() == data
    got.write_bytes(b"damaged")  # a damaged copy is not trusted: downloaded anew, or refused
    with pytest.raises(PrepareError, match="cannot be reached"):
        download_debian(POOL, sha(data), cache)


def test_a_debian_file_whose_sha256_differs_is_refused_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tarball({"calc-1.0/calc.go": GO_CALC.encode()})
    monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", mirror_with(tmp_path / "m", POOL, data))
    cache = tmp_path / "cache"
    with pytest.raises(PrepareError, match=r"sha256 \w+ is not the case's"):
        download_debian(POOL, sha(b"another release"), cache)
    assert [p.name for p in cache.iterdir() if p.is_file()] == []


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """An http server on 127.0.0.1 serving `folder`, for the test's duration; its address."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_http_mirror_serves_the_file_and_a_missing_one_names_the_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tarball({"calc-1.0/calc.go": GO_CALC.encode()})
    mirror_with(tmp_path / "m", POOL, data)
    with served(tmp_path / "m") as address:
        monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", address)
        assert download_debian(POOL, sha(data), tmp_path / "cache").read_bytes() == data
        with pytest.raises(PrepareError, match="Debian's archive has no main/g/golang-calc/x"):
            download_debian("main/g/golang-calc/x_2.0.orig.tar.gz", sha(data), tmp_path / "c2")


def test_a_deb_is_unpacked_from_its_data_tarball_at_the_root_named(tmp_path: Path) -> None:
    inner = "usr/share/gocode/src/example.org/calc"
    package = tmp_path / "golang-calc-dev_1.0-1_all.deb"
    package.write_bytes(deb({f"./{inner}/calc.go": b"package calc\n", "./usr/x": b"x"}))
    unpack(package, tmp_path / "repo", inner)
    assert sorted(p.name for p in (tmp_path / "repo").iterdir()) == ["calc.go"]
    with pytest.raises(PrepareError, match="has no folder 'usr/share/none'"):
        unpack(package, tmp_path / "other", "usr/share/none")
    climbing = tmp_path / "climbing_1.0-1_all.deb"
    climbing.write_bytes(deb({"../escaped.go": b"x"}))
    with pytest.raises(PrepareError, match="cannot be unpacked"):
        unpack(climbing, tmp_path / "third", ".")
    assert list(tmp_path.rglob("escaped.go")) == []


def go_case(**over: object) -> Case:
    data: dict[str, object] = {
        "id": "calc-1-0",
        "family": "regression",
        "ecosystem": "go",
        "summary": "Add subtracts",
        "source": ["https://example.org/calc/changelog"],
        "package": {"name": "calc", "version": "1.0", "debian": POOL, "sha256": "", "root": "."},
        "check": {"command": "go test ./...", "expect": "want 5"},
        "broken": {"patch": GO_BROKEN},
        "fix": {"patch": GO_FIX},
        "hidden": {"patch": GO_HIDDEN, "command": "go test -run Hidden ./..."},
    }
    data.update(over)
    return Case.model_validate(data)


def test_a_machine_without_go_is_told_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tarball({"calc-1.0/calc.go": GO_CALC.encode()})
    monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", mirror_with(tmp_path / "m", POOL, data))
    package = {"name": "calc", "version": "1.0", "debian": POOL, "sha256": sha(data)}
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(PrepareError, match="no Go tool chain"):
        prepare(go_case(package={**package, "root": "calc-1.0"}), tmp_path / "cache")


@pytest.mark.slow
def test_a_go_case_from_a_debian_tarball_fails_then_passes_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tarball's top folder is the module (a go.mod without requirements); the check runs
    with the shared caches and no proxy: an import from outside the standard library fails."""
    if shutil.which("go") is None:
        pytest.skip("no Go tool chain on this machine (CI has Debian's golang-go)")
    files = {"calc-1.0/calc.go": GO_CALC.encode(), "calc-1.0/go.mod": b"module example.org/calc\n"}
    data = tarball(files)
    monkeypatch.setenv("FIXBOT_BENCH_DEBIAN_MIRROR", mirror_with(tmp_path / "m", POOL, data))
    package = {"name": "calc", "version": "1.0", "debian": POOL, "sha256": sha(data)}
    case = go_case(package={**package, "root": "calc-1.0"})
    cache = tmp_path / "cache"
    assert verify_case(case, cache).problems == []
    prepared = prepare(case, cache)
    assert prepared.env["GOPROXY"] == "off" and prepared.env["GOTOOLCHAIN"] == "local"
    assert Path(prepared.env["GOCACHE"]).is_relative_to(cache / "envs")
    (prepared.repo / "net.go").write_text('package calc\n\nimport _ "example.com/elsewhere"\n')
    done = subprocess.run(
        "go build ./...", shell=True, cwd=prepared.repo, env=prepared.env, capture_output=True
    )
    assert done.returncode != 0 and b"example.com/elsewhere" in done.stderr
