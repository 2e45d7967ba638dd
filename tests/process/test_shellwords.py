"""The shell that runs the check says what its words are: the issue's five commands, and more."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

import pytest

from fixbot.process.assignments import assignment_values
from fixbot.process.sandbox import Identity
from fixbot.process.shellwords import ask_shell, probe, resolve

pytestmark = pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs /bin/bash")


def tool(folder: Path, name: str) -> Path:
    """An executable `name` in `folder` that would fail loudly if the probe ran it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho RAN >&2\nexit 99\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """PATH: a folder with a fake `pytest`, then the system's (for sh and bash)."""
    tool(tmp_path / "bin", "pytest")
    return {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}


def sh_has(word: str) -> bool:
    return (
        subprocess.run(["/bin/sh", "-c", f"command -v {word}"], capture_output=True).returncode == 0
    )


def test_a_bash_builtin_inside_bash_c_is_bashs_to_answer(
    tmp_path: Path, env: dict[str, str]
) -> None:
    answer = resolve("bash -c 'trap \"\" TERM; exec pytest -q'", tmp_path, env)
    assert (answer.missing, answer.failed_cd) == ([], None)
    answer = resolve("bash -c 'trap \"\" TERM; exec pytset -q'", tmp_path, env)
    assert [word for _, word in answer.missing] == [
        "pytset"
    ]  # bash looked inside, found it missing


def test_a_relative_path_is_resolved_after_the_cd(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "tests").mkdir()
    command = "cd tests && ../.venv/bin/pytest -q"
    assert resolve(command, tmp_path, env).missing == [("/bin/sh", "../.venv/bin/pytest")]
    tool(tmp_path / ".venv" / "bin", "pytest")
    assert resolve(command, tmp_path, env).missing == []
    assert resolve("cd tests && ./.venv/bin/pytest -q", tmp_path, env).missing  # from tests/


def test_source_is_named_by_the_shell_that_lacks_it(tmp_path: Path, env: dict[str, str]) -> None:
    answer = resolve("source .venv/bin/activate && pytest -q", tmp_path, env)
    assert answer.missing == ([] if sh_has("source") else [("/bin/sh", "source")])
    assert resolve(". .venv/bin/activate && pytest -q", tmp_path, env).missing == []


def test_a_cd_that_fails_is_answered_with_the_shells_words(
    tmp_path: Path, env: dict[str, str]
) -> None:
    answer = resolve("cd nonexistent && pytest -q", tmp_path, env)
    assert answer.failed_cd is not None and answer.failed_cd[0] == "nonexistent"
    assert "nonexistent" in answer.failed_cd[1]
    assert resolve("cd nonexistent || exit 0; pytest -q", tmp_path, env).failed_cd is None


@pytest.mark.parametrize(
    ("command", "missing"),
    [
        ("pytest -q && ruff_not_here check .", ["ruff_not_here"]),
        ("FOO=1 timeout 60 gox test ./... | tee out.txt", ["gox"]),
        ("if [ -f x ]; then pytset; fi", ["pytset"]),
        ("(cd sub && make_not_here)", ["make_not_here"]),
        ("$PYTHON -m pytest; echo $(lsx)", []),  # decided at run time
        ("export PATH=$PWD/bin:$PATH && only_in_bin", []),  # PATH changed: not knowable
        ("pytest -q  # pytset in a comment", []),
        ("sh -c 'cd /; pytset'", ["pytset"]),
        ("pytset -q || python3 -m pytest", []),  # a fallback: the command handles the failure
        ("command -v ruff_not_here || pip install ruff", []),  # asks, runs nothing
        ("pytset -q && echo done", ["pytset"]),
        ("cd su* && make_not_here", []),  # a glob the shell expands: not guessed
        ("cd ~/nowhere && make_not_here", []),  # nor a tilde
    ],
)
def test_more_commands(
    tmp_path: Path, env: dict[str, str], command: str, missing: list[str]
) -> None:
    (tmp_path / "sub").mkdir()
    assert [word for _, word in resolve(command, tmp_path, env).missing] == missing


