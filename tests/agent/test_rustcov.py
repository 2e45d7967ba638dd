"""The Rust spectrum: a real crate built with `-C instrument-coverage`, its failing test and its
passing ones run alone, and the version rule that keeps rustc's and llvm-profdata's LLVM equal."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.agent import locate, rustcov, spectrum
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher

# `sign` is wrong for zero; `double` and `shout` run under passing tests only or under all
LIB = """\
pub fn double(x: i32) -> i32 {
    x * 2
}

pub fn sign(x: i32) -> i32 {
    if x > 0 {
        1
    } else if x < 0 {
        -1
    } else {
        1
    }
}

pub fn describe(x: i32) -> String {
    let s = sign(double(x));
    format!("{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles() {
        assert_eq!(double(2), 4);
    }

    #[test]
    fn positive() {
        assert_eq!(describe(3), "1");
    }

    #[test]
    fn negative() {
        assert_eq!(describe(-3), "-1");
    }

    #[test]
    fn zero() {
        assert_eq!(describe(0), "0");
    }
}
"""


def _crate(tmp_path: Path) -> Path:
    repo = tmp_path / "crate"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text(
        '[package]\nname = "signs"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
    )
    (repo / "src" / "lib.rs").write_text(LIB)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _launcher(repo: Path, tmp_path: Path) -> Launcher:
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("no cargo on PATH")
    # rustup's proxies find their tool chains through the account's home (conftest.py gives
    # each test a throw-away HOME)
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    env = {
        "PATH": f"{Path(cargo).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or str(home / ".rustup"),
        "CARGO_HOME": os.environ.get("CARGO_HOME") or str(home / ".cargo"),
        "CARGO_NET_OFFLINE": "true",
    }
    launcher = Launcher(repo, env, deadline=Deadline.start(None))
    log = tmp_path / "probe.log"
    launcher.run(rustcov.probe_command(), repo, log, 60)
    tools = rustcov.choose(rustcov.parse_probe(log.read_text()))
    if isinstance(tools, str):
        pytest.skip(f"no Rust spectrum on this machine: {tools}")
    return launcher


@pytest.mark.slow
@pytest.mark.parametrize("check", ["cargo test", "RUSTFLAGS=--cap-lints=warn cargo test --lib"])
def test_the_function_only_the_failing_test_takes_ranks_first(tmp_path: Path, check: str) -> None:
    """The crate's `sign` goes wrong on zero: its `else` line ran under the failing test alone.
    A check that sets RUSTFLAGS itself still builds with coverage."""
    repo = _crate(tmp_path)
    launcher = _launcher(repo, tmp_path)
    found, why = spectrum.suspects(launcher, repo, check, ["tests::zero"], 600)
    assert why is None
    assert (found[0].path, found[0].name) == ("src/lib.rs", "sign")
    assert found[0].score == 1.0  # its `else` branch ran under the failing test alone
    assert found[0].focus == (11,)
    assert {s.name for s in found} == {"sign", "describe", "double"}  # no test function
    assert 11 in locate.executed(found)["src/lib.rs"]  # the failing run's lines handed on
    assert not (repo / "target").exists()  # the project's own build folder untouched
    assert not list(repo.glob("*.profraw"))  # no stray profile in the repository


@pytest.mark.slow
def test_a_failing_name_no_test_binary_lists_runs_nothing_alone_and_says_so(tmp_path: Path) -> None:
    repo = _crate(tmp_path)
    launcher = _launcher(repo, tmp_path)
    found, why = spectrum.suspects(launcher, repo, "cargo test", ["tests::absent"], 600)
    assert found == []
    assert why is not None and "none lists a failing test by its name" in why


def _probe(llvm: int, tools: tuple[tuple[str, int], ...], profiler: bool = True) -> rustcov.Probe:
    return rustcov.Probe("1.95.0", llvm, "x86_64-unknown-linux-gnu", profiler, tools)


def test_llvm_profdata_of_another_llvm_is_refused_and_the_note_names_both_versions() -> None:
    probe = _probe(22, (("/usr/bin/llvm-profdata", 14),))
    why = rustcov.choose(probe)
    assert isinstance(why, str)
    assert "rustc 1.95.0 uses LLVM 22" in why
    assert "/usr/bin/llvm-profdata (LLVM 14)" in why
    assert "llvm-22" in why  # what to install
    both = _probe(22, (("/usr/bin/llvm-profdata", 14), ("/usr/bin/llvm-profdata-22", 22)))
    assert rustcov.choose(both) == ("/usr/bin/llvm-profdata-22", "/usr/bin/llvm-cov-22")


def test_a_rustc_without_the_profiler_runtime_is_said_so() -> None:
    why = rustcov.choose(_probe(14, (("/usr/bin/llvm-profdata", 14),), profiler=False))
    assert isinstance(why, str) and "profiler runtime" in why


def test_the_probe_reads_rustc_and_each_tool() -> None:
    output = (
        "rustc 1.95.0 (59807616e 2026-04-14)\nbinary: rustc\nhost: x86_64-unknown-linux-gnu\n"
        "release: 1.95.0\nLLVM version: 22.1.2\n"
        f"{rustcov.PROFILER_MARK} 2\n"
        f"{rustcov.TOOL_MARK} LLVM version 22 /usr/bin/llvm-profdata-22\n"
        f"{rustcov.TOOL_MARK} LLVM version 14 /usr/bin/llvm-profdata\n"
    )
    assert rustcov.parse_probe(output) == rustcov.Probe(
        "1.95.0",
        22,
        "x86_64-unknown-linux-gnu",
        True,
        (("/usr/bin/llvm-profdata-22", 22), ("/usr/bin/llvm-profdata", 14)),
    )


def test_the_runner_variable_is_cargos_for_the_host() -> None:
    assert (
        rustcov.runner_variable("x86_64-unknown-linux-gnu")
        == "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER"
    )


def test_lcov_naming_files_outside_the_repository_ranks_none_of_them(tmp_path: Path) -> None:
    """The lines cross back in the check's log: a source path outside the repository (absolute,
    by `..`, through a symbolic link, or under a forged `root`) is never ranked; the same lines
    of the repository's own file are."""
    repo = tmp_path / "crate"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "lib.rs").write_text(LIB)
    outside = tmp_path / "outside.rs"
    outside.write_text(LIB)
    (repo / "src" / "link.rs").symlink_to(outside)
    lines = "DA:11,1\nDA:6,1\n"
    forged = [str(outside), f"{repo}/../outside.rs", f"{repo}/src/link.rs", "../outside.rs"]
    output = f"{rustcov.MARK}\nroot {repo}\n" + "".join(
        f"{rustcov.TEST_MARK} 101 tests::zero\nSF:{path}\n{lines}" for path in forged
    )
    root, runs, _ = rustcov.parse(output)
    assert [run.failed for run in runs] == [True] * 4
    assert rustcov.rank(repo, root, runs) == []
    assert rustcov.rank(repo, str(tmp_path), runs) == []  # a forged root maps into the repo only
    assert rustcov.executed(repo, root, runs) == {}  # nor are its lines handed on
    own = output + f"{rustcov.TEST_MARK} 0 tests::doubles\nSF:{repo}/src/lib.rs\nDA:2,1\nDA:6,1\n"
    own += f"{rustcov.TEST_MARK} 101 tests::zero\nSF:src/lib.rs\n{lines}"
    found = rustcov.rank(repo, *rustcov.parse(own)[:2])
    assert [(s.path, s.name, s.focus) for s in found] == [("src/lib.rs", "sign", (11,))]
    # the lines the failing runs executed, not line 2 (`double`'s), which only a passing run did
    ran = rustcov.executed(repo, *rustcov.parse(own)[:2])
    assert ran == {"src/lib.rs": frozenset({6, 11})}


