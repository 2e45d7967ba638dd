"""scripts/setup.sh: a failed optional test extra never stops the README's test command; a
failed required install does.

The real script runs in a copy of the tree's set-up files where `.venv` is already installed
(its stamps newer than pyproject.toml and constraints.txt) and the extras' scripts are stand-ins
that fail or succeed; nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("realmodel.sh", "image-tools.sh", "rust-tools.sh", "node-tools.sh")
# apt-get waits for the dpkg lock another apt holds (a fresh machine's unattended-upgrades)
LOCK = "-o DPkg::Lock::Timeout=600"


def tree(tmp_path: Path, failing: tuple[str, ...], pip_fails: bool = False) -> Path:
    """A tree where setup.sh finds `.venv` installed; each of `failing` exits 1 after saying
    so, the other extras exit 0; `.venv/bin/python` fails any pip install when `pip_fails`."""
    root = tmp_path / "tree"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", root / "scripts" / "setup.sh")
    for name in EXTRAS:
        status = 1 if name in failing else 0
        script = (
            f"echo {name} ran >> ran.log\necho '{name}: a download failed' >&2\nexit {status}\n"
        )
        (root / "scripts" / name).write_text(script)
    for name in ("pyproject.toml", "constraints.txt"):
        (root / name).write_text("")
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\nexit 1\n" if pip_fails else "#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    stamp = root / ".venv" / ".fixbot-installed"
    stamp.touch()
    if pip_fails:  # the install is due: the stamp is older than pyproject.toml
        past = time.time() - 60
        os.utime(stamp, (past, past))
    return root


def interpreter(tmp_path: Path, version: str) -> Path:
    """A stand-in `python3` of `version`: setup.sh only asks it whether it is 3.11 or newer
    (no Python starts: this test stays in the fast tier)."""
    python = tmp_path / f"python-{version}"
    new_enough = tuple(int(part) for part in version.split(".")[:2]) >= (3, 11)
    python.write_text(
        f'#!/bin/sh\ncase "$*" in *--version*) echo "Python {version}";;'
        f" *) exit {0 if new_enough else 1};; esac\n"
    )
    python.chmod(0o755)
    return python


def setup(root: Path, *args: str, version: str = "3.11.2") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": str(interpreter(root.parent, version))}
    return subprocess.run(
        ["bash", "scripts/setup.sh", *args], cwd=root, env=env, capture_output=True, text=True
    )


def test_a_failed_optional_extra_says_what_skips_and_the_rest_still_runs(tmp_path: Path) -> None:
    root = tree(tmp_path, failing=("node-tools.sh", "realmodel.sh", "rust-tools.sh"))
    done = setup(root, "--tests")
    assert done.returncode == 0, done.stderr
    # every extra was tried, the ones after a failure too
    assert (root / "ran.log").read_text().split() == [
        *("realmodel.sh", "ran", "image-tools.sh", "ran", "rust-tools.sh", "ran"),
        *("node-tools.sh", "ran"),
    ]
    said = done.stderr
    assert "the optional node tools (jest and vitest" in said
    assert "the jest and vitest tests of tests/run/test_runner_reports.py skip" in said
    assert "bash scripts/node-tools.sh" in said
    assert "the optional real-model extra" in said
    assert "tests/test_realmodel_e2e.py" in said and "bash scripts/realmodel.sh" in said
    assert "the optional image tools" not in said
    assert "the optional Rust tool chain (Debian's cargo" in said
    assert "the rust cases of tests/bench/test_run_corpus.py skip" in said
    assert "as root: bash scripts/rust-tools.sh" in said
    assert said.rstrip().splitlines()[-1].startswith("setup.sh: fixbot and its test tools are")
    # a failed real-model build leaves no stamp: the next set-up tries again
    assert not (root / ".venv" / ".fixbot-realmodel-installed").exists()


def test_extras_that_install_leave_no_message_and_the_real_model_stamp(tmp_path: Path) -> None:
    root = tree(tmp_path, failing=())
    done = setup(root, "--tests")
    assert done.returncode == 0, done.stderr
    assert "optional" not in done.stderr
    assert (root / ".venv" / ".fixbot-realmodel-installed").exists()


def test_a_failed_required_install_stops_the_command(tmp_path: Path) -> None:
    root = tree(tmp_path, failing=(), pip_fails=True)
    done = setup(root, "--tests")
    assert done.returncode != 0
    assert not (root / "ran.log").exists()  # no extra ran after the required part failed


def test_a_python_older_than_3_11_is_named_and_stops_the_command(tmp_path: Path) -> None:
    done = setup(tree(tmp_path, failing=()), version="3.10.12")
    assert done.returncode == 1
    assert "needs Python 3.11 or newer" in done.stderr and "Python 3.10.12" in done.stderr


def rust_tools(
    tmp_path: Path, tools: tuple[str, ...], in_home: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """scripts/rust-tools.sh with only `tools` on PATH (and `in_home` in a bin folder of the
    account's home), each a stand-in that logs its words."""
    log = tmp_path / "calls.log"
    home = tmp_path / "home"
    folders = []
    for folder, names in ((tmp_path / "bin", tools), (home / ".cargo" / "bin", in_home)):
        folder.mkdir(parents=True)
        folders.append(str(folder))
        for tool in names:
            (folder / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {log}\n')
            (folder / tool).chmod(0o755)
    script = ROOT / "scripts" / "rust-tools.sh"
    env = {"PATH": ":".join(reversed(folders)), "HOME": str(home)}
    done = subprocess.run(
        [shutil.which("bash") or "/bin/bash", str(script)], env=env, capture_output=True, text=True
    )
    return done, log


def test_rust_tools_installs_debians_cargo_only_when_no_shared_cargo_is_on_path(
    tmp_path: Path,
) -> None:
    """A cargo every account can run: nothing installed. None, or only the account's own
    (rustup's ~/.cargo/bin, which the ordinary user of .ci/as-user cannot run): root installs
    Debian's cargo with apt-get; an ordinary user without any is told what is missing. Neither
    stops the set-up."""
    done, log = rust_tools(tmp_path / "shared", ("cargo", "apt-get"))
    assert done.returncode == 0 and not log.exists()
    for name, in_home in (("none", ()), ("rustup", ("cargo",))):
        done, log = rust_tools(tmp_path / name, ("apt-get",), in_home)
        assert done.returncode == 0, done.stderr
        if os.geteuid() == 0:
            installed = [f"apt-get {LOCK} update -qq", f"apt-get {LOCK} install -y -qq cargo"]
            assert log.read_text().splitlines() == installed
        elif in_home:
            assert not log.exists() and done.stderr == ""
        else:
            assert not log.exists() and "cargo missing" in done.stderr


def test_rust_tools_installs_the_llvm_of_a_rustc_with_the_profiler_runtime(
    tmp_path: Path,
) -> None:
    """The Rust spectrum's llvm-profdata: root installs Debian's llvm-<major> of the LLVM the
    rustc on PATH names, when its sysroot has the profiler runtime; a rustc without it (Debian's)
    gets nothing, since no llvm-profdata makes it build with coverage."""
    for profiler in (True, False):
        case = tmp_path / str(profiler)
        done, log = rust_tools(case, ("cargo", "apt-get"))
        sysroot = case / "sysroot"
        lib = sysroot / "lib" / "rustlib" / "x86_64-unknown-linux-gnu" / "lib"
        lib.mkdir(parents=True)
        if profiler:
            (lib / "libprofiler_builtins-0123.rlib").write_text("")
        rustc = case / "bin" / "rustc"
        rustc.write_text(
            '#!/bin/sh\n[ "$1" = --print ] && { echo ' + str(sysroot) + "; exit 0; }\n"
            "printf 'release: 1.95.0\\nhost: x86_64-unknown-linux-gnu\\nLLVM version: 22.1.2\\n'\n"
        )
        rustc.chmod(0o755)
        script = ROOT / "scripts" / "rust-tools.sh"
        env = {"PATH": f"{case / 'bin'}", "HOME": str(case / "home")}
        done = subprocess.run(
            [shutil.which("bash") or "/bin/bash", str(script)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        calls = log.read_text().splitlines() if log.exists() else []
        if not profiler:
            assert calls == []
        elif os.geteuid() == 0:
            assert calls == [f"apt-get {LOCK} install -y -qq llvm-22"]
        else:
            assert calls == [] and "llvm-profdata-22 missing" in done.stderr
