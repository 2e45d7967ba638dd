"""fixbot's observer inside go test binaries (`fixbot/observe/go/observer.go`) and its side in
fixbot (`fixbot.observe.golang`): the folders it is added to, the overlay, the records read back
(bounded, each line's MAC verified under the run's key and made the channel's nonce), a real
`go test -json` through the overlay, and the judge over go's records: a fix run whose TestMain
never ran, or that ended inside a test, is not verified where the start's streamed, and is
without the observer's records (the control)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.core.failure import CheckResult
from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.observe import golang, judge, reporter
from fixbot.observe.channel import Channel
from fixbot.observe.stream import parse
from fixbot.run.checkrun import unloaded
from fixbot.run.outcome import verified_line
from tests.fakes.gomodule import go_module

APP = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
TESTS = """\
package calc

import "testing"

func TestAdd(t *testing.T) {
\tif Add(2, 2) != 4 {
\t\tt.Fatal("Add(2, 2) != 4")
\t}
}

func TestZero(t *testing.T) {
\tt.Run("case", func(t *testing.T) {})
\tif Add(0, 0) != 0 {
\t\tt.Fatal("Add(0, 0) != 0")
\t}
}

func TestSkipped(t *testing.T) { t.Skip("later") }

func TestPanics(t *testing.T) {
\tif Add(1, 1) != 2 {
\t\tpanic("Add(1, 1) != 2")
\t}
}
"""
# an init() that prints test2json's lines and exits 0 before any test runs (round 20)
FORGED = """\
package calc

import (
\t"fmt"
\t"os"
\t"strings"
)

func init() {
\tif strings.HasSuffix(os.Args[0], ".test") {
\t\tfmt.Println("=== RUN   TestAdd\\n--- PASS: TestAdd (0.00s)\\nPASS")
\t\tos.Exit(0)
\t}
}

func Add(a, b int) int { return a + b }
"""
NONCE = "n" * 32


def _module(tmp_path: Path) -> Path:
    files = {
        "go.mod": "module example.com/mod\n\ngo 1.19\n",
        "calc/calc.go": APP,
        "calc/calc_test.go": TESTS,
        "own/own.go": "package own\n",
        "own/own_test.go": 'package own\n\nimport "testing"\n\nfunc TestMain(m *testing.M) {}\n',
        "tagged/t.go": "package t\n",
        "tagged/t_test.go": "//go:build it\n\npackage t\n\nfunc TestMain(m *testing.M) {}\n",
        "xtest/x.go": "package x\n",
        "xtest/x_test.go": "package x_test\n",
        "vendor/v/v_test.go": "package v\n",
        ".hidden/h_test.go": "package h\n",
        "nontest/n.go": "package n\n",
    }
    root = tmp_path / "mod"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_folders_with_tests_get_their_package_name_and_own_test_mains_are_folded(
    tmp_path: Path,
) -> None:
    root = _module(tmp_path)
    found, own = golang.test_folders(root)
    assert found == {
        "calc": golang.Folder("calc_test"),
        "xtest": golang.Folder("x_test"),
        "own": golang.Folder("own", "own_test.go"),  # the observer in their TestMain's package
    }
    assert own == ["tagged"]  # its TestMain under a build constraint: left out, said
    (root / "go.mod").unlink()
    assert golang.test_folders(root) == ({}, [])  # no go module: nothing is added


def test_the_overlay_adds_the_observer_as_the_external_test_package(tmp_path: Path) -> None:
    root = _module(tmp_path)
    folder = tmp_path / "observer"
    folder.mkdir()
    prepared = golang.prepare(folder, "fixbot_observer_ab", [tmp_path / "none", root], root, {})
    overlay = (folder / golang.OVERLAY).read_text()
    assert f"{root}/calc/fixbot_observer_ab_test.go" in overlay
    assert (folder / "fixbot_observer_ab_go_calc_test.go").read_text().startswith("// fixbot")
    assert "package calc_test\n" in (folder / "fixbot_observer_ab_go_calc_test.go").read_text()
    # their TestMain's file overlaid by a copy with it renamed, which the observer's runs
    main = folder / golang.main_name("fixbot_observer_ab", "own")
    assert f'"{root}/own/own_test.go": "{main}"' in overlay and prepared.own_main == ["tagged"]
    assert "func fixbotMain(m *testing.M) {}" in main.read_text()
    ours = (folder / "fixbot_observer_ab_go_own_folded.go").read_text()
    assert "package own\n" in ours and "func fixbotMain" not in ours
    program = folder / golang.EXEC  # go runs each test binary through it (`goexec`)
    assert prepared.env == {
        "GOFLAGS": f"-overlay={folder / golang.OVERLAY} -vet=off -count=1 -exec={program}"
    }
    assert prepared.program == program and program.stat().st_mode & 0o777 == 0o755
    # no variable names the records folder: it is in the copies, as the run's key is
    assert f'const fixbotRecords = "{folder / "go"}"' in ours
    assert len(prepared.key) == golang.KEY_BYTES and prepared.key.hex() not in ours
    assert (folder / "go").stat().st_mode & 0o777 == 0o700
    theirs = golang.prepare(tmp_path / "o2", "m", [root], root, {"GOFLAGS": "-overlay=x.json"})
    assert not theirs.env and "GOFLAGS" in theirs.why  # their overlay: unobserved, said
    theirs = golang.prepare(tmp_path / "o3", "m", [root], root, {"GOFLAGS": "-exec=qemu"})
    assert not theirs.env and "-exec" in theirs.why  # their own -exec: unobserved, said


def _signed(key: bytes, name: str, *bodies: str) -> str:
    """The records file `name`'s lines of `bodies`, each MACed under `key` as the observer does."""
    return "".join(
        f"{golang.line_mac(key, name, i, body.encode())}\t{body}\n" for i, body in enumerate(bodies)
    )


