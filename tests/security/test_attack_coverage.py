"""Attacks on the Rust and node coverage paths of the spectrum by a helper who did not write
them (`fixbot/agent/rustcov.py`, `nodecov.py`, `v8js.py`, `runnercov.py`). Everything those
paths run (the check again, cargo's runner, node's preloaded hook, llvm-profdata, llvm-cov,
node printing the report) runs through the run's launcher, in the commands' world: what comes
back is the log, which the project's code can forge. A held control is a passing test that
fails without it; a hole found is fixed here or marked xfail(strict=True) and listed in
docs/SECURITY.md's "Known gaps". Real temporary repositories, real launchers, real node."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from fixbot.agent import gocov, nodecov, runnercov, rustcov, spectrum, tracerank
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
from tests.fakes.repo import make_repo

HOST = "x86_64-unknown-linux-gnu"
CANARY = "FIXBOT_ATTACK_CANARY"
SECRET = "s3cret-beside-the-repository"
LIB_RS = "pub fn sign(x: i32) -> i32 {\n    if x > 0 { 1 } else { 1 }\n}\n"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _outside(tmp_path: Path) -> Path:
    """A secret file beside the repository: nothing of it may be ranked."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    return secret


def _launcher(repo: Path, path: str) -> Launcher:
    return Launcher(repo, {"PATH": path}, namespace=False, deadline=Deadline.start(None))


# Lines a project can make cross back after a marker (its own print, a test name holding
# newlines, a planted tool): each used to end the run with an exception.
HOSTILE_LCOV = [
    "DA:\u00b2,1",  # a digit to str.isdigit, not to int
    "DA:" + "9" * 5000 + ",1",  # past int's 4300 digits
]


@pytest.mark.parametrize("line", HOSTILE_LCOV, ids=["superscript", "5000-digits"])
def test_a_forged_lcov_number_is_skipped_not_fatal(line: str) -> None:
    out = f"{rustcov.MARK}\nroot /r\n{rustcov.TEST_MARK} 101 t\nSF:src/lib.rs\n{line}\nDA:2,1\n"
    _, runs, _ = rustcov.parse(out)
    assert runs[0].lines == {"src/lib.rs": {2}}


def test_a_forged_llvm_version_is_read_without_failing() -> None:
    long = "9" * 5000
    probe = rustcov.parse_probe(
        f"release: 1.80.0\nhost: {HOST}\nLLVM version: {long}\n"
        f"{rustcov.TOOL_MARK} LLVM version {long} /x/llvm-profdata\n"
    )
    assert probe.release == "1.80.0" and probe.tools == ()


def test_a_source_path_with_a_nul_byte_or_a_link_loop_is_left_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "lib.rs").write_text(LIB_RS)
    (repo / "src" / "loop.rs").symlink_to("loop.rs")
    lines = {"src/a\0b.rs": {2}, "src/loop.rs": {1}, "src/lib.rs": {2}}
    for root in ("", str(repo), "/a\0b"):
        found = rustcov.rank(repo, root, [rustcov.Run("t", True, lines)])
        assert [(s.path, s.name) for s in found] == [("src/lib.rs", "sign")]