def test_a_check_setting_rustflags_itself_keeps_its_flags_and_gains_coverage() -> None:
    check = "RUSTFLAGS='-D warnings' cargo test && export RUSTFLAGS=x; cargo test"
    assert rustcov.instrumented(check) == (
        "RUSTFLAGS='-D warnings'' -C instrument-coverage' cargo test && "
        "export RUSTFLAGS=x' -C instrument-coverage'; cargo test"
    )
    assert rustcov.instrumented("cargo test") == "cargo test"


def test_a_crate_with_a_helper_script_is_no_python_project(tmp_path: Path) -> None:
    """A `.py` script beside Cargo.toml (tinyvec's compare_benchmarks.py) or in a folder below
    (a table generator) does not make the crate a Python project, so the Rust spectrum runs;
    a Python marker file or a failing `.py` test id still does."""
    repo = _crate(tmp_path)
    (repo / "compare_benchmarks.py").write_text("print('compare')\n")
    (repo / "scripts").mkdir()
    (repo / "scripts" / "gen.py").write_text("print('tables')\n")
    assert not spectrum.python_project(repo, ["tests::zero"])
    assert spectrum.python_project(repo, ["tests/test_x.py::test_a"])
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert spectrum.python_project(repo, ["tests::zero"])
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "tool.py").write_text("print(1)\n")
    assert spectrum.python_project(flat)


@pytest.mark.slow
def test_a_crate_with_a_helper_script_gets_the_rust_spectrum(tmp_path: Path) -> None:
    repo = _crate(tmp_path)
    (repo / "compare_benchmarks.py").write_text("print('compare')\n")
    launcher = _launcher(repo, tmp_path)
    found, why = spectrum.suspects(launcher, repo, "cargo test", ["tests::zero"], 600)
    assert why is None
    assert (found[0].path, found[0].name) == ("src/lib.rs", "sign")