def test_nothing_of_the_command_runs(tmp_path: Path, env: dict[str, str]) -> None:
    marker = tmp_path / "ran"
    script = probe(f"pytest -q; touch {marker}; echo $(touch {marker}) > {marker}")
    assert script is not None and ask_shell(script, tmp_path, env) == ""
    assert not marker.exists()


def test_an_unparsable_command_is_left_to_the_shell(tmp_path: Path, env: dict[str, str]) -> None:
    assert probe("pytest 'unterminated") is None
    assert resolve("pytest 'unterminated", tmp_path, env).missing == []


@pytest.mark.skipif(os.geteuid() != 0, reason="running as another user needs root")
def test_the_shell_answers_as_the_user_who_runs_the_check(tmp_path: Path) -> None:
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody on this machine")
    identity = Identity(nobody.pw_uid, nobody.pw_gid, "nobody")
    private = tmp_path / "private"
    tool(private, "pytest").parent.chmod(0o700)  # root's own folder: not the user's to search
    env = {"PATH": f"{private}:/usr/bin:/bin"}
    assert ask_shell("id -u", Path("/"), env, identity) == f"{nobody.pw_uid}\n"
    assert resolve("pytest -q", Path("/"), env).missing == []
    assert resolve("pytest -q", Path("/"), env, identity).missing == [("/bin/sh", "pytest")]


# -- exec_if_program: the shell replaced by its program only when the shell says it is one -----

SAME_MEANING = [
    "exit 3",
    "cd / ",
    "true",
    "echo hi there",
    "printf %s x",
    "umask",
    "ulimit -n",
    "type sh",
    "hash",
    "! false",
    "command -v sh",
    "source /dev/null",  # a bash builtin; dash has no `source`
    "./no-such-script arg",
    "no-such-program-anywhere --flag",
    "cd /; pwd",  # shell syntax: unchanged
]


@pytest.mark.parametrize("shell", ["/bin/sh", "/bin/bash"])
@pytest.mark.parametrize("command", SAME_MEANING)
def test_the_command_means_what_it_meant_to_the_shell(shell: str, command: str) -> None:
    """Builtins (which `exec` would break: `exec exit 3` is exit 127 in dash), keywords, missing
    programs and shell syntax: the same exit code and output as the command itself."""
    from fixbot.process.shellwords import exec_if_program

    def run(text: str) -> tuple[int, str]:
        done = subprocess.run([shell, "-c", text], capture_output=True, text=True, cwd="/")
        return done.returncode, done.stdout

    assert run(exec_if_program(command)) == run(command)


@pytest.mark.parametrize("command", ["sleep 5", "/bin/sleep 5"])
def test_a_program_replaces_the_shell(command: str) -> None:
    """The program is the shell's own process (it inherits the parent-death signal
    `fixbot.process.spawn` gives the shell, so it dies with fixbot)."""
    import time

    from fixbot.process.shellwords import SHELL, exec_if_program

    proc = subprocess.Popen([SHELL, "-c", exec_if_program(command)])
    try:
        comm = Path(f"/proc/{proc.pid}/comm")
        deadline = time.monotonic() + 5
        while comm.read_text().strip() != "sleep" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert comm.read_text().strip() == "sleep"
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    ("command", "values"),
    [
        ("PYTHONPATH=src python -m unittest", ["src"]),
        ('export PYTHONPATH="a b"; pytest', ['"a b"']),
        ("env PYTHONPATH='s'\"t\" pytest", ["'s'\"t\""]),
        ("PYTHONPATH=a x; PYTHONPATH=b y", ["a", "b"]),
        ("PYTHONPATH= pytest", [""]),
        ("pytest -q", []),
        ("echo 'PYTHONPATH=x'", None),  # quoted before its `=`: no offset outside the quotes
        ('export "PYTHONPATH=x"', None),
    ],
)
def test_assignment_values_are_the_values_as_written(
    command: str, values: list[str] | None
) -> None:
    found = assignment_values(command, "PYTHONPATH")
    assert (None if found is None else [command[start:end] for start, end in found]) == values