@pytest.mark.parametrize("which", ["v8", "mapped", "runner"])
def test_a_forged_node_report_nested_deeply_or_naming_nul_or_a_loop_is_left_out(
    tmp_path: Path, which: str
) -> None:
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "sign.js").write_text("function sign(x) {\n  return 1;\n}\n")
    (repo / "lib" / "loop.js").symlink_to("loop.js")
    deep = "[" * 60000
    if which == "runner":
        files = {
            p: {"functions": [["sign", 1, 3, 1]], "blocks": []}
            for p in ("lib/a\0b.js", "lib/loop.js", "lib/sign.js")
        }
        out = f"{nodecov.MARK}\n" + json.dumps({"provider": True, "files": files})
        assert runnercov.parse_report(f'{nodecov.MARK}\n{{"files": {deep}\n') == (True, {})
        found = nodecov.rank_lines(repo, runnercov.parse_report(out)[1], [])
    else:
        key, functions = (
            ("path", [["sign", [[2, 30, 1]]], ["", [[0, 33, 1]]]])
            if which == "v8"
            else ("mapped", [["sign", 1, 3, 1]])
        )
        lines = [deep] + [
            json.dumps({key: p, "functions": functions, "blocks": []})
            for p in ("lib/a\0b.js", "lib/loop.js", "lib/sign.js")
        ]
        out = "\n".join([nodecov.MARK, *lines]) + "\n"
        coverage, mapped = nodecov.parse(out), nodecov.parse_mapped(out)
        assert nodecov.transformed(repo, coverage) == []
        found = nodecov.rank(repo, coverage, [], (), mapped)
    assert [(s.path, s.name) for s in found] == [("lib/sign.js", "sign")]


