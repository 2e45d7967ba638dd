"""fixbot's `go test -exec` program (`fixbot/observe/goexec.py`): each go test binary of an
observed run gets the environment the check would have had without fixbot, so the code under
test cannot read by name that it is observed (GOFLAGS' `-overlay=`, which names the overlay
file, the observer's copies and the run's key)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from fixbot.observe import goexec, golang
from fixbot.observe.stream import parse
from tests.fakes.gomodule import go_module

NONCE = "n" * 32
# the test prints the environment its binary was given, and passes
PRINTED = """\
package calc

import (
\t"fmt"
\t"os"
\t"strings"
\t"testing"
)

func TestEnviron(t *testing.T) {
\tfor _, pair := range os.Environ() {
\t\tif strings.HasPrefix(pair, "GOFLAGS=") || strings.Contains(pair, "FIXBOT") ||
\t\t\tstrings.HasPrefix(pair, "PATH=") || strings.Contains(pair, "observer") {
\t\t\tfmt.Printf("seen %s\\n", pair)
\t\t}
\t}
}
"""


def test_a_go_test_binary_sees_the_checks_own_environment(tmp_path: Path) -> None:
    repo, env = go_module(tmp_path, {"calc/calc.go": "package calc\n", "calc/env_test.go": PRINTED})
    folder = tmp_path / "observer"
    folder.mkdir()
    base = {**env, "GOFLAGS": "-mod=mod"}
    prepared = golang.prepare(folder, "fixbot_observer_ef", [repo], repo, base)
    assert prepared.program is not None
    # as `fixbot.run.checkrun` runs it: the Python observer's variables too, and the program
    # written again with them
    added = {
        **prepared.env,
        "FIXBOT_OBSERVER": "3:1234",
        "PATH": f"{folder}/shims:{env['PATH']}",
        "PYTHONPATH": str(folder),
    }
    goexec.write(prepared.program, added, base)
    observed_run = _printed(repo, {**base, **added})
    # the environment the check as written gives the binary (go puts its own bin folder first
    # on PATH, both times); the command's mark (every command's, the sweep's) kept
    assert observed_run == _printed(repo, base)
    assert "seen GOFLAGS=-mod=mod" in observed_run and "seen FIXBOT_COMMAND_MARK=m1" in observed_run
    observed = parse(golang.collect(prepared, NONCE)[0].decode(), NONCE)
    assert observed.tests == {"example.com/mod/calc::TestEnviron": "passed"}  # still observed


def _printed(repo: Path, env: dict[str, str]) -> list[str]:
    """The lines PRINTED's test prints when `go test -v ./...` runs in `repo` with `env` (and a
    command's mark), sorted; asserts it passed."""
    go = shutil.which("go", path=env["PATH"]) or "go"
    done = subprocess.run(
        [go, "test", "-v", "-count=1", "./..."],
        cwd=repo,
        env={**env, "FIXBOT_COMMAND_MARK": "m1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return sorted(line for line in done.stdout.splitlines() if line.startswith("seen "))


def _through(script: str, env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The environment `/usr/bin/env` is given when run through the program `script` with `env`."""
    program = tmp_path / "exec.sh"
    program.write_text(script)
    program.chmod(0o755)
    done = subprocess.run(
        [str(program), "/usr/bin/env"], env=env, capture_output=True, text=True, check=True
    )
    pairs = (line.partition("=") for line in done.stdout.splitlines())
    return {name: value for name, _, value in pairs if name != "PWD"}


def test_the_program_puts_back_each_variable_as_the_check_had_it(tmp_path: Path) -> None:
    base = {"GOFLAGS": "-mod=mod", "PATH": "/usr/bin:/bin"}
    added = {
        "GOFLAGS": "-mod=mod -overlay=/o/overlay.json -vet=off -count=1 -exec=/o/goexec.sh",
        "PATH": "/o/shims:/usr/bin:/bin",
        "PYTHONPATH": "/o",
        "FIXBOT_OBSERVER": "3:44",
    }
    script = goexec.script(added, base)
    assert _through(script, {**base, **added}, tmp_path) == base
    # the check's own words around fixbot's value kept; a variable the check rewrote left as is
    env = {**added, "GOFLAGS": f"-tags=x {added['GOFLAGS']}", "PYTHONPATH": "/theirs"}
    assert _through(script, env, tmp_path) == {
        "GOFLAGS": "-tags=x -mod=mod",
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": "/theirs",
    }
    # quotes and shell words in a value are data
    odd = {"X": 'a\'b $(touch pwned) "c"'}
    assert (
        _through(goexec.script({"X": f"{odd['X']} y"}, odd), {"X": f"{odd['X']} y"}, tmp_path)
        == odd
    )
    assert not (tmp_path / "pwned").exists()