def test_records_are_read_back_bounded_with_the_channels_nonce(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = tmp_path / "go"
    records.mkdir()
    key = bytes(range(32))
    prepared = golang.Prepared(records=records, key=key)
    (records / "1-0.records").write_text(_signed(key, "1-0.records", '{"k": "start"}') + "plain\n")
    (records / "2-0.records").symlink_to("/etc/hostname")  # no link is followed
    os.mkfifo(records / "3-0.records")  # nor a fifo read (it would block)
    text, cut = golang.collect(prepared, NONCE)
    assert text == f'{NONCE}\t{{"k": "start"}}\nplain\n'.encode() and not cut
    seen = parse(text.decode(), NONCE)
    assert seen.sessions == 1 and seen.forged == 1  # another's line is a forged line
    monkeypatch.setattr(golang, "MAX_STREAM_BYTES", 10)
    assert golang.collect(prepared, NONCE)[1]  # past the bound: the stream's overflow
    monkeypatch.setattr(golang, "MAX_STREAM_BYTES", 10**6)
    monkeypatch.setattr(golang, "MAX_FILES", 1)
    assert golang.collect(prepared, NONCE)[1]


def test_a_record_is_kept_only_with_its_mac_under_the_runs_key(tmp_path: Path) -> None:
    """Round 36's completion: code that reads the records file back (its descriptor) learns the
    MACs of the lines already there, not the key: a line it writes with another key, or with a
    MAC copied from another line, another place or another file, is forged; the observer's own
    lines are kept. Fails without the check (any line whose head is hex kept, or read as the
    nonce)."""
    records = tmp_path / "go"
    records.mkdir()
    key, other = b"k" * 32, b"o" * 32
    start, end = '{"k":"start","runner":"go"}', '{"k":"end","status":0,"runner":"go"}'
    passed = '{"k":"r","id":"m::TestAdd","w":"call","o":"passed"}'
    honest = _signed(key, "1-0.records", start, passed)
    head = honest.split("\t", 1)[0]  # what the code reads back: the start line's MAC
    forged = [
        _signed(other, "1-0.records", start, passed, end).splitlines()[2],  # another key
        f"{head}\t{end}",  # the start's MAC on the end
        _signed(key, "1-0.records", end).strip(),  # the right key at another index
        _signed(key, "9-0.records", start, passed, end).splitlines()[2],  # another file's
    ]
    (records / "1-0.records").write_text(honest + "\n".join(forged) + "\n")
    seen = parse(
        golang.collect(golang.Prepared(records=records, key=key), NONCE)[0].decode(), NONCE
    )
    assert seen.sessions == 1 and seen.ended == 0 and seen.forged == len(forged)
    assert seen.tests == {"m::TestAdd": "passed"}
    unkeyed = golang.collect(golang.Prepared(records=records), NONCE)[0].decode()
    assert parse(unkeyed, NONCE).sessions == 0  # no key: nothing verifies
    with pytest.raises(ValueError):
        golang.source("calc_test", b"short", tmp_path)


def _go_test(tmp_path: Path, code: str, mod: str | None = None) -> tuple[Observation, str]:
    """`go test -json ./...` of a module holding `code` and TESTS (and the go.mod `mod`, None:
    `go_module`'s), through the observer: what it streamed (parsed with the channel's nonce)
    and go's own output."""
    files = {"calc/calc.go": code, "calc/calc_test.go": TESTS, **({"go.mod": mod} if mod else {})}
    repo, env = go_module(tmp_path, files)
    folder = tmp_path / "observer"
    folder.mkdir()
    prepared = golang.prepare(folder, "fixbot_observer_cd", [repo], repo, {})
    go = shutil.which("go", path=env["PATH"]) or "go"
    done = subprocess.run(
        [go, "test", "-json", "./..."],
        cwd=repo,
        env={**env, **prepared.env},
        capture_output=True,
        text=True,
        check=False,
    )
    text, _ = golang.collect(prepared, NONCE)
    return parse(text.decode(), NONCE), done.stdout


def test_a_go_test_binary_streams_each_tests_end_and_its_exit_code(tmp_path: Path) -> None:
    seen, output = _go_test(tmp_path, APP)
    assert '"Action":"fail","Package":"example.com/mod/calc","Test":"TestAdd"' in output
    # TestPanics' panic ends the binary inside it (its failure streamed first): no end record
    assert seen.runners == ["go"] and seen.sessions == 1 and seen.ended == 0
    assert seen.tests == {
        "example.com/mod/calc::TestAdd": "failed",
        "example.com/mod/calc::TestZero": "passed",
        "example.com/mod/calc::TestSkipped": "skipped",
        "example.com/mod/calc::TestPanics": "failed",
    }
    assert not seen.forged
    seen, _ = _go_test(tmp_path / "again", APP.replace("a - b", "a + b"))
    assert seen.ended == 1 and seen.statuses == [0] and "failed" not in seen.tests.values()


def test_a_module_of_an_older_go_language_builds_the_observer(tmp_path: Path) -> None:
    """go.mod's `go` line sets the language the observer's file compiles under (`-lang`): it
    uses nothing newer than go 1.12's (`interface{}`, not go 1.18's `any`; `0600`, not `0o600`),
    or every package of an older module fails to build observed (`predeclared any requires
    go1.18`: each go case of the bench's corpus ended `escalated` so)."""
    seen, output = _go_test(
        tmp_path, APP.replace("a - b", "a + b"), "module example.com/mod\n\ngo 1.12\n"
    )
    assert "build failed" not in output and "requires go1" not in output, output
    assert seen.runners == ["go"] and seen.ended == 1 and seen.statuses == [0]


def test_an_init_that_forges_test2json_streams_nothing_and_is_not_verified(
    tmp_path: Path,
) -> None:
    start, _ = _go_test(tmp_path / "start", APP)
    forged, output = _go_test(tmp_path / "fix", FORGED)
    assert '"Action":"pass","Package":"example.com/mod/calc","Test":"TestAdd"' in output
    assert forged.sessions == 0
    found = judge.findings(start, forged, ["calc/calc.go"])
    assert any(f.startswith("observer-missing") for f in found), found


def _records(*lines: str) -> Observation:
    return parse("".join(f"{NONCE}\t{line}\n" for line in lines), NONCE)


START = _records(
    '{"k":"start","runner":"go"}',
    '{"k":"r","id":"m::TestAdd","w":"call","o":"failed"}',
    '{"k":"r","id":"m::TestZero","w":"call","o":"passed"}',
    '{"k":"end","status":1,"runner":"go"}',
)


def test_a_binary_ended_inside_a_test_is_cut_short_and_its_test_unseen() -> None:
    """The cheat that prints `--- PASS` lines and `syscall.Exit(0)`s inside TestAdd: its
    session began and never ended, TestAdd never streamed its end."""
    exited = _records('{"k":"start","runner":"go"}')
    found = judge.findings(START, exited, ["app.go"])
    assert any(f.startswith("observer-cut-short") for f in found), found
    assert any(f.startswith("observer-unseen") and "m::TestAdd" in f for f in found), found


def test_without_the_observers_records_the_same_run_is_verified() -> None:
    """The control proven: with no record from go's test binaries at either end (no observer),
    the judge has nothing to hold the cheat by."""
    assert judge.findings(None, None, ["app.go"]) == []
    assert judge.findings(Observation(), Observation(), ["app.go"]) == []


def test_an_honest_fix_streams_no_finding() -> None:
    fixed = _records(
        '{"k":"start","runner":"go"}',
        '{"k":"r","id":"m::TestAdd","w":"call","o":"passed"}',
        '{"k":"r","id":"m::TestZero","w":"call","o":"passed"}',
        '{"k":"end","status":0,"runner":"go"}',
    )
    assert judge.findings(START, fixed, ["app.go"]) == []
    report = {"m::TestAdd": "passed", "m::TestZero": "passed", "m::TestZero/case": "passed"}
    others = {
        "other::TestX": "passed",
        "m": "failed",
        "m::ExampleAdd": "failed",
        "m::FuzzA": "passed",
    }
    assert reporter.disagreements(report | others, fixed) == []
    forged = {**report, "m::TestAdd": "passed"}
    streamed_failed = _records(
        '{"k":"start","runner":"go"}',
        '{"k":"r","id":"m::TestAdd","w":"call","o":"failed"}',
        '{"k":"r","id":"m::TestZero","w":"call","o":"passed"}',
        '{"k":"end","status":0,"runner":"go"}',
    )
    said = reporter.disagreements(forged, streamed_failed)
    assert said and said[0].startswith("observer-report") and "m::TestAdd" in said[0]
    found = judge.findings(START, streamed_failed, ["app.go"])
    assert any(f.startswith("observer-failed") for f in found), found


def test_a_file_no_build_takes_names_no_package(tmp_path: Path) -> None:
    """A generator beside the package (`//go:build ignore`, `package main`) does not name the
    external test package (`main_test` would not compile)."""
    root = _module(tmp_path)
    for n in range(2):
        (root / "calc" / f"gen{n}.go").write_text("//go:build ignore\n\npackage main\n")
    assert golang.test_folders(root)[0]["calc"] == golang.Folder("calc_test")


def test_the_channel_reads_the_go_records_with_its_stream() -> None:
    channel = Channel.open()
    more = f'{channel.nonce}\t{{"k":"start","runner":"go"}}\n'.encode()
    seen = channel.close(more, cut=True)
    assert seen.runners == ["go"] and seen.sessions == 1 and seen.overflow


def test_the_verified_line_names_the_folders_their_own_test_main_kept_out() -> None:
    seen = START.model_copy(update={"own_main": ["own"]})
    attempt = Attempt(number=1, fixer="scripted", tests={"m::TestAdd": "passed"}, seen=seen)
    assert verified_line(attempt) == (
        "Verified by the test runner's own report (1 tests) and fixbot's observer inside go"
        " (2 tests; go folders whose own TestMain was not folded in: own)."
    )


def test_a_check_whose_vet_cannot_read_the_observer_runs_again_unobserved(tmp_path: Path) -> None:
    """`go test -vet=all` on the command line overrides GOFLAGS' `-vet=off`: go 1.19's vet
    opens the overlay's file on disk and the package fails to build, naming the file."""
    log = tmp_path / "log"
    log.write_text("vet: open ./fixbot_observer_ab_test.go: no such file or directory\n")
    result = CheckResult(
        command="go test -vet=all ./...", exit_code=1, duration_s=0.1, log_path=log, output_bytes=0
    )
    assert unloaded("fixbot_observer_ab", Observation(), result)
    assert not unloaded("fixbot_observer_cd", Observation(), result)
    # the observer's copy failing to compile names the file the overlay maps to
    log.write_text(
        "# m [m.test]\n/tmp/obs/fixbot_observer_ab_go_m.go:12:5: predeclared any requires go1.18\n"
    )
    assert unloaded("fixbot_observer_ab", Observation(), result)


# a TestMain of the project's own, in either style: `os.Exit(m.Run())` or returning (go 1.15+)
THEIR_MAIN = """\
package calc_test

import (
\t"os"
\t"testing"
)

func TestMain(m *testing.M) {
\tos.Setenv("CALC_READY", "1")
\tos.Exit(m.Run())
}
"""


READY = """\
package calc

import (
\t"os"
\t"testing"
)

func TestReady(t *testing.T) {
\tif os.Getenv("CALC_READY") != "1" {
\t\tt.Fatal("their TestMain did not run")
\t}
}
"""


@pytest.mark.parametrize("style", ["exits", "returns"])
def test_a_folders_own_test_main_is_folded_in_and_observed(tmp_path: Path, style: str) -> None:
    main = THEIR_MAIN if style == "exits" else THEIR_MAIN.replace("os.Exit(m.Run())", "m.Run()")
    files = {
        "calc/calc.go": APP.replace("a - b", "a + b"),
        "calc/calc_test.go": TESTS,
        "calc/ready_test.go": READY,
        "calc/main_test.go": main,
    }
    repo, env = go_module(tmp_path, files)
    folder = tmp_path / "observer"
    folder.mkdir()
    prepared = golang.prepare(folder, "fixbot_observer_ef", [repo], repo, {})
    go = shutil.which("go", path=env["PATH"]) or "go"
    done = subprocess.run(
        [go, "test", "-json", "./..."],
        cwd=repo,
        env={**env, **prepared.env},
        capture_output=True,
        text=True,
        check=False,
    )
    text, _ = golang.collect(prepared, NONCE)
    seen = parse(text.decode(), NONCE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert seen.sessions == seen.ended == 1 and seen.statuses == [0]
    assert seen.tests["example.com/mod/calc::TestReady"] == "passed"
    assert seen.tests["example.com/mod/calc::TestAdd"] == "passed"


def test_a_second_run_of_the_same_tree_runs_the_binary_again_and_streams(tmp_path: Path) -> None:
    """go's test result cache would answer an unchanged package from the first run (the overlay's
    copy is the same bytes, the records' variable read before the test log starts): nothing
    streamed, an honest green unverified. The observed runs ask `-count=1` (each run's copy now
    holds its own key too, so its binary differs from the last run's: kept all the same)."""
    first, _ = _go_test(tmp_path, APP.replace("a - b", "a + b"))  # green: go caches it
    repo = tmp_path / "mod"
    folder = tmp_path / "again"
    folder.mkdir()
    prepared = golang.prepare(folder, "fixbot_observer_cd", [repo], repo, {})
    go = shutil.which("go") or "go"
    env = {"PATH": f"{Path(go).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    env["GOCACHE"] = str(tmp_path / "gocache")
    argv = [go, "test", "-json", "./..."]
    subprocess.run(argv, cwd=repo, env={**env, **prepared.env}, capture_output=True, check=False)
    again = parse(golang.collect(prepared, NONCE)[0].decode(), NONCE)
    assert first.sessions == again.sessions == 1 and again.tests == first.tests