def test_the_python_and_go_spectra_skip_the_same_hostile_reports(tmp_path: Path) -> None:
    """The same class in the older spectra: the line tracer's report (an odd line number, one
    nested 60000 deep, a NUL byte, a link loop) and a Go cover profile (a 5000-digit line, a
    NUL byte, a committed link loop `loop.go` beside the package's files, which the ranking
    globs) leave those out and rank the repository's own function."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def f():\n    return 1\n")
    (repo / "loop.py").symlink_to("loop.py")
    contexts = {"\u00b2": [0], "9" * 5000: [0], "2": [0]}
    files = {"a\0b.py": {"contexts": {"1": [0]}}, "loop.py": {"contexts": {"1": [0]}}}
    report = json.dumps({"tests": ["t"], "files": {**files, "m.py": {"contexts": contexts}}})
    out = f"{tracerank.MARK}\n{report}\n"
    assert tracerank.reports(f'{tracerank.MARK}\n{{"a": {"[" * 60000}\n') == ([], True)
    found = tracerank.rank(repo, tracerank.parse(out), ["t"])
    assert [(s.path, s.name, s.focus) for s in found] == [("m.py", "f", (2,))]
    (repo / "go.mod").write_text("module example.com/mod\n")
    (repo / "a.go").write_text("package mod\n\nfunc A() int {\n\treturn 1\n}\n")
    (repo / "loop.go").symlink_to("loop.go")
    names = [
        "a\0b.go:3.15,5.2",
        "loop.go:3.15,5.2",
        "a.go:" + "9" * 5000 + ".1,5.2",
        "a.go:3.15,5.2",
    ]
    profile = "mode: count\n" + "".join(f"example.com/mod/{n} 1 1\n" for n in names)
    failed, whole = gocov.parse(f"{gocov.MARK}\n{gocov.FAILING}\n{profile}{gocov.MARK}\n{profile}")
    found = gocov.rank(repo, failed, whole, ["TestA"], 'want "x"')
    assert [(s.path, s.name) for s in found] == [("a.go", "A")]


def _fake_rust(tmp_path: Path, secret: Path) -> tuple[Path, Path]:
    """A rustc/cargo/llvm tool chain of the project's choosing, first on the commands' PATH
    (a folder the set-up can write, as `/opt/venv/bin` is): its rustc claims LLVM 18 with the
    profiler runtime, its llvm-profdata-18 and llvm-cov-18 record their environment and print
    forged lcov, and its cargo runs a test binary through fixbot's runner after planting a
    forged test run (a name holding newlines) into fixbot's private coverage folder.
    Returns (the tools' folder, the environment dump)."""
    tools, dump = tmp_path / "tools", tmp_path / "tool-env.txt"
    sysroot = tmp_path / "sysroot"
    runtime = sysroot / "lib" / "rustlib" / HOST / "lib"
    runtime.mkdir(parents=True)
    (runtime / "libprofiler_builtins-0.rlib").write_text("")
    _script(
        tools / "rustc",
        'case "$1" in\n'
        f"  -vV) printf 'release: 1.80.0\\nhost: {HOST}\\nLLVM version: 18.1.7\\n' ;;\n"
        f"  --print) echo {sysroot} ;;\n"
        "esac\n",
    )
    _script(
        tools / "llvm-profdata-18",
        '[ "$1" = --version ] && { echo "LLVM version 18.1.7"; exit 0; }\n'
        f'env > {dump}\nfor a; do out="$a"; done\n: > "$out"\n',
    )
    forged = "\n".join(
        [
            f"SF:{secret}",
            "DA:1,5",
            "SF:../../../../../../../../" + str(secret).lstrip("/"),
            "DA:1,5",
            "SF:src/link.rs",
            "DA:1,5",
            "SF:src/lib.rs",
            "DA:" + "9" * 5000 + ",1",
            "DA:2,1",
        ]
    )
    _script(tools / "llvm-cov-18", f"cat <<'EOF'\n{forged}\nEOF\n")
    _script(
        tools / "test-binary",
        'case "$1" in\n'
        "  --list) printf 'tests::bad: test\\ntests::good: test\\n' ;;\n"
        '  --exact) [ "$2" = tests::bad ] && exit 101; exit 0 ;;\n'
        "  *) exit 101 ;;\n"
        "esac\n",
    )
    runner = rustcov.runner_variable(HOST)
    _script(
        tools / "cargo",
        'f="$FIXBOT_RUST_COVERAGE/t/forged" && mkdir -p "$f" && echo 101 > "$f/exit" && '
        'echo /bin/true > "$f/bin" && '
        "printf 'x\\nSF:src/lib.rs\\nDA:\\302\\262,1\\nDA:2,1\\n' > \"$f/name\"\n"
        'bin="$CARGO_TARGET_DIR/debug/deps/signs-0123" && mkdir -p "${bin%/*}" && '
        f'cp {tools / "test-binary"} "$bin"\n'
        f'"${runner}" "$bin"\n',
    )
    return tools, dump


def test_a_rust_projects_planted_tools_and_forged_runs_rank_only_its_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's rustc, llvm-profdata and llvm-cov (found on the commands' PATH) run in the
    commands' world with their environment, never fixbot's; their forged lcov (an absolute
    path, `..`, a link out, a 5000-digit line) and a forged test run planted by the build
    into fixbot's coverage folder (a name whose newlines print `DA:\u00b2,1`) rank only the
    repository's own function, and end nothing."""
    monkeypatch.setenv(CANARY, SECRET)
    secret = _outside(tmp_path)
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "signs"\nversion = "0.1.0"\n')
    (repo / "src" / "lib.rs").write_text(LIB_RS)
    (repo / "src" / "link.rs").symlink_to(secret)
    tools, dump = _fake_rust(tmp_path, secret)
    launcher = _launcher(repo, f"{tools}:/usr/bin:/bin")
    found, why = spectrum.suspects(launcher, repo, "cargo test", ["tests::bad"], 60)
    assert why is None
    assert [(s.path, s.name) for s in found] == [("src/lib.rs", "sign")]
    env = dump.read_text()
    # the launcher's environment, with its per-command mark: one of the commands
    assert "FIXBOT_COMMAND_MARK=" in env and f"PATH={tools}:" in env
    assert CANARY not in env and SECRET not in env


# A node test of the project's: it fails, stops at a `debugger` statement, plants a forged V8
# report (a URL climbing out through encoded slashes, a link out of the repository) in the
# coverage folder, and writes a forged marker with hostile lines straight into the log through
# the first ancestor whose standard output is not /dev/null.
NODE_TEST = r"""
const fs = require("fs"), path = require("path"), {pathToFileURL} = require("url");
const {sign} = require("../lib/sign.js");
debugger;
const root = pathToFileURL(process.cwd()).href + "/";
const fn = [{functionName: "x", ranges: [{startOffset: 0, endOffset: 20, count: 1}]}];
fs.writeFileSync(path.join(process.env.NODE_V8_COVERAGE, "coverage-forged.json"), JSON.stringify({
  result: [{url: root + "..%2F..%2Fsecret.txt", functions: fn},
           {url: root + "lib/link.js", functions: fn}]}));
const lines = [process.env.MARK, "[".repeat(60000),
  JSON.stringify({path: "lib/a\u0000b.js", functions: [["x", [[0, 20, 1]]]]}),
  JSON.stringify({mapped: "../secret.txt", functions: [["x", 1, 1, 1]], blocks: []}),
  JSON.stringify({path: "lib/link.js", functions: [["x", [[0, 20, 1]]]]})];
let pid = process.ppid;
for (let i = 0; i < 8 && pid > 1; i++) {
  let out = "";
  try { out = fs.readlinkSync(`/proc/${pid}/fd/1`); } catch (e) { break; }
  if (out !== "/dev/null") {
    fs.appendFileSync(`/proc/${pid}/fd/1`, lines.join("\n") + "\n");
    fs.writeFileSync(path.join(process.cwd(), "forged-into"), out);
    break;
  }
  pid = Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
}
if (sign(0) !== 0) { console.error("sign(0) is not 0"); process.exit(1); }
"""


@needs_node
@pytest.mark.slow
def test_a_node_test_forging_reports_and_the_log_ranks_only_the_repositorys_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The node check's own test forges both what node prints (a report in the coverage
    folder) and the log itself (a marker of its own before fixbot's, written through an
    ancestor's standard output): files outside the repository, a link out of it, a NUL byte
    and a line nested 60000 deep are left out without ending the run, fixbot's real report
    after the forged marker still ranks `sign`, and the `debugger` statement does not stop
    the test under the preloaded hook."""
    monkeypatch.setenv(CANARY, SECRET)
    secret = _outside(tmp_path)
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "test").mkdir()
    (repo / "package.json").write_text('{"name": "signs", "version": "1.0.0"}\n')
    (repo / "lib" / "sign.js").write_text(
        '"use strict";\nfunction sign(x) {\n  if (x > 0) return 1;\n  return 1;\n}\n'
        "module.exports = {sign};\n"
    )
    (repo / "lib" / "link.js").symlink_to(secret)
    (repo / "test" / "sign.js").write_text(NODE_TEST)
    node = str(Path(shutil.which("node") or "node").parent)
    launcher = _launcher(repo, f"{node}:/usr/bin:/bin")
    check = f"MARK={nodecov.MARK} node test/sign.js"
    found, why = spectrum.suspects(launcher, repo, check, [], 60, ["test/sign.js"])
    assert (repo / "forged-into").is_file()  # the forgery reached the log
    assert why is None
    assert {(s.path, s.name) for s in found} == {("lib/sign.js", "sign")}


def _env_names(dump: Path) -> dict[str, str]:
    text = dump.read_text()
    dump.unlink()
    noise = {"PWD", "OLDPWD", "SHLVL", "_", "FIXBOT_COMMAND_MARK"}  # the sweep's per-command mark
    return {
        k: v
        for k, _, v in (line.partition("=") for line in text.splitlines() if "=" in line)
        if k not in noise
    }


def test_each_coverage_re_run_adds_only_its_own_variables_to_the_checks_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spectrum's re-runs (Rust, V8, jest's own coverage) run the check with the check's
    environment plus the coverage variables they name, nothing of fixbot's process (a variable
    only fixbot's environment holds is in none of them)."""
    monkeypatch.setenv(CANARY, SECRET)
    repo = tmp_path / "repo"
    repo.mkdir()
    dump = tmp_path / "env.txt"
    tools = tmp_path / "tools"
    _script(tools / "jest", f"env > {dump}\n")
    launcher = _launcher(repo, f"{tools}:/usr/bin:/bin")
    log = tmp_path / "log"
    check = f"env > {dump}"
    launcher.run(check, repo, log, 60)
    plain = _env_names(dump)
    added = {
        "rust": (
            rustcov.command(check, ["t"], HOST, ("/bin/true", "/bin/true")),
            {"RUSTFLAGS", "CARGO_TARGET_DIR", "LLVM_PROFILE_FILE", "FIXBOT_RUST_COVERAGE"}
            | {rustcov.runner_variable(HOST)},
        ),
        "v8": (nodecov.command(check), {"NODE_V8_COVERAGE", "fixbot_v8_sources", "NODE_OPTIONS"}),
        "jest": (
            runnercov.runner_command("jest", runnercov.runner("jest") or ("jest", 4, "")),
            {"fixbot_cov"},
        ),
    }
    assert CANARY not in plain
    for name, (command, names) in added.items():
        launcher.run(command, repo, log, 60)
        seen = _env_names(dump)
        assert set(seen) - set(plain) == names, name
        assert {k: v for k, v in seen.items() if k in plain} == plain, name


# Runs in a child Python whose address space is capped: reading `/dev/zero` to its end would
# otherwise take the machine's memory before it failed.
READERS = r"""
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from fixbot.agent import leads, nodecov, nodenear, rustcalls
repo = Path(sys.argv[1])
print([s.name for s in rustcalls.spans(repo, ["t"])])
print(rustcalls.functions(repo, "tests/zero.rs"))
print(len(leads.spans(repo, "ImportError: cannot import name 'gone' from 'app'")))
print(sorted(nodenear.required(repo, ["test/t.js"])))
"""


@pytest.mark.slow
def test_a_committed_link_to_dev_zero_is_never_read(tmp_path: Path) -> None:
    """A pull request commits links named like sources to `/dev/zero` (`tests/zero.rs`,
    `zero.py`, a package's `package.json`): the Rust call graph (every Rust run's context and
    the coverage ranking's order), the error text's leads and node's required files read
    regular files of the repository only; reading the link never ended (its size says 0)."""
    import subprocess
    import sys

    repo = tmp_path / "repo"
    for folder in ("src", "tests", "test", "lib"):
        (repo / folder).mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "signs"\nversion = "0.1.0"\n')
    (repo / "src" / "lib.rs").write_text(LIB_RS)
    (repo / "tests" / "t.rs").write_text("#[test]\nfn t() {\n    signs::sign(0);\n}\n")
    (repo / "app.py").write_text("x = 1\n")
    (repo / "test" / "t.js").write_text('require("../lib");\n')
    (repo / "lib" / "index.js").write_text("module.exports = 1;\n")
    for link in ("tests/zero.rs", "zero.py", "lib/package.json"):
        (repo / link).symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-c", READERS, str(repo)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["['sign']", "[]", "0", "['lib/index.js']"]


@pytest.mark.slow
def test_a_run_on_configuration_files_committed_as_links_to_dev_zero_ends_normally(
    tmp_path: Path,
) -> None:
    """`go.mod`, `package.json`, `pyproject.toml`, `Cargo.toml` committed as links to /dev/zero:
    the failed check's digest read `go.mod` by name and took the machine's memory (a
    MemoryError under a 4 GB limit); every read of a repository file by name goes through
    `repofiles.regular_text` now."""
    import resource
    import subprocess
    import sys

    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    for name in ("go.mod", "package.json", "pyproject.toml", "Cargo.toml", "setup.cfg"):
        (repo / name).symlink_to("/dev/zero")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "links"], cwd=repo, check=True)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    done = subprocess.run(
        [
            *(sys.executable, "-m", "fixbot", "run", "-C", str(repo), "--max-attempts", "1"),
            *("--check-command", "python3 -c 'import missing_xyz'", "--fix-commands", "true"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in (0, 1, 3), (done.returncode, done.stderr[-2000:])
