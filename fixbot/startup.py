"""The first thing fixbot does, before argparse or any other module of its own: no secret in its
environment, no variable it did not choose, no core file, no same-user peeking, and fixbot's
own code only.

`fixbot.cli.main` calls `harden_process`, then `secrets_first`: fixbot re-executes itself by
absolute path in Python's isolated mode from `/` (`_reexec_isolated`), as root through the
runner's passwordless sudo where the runner mode can split the uids (`_exec_as_root`), with an
environment built from its allowlist (`fixbot.core.environment`); the secrets and the
environment it was started with (for the project's commands) go through a descriptor, and the
new process reads them back (`_restore_secrets`). Only the standard library is imported here at
module level, and nothing that loads libcrypto before the exec.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SECRETS_FD_VARIABLE = "FIXBOT_SECRETS_FD"
REEXEC_MARKER = "--fixbot-reexec"  # argv[1] of the re-execution, followed by its nonce
SPLIT_MARKER = "--fixbot-uid-split"  # after the start folder: root through the runner's sudo
PIPE_CAPACITY = 60_000  # a pipe buffer holds 64 KiB (pipe(7)); more would block before the exec
PR_SET_DUMPABLE = 4  # <linux/prctl.h>; prctl(2)
# The folder fixbot was started in (relative `-C` and `--from-log` paths are read from it);
# fixbot's own current folder is `/`, which the project's commands cannot write.
START_DIR = [Path(".")]


def harden_process() -> None:
    """Make this process's memory and environment unreadable to processes of the same user and
    keep it from leaving a core file.

    Linux: `prctl(PR_SET_DUMPABLE, 0)` (prctl(2): /proc/<pid>/environ, mem and ptrace then need
    CAP_SYS_PTRACE; execve sets it back to 1, so the re-execution and each child start dumpable).
    Everywhere: `RLIMIT_CORE` 0, soft and hard (getrlimit(2)): a process of the same user cannot
    raise it again without CAP_SYS_RESOURCE, and the project's commands inherit it (they get no
    core files either; docs/SECURITY.md).
    """
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def secrets_first(words: list[str]) -> list[str]:
    """`words` without the re-execution marker, after leaving the current folder for `/` and
    restoring (in a re-execution) or moving out of the environment (`run` and `action`,
    re-executed with the environment fixbot builds) the secrets; `START_DIR` becomes the
    folder fixbot was started in.

    `FIXBOT_SECRETS_FD` counts only next to the marker and nonce that only fixbot's own
    re-execution puts into argv (a step before fixbot can write the environment through
    GITHUB_ENV, never fixbot's command line); otherwise it is dropped and ignored. `run` and
    `action` always end up in an interpreter in isolated mode (`python -I`: no current folder or
    script folder on `sys.path`, no user site, no `PYTHON*` variable; see the Python docs,
    "Command line and environment") whose current folder is `/`: a `fixbot.py`, `argparse.py`
    or `sitecustomize.py` the project's commands wrote into the workspace, a `.pth` file in a
    user site under HOME or a `PYTHONPATH` written into GITHUB_ENV is never imported by the
    process that holds the token and the model key.
    """
    given = os.environ.pop(SECRETS_FD_VARIABLE, None)
    if words[:1] == [REEXEC_MARKER]:
        if given is None or len(words) < 3:
            raise SystemExit("fixbot: --fixbot-reexec is fixbot's own; do not pass it")
        _restore_secrets(given, words[1])
        START_DIR[0] = Path(words[2])
        os.chdir("/")
        rest = words[3:]
        if words[3:4] == [SPLIT_MARKER]:  # root through the runner's sudo (`_exec_as_root`)
            from fixbot.process import installation

            installation.enter_split()
            rest = words[4:]
        from fixbot.core import environment

        for line in environment.announce(environment.given(os.environ), rest[0] if rest else ""):
            print(line, file=sys.stderr)
        return rest
    START_DIR[0] = Path.cwd()
    os.chdir("/")
    if words[:1] in (["run"], ["action"]):
        _reexec_isolated(words)
    return words


def _reexec_isolated(words: list[str]) -> None:
    """Re-execute fixbot by absolute path in isolated mode, from `/`, with an environment it
    built from its allowlist (`fixbot.core.environment.build`) and without its secrets: those,
    and the whole environment fixbot was started with (the project's commands get it, without
    secrets), go through a descriptor (`_payload`). Never returns.

    Every `run` and `action` is re-executed, in fixbot's image as root too: the process that
    holds the token and the model key starts with none of the variables an earlier step wrote
    into GITHUB_ENV but the allowlisted ones (an `OPENSSL_CONF`, a proxy, a CA bundle, git's
    `GIT_AUTHOR_*` never reach it, nor anything it starts). The secrets are kept out of its
    environment because the project's commands share fixbot's uid everywhere but fixbot's image
    and the runner mode under sudo, and could read `/proc/<fixbot>/environ` where no PID
    namespace hides it. Nothing imported before the exec loads libcrypto (no `hashlib`, no
    `secrets`: the nonce comes from `os.urandom`).
    """
    from fixbot.core import environment, servers
    from fixbot.core.secrets import check_environment
    from fixbot.process import installation

    # The one read of the inherited environment: the allowlist's input, and (as `given`, in the
    # payload) what the project's commands inherit; fixbot's own process keeps only `built`.
    given = dict(os.environ)
    built = environment.build(
        given, words[0], lambda name: bool(servers.server_variables({name: ""}))
    )
    kept = check_environment(built)
    moved = {k: v for k, v in sorted(built.items()) if k not in kept}
    # from here on this process, and sudo below, see only what fixbot chose
    os.environ.clear()
    os.environ.update(kept)
    # The runner mode, not root: become root where passwordless sudo allows (the uid split).
    runner = words[:1] == ["action"] and installation.runtime() != installation.CONTAINER
    sudo = installation.passwordless_sudo() if runner and os.geteuid() != 0 else None
    if sudo is not None:  # root starts the commands with it: no loader variable (as sudo's)
        given = {k: v for k, v in given.items() if k not in installation.LOADER_VARIABLES}
    nonce = os.urandom(16).hex()
    fd = _payload(nonce, moved, given)
    carried = {**kept, SECRETS_FD_VARIABLE: str(fd)}
    sys.stdout.flush()
    sys.stderr.flush()
    executable = os.path.abspath(sys.executable)
    argv = [executable, "-I", "-m", "fixbot", REEXEC_MARKER, nonce, str(START_DIR[0]), *words]
    if sudo is not None:
        _exec_as_root(sudo, argv, carried, fd)
    os.execve(executable, argv, carried)


def _payload(nonce: str, moved: dict[str, str], given: dict[str, str]) -> int:
    """A descriptor (inheritable, at offset 0) holding `nonce`, the `moved` variables and, after
    an empty item, the environment `given`, NUL-separated (no variable holds a NUL): an
    anonymous memory file where Linux has one (memfd_create(2): no size limit, no name on
    disk), else a pipe. Exits (code 2) when a pipe cannot hold them."""
    items = [nonce, *(f"{k}={v}" for k, v in moved.items()), ""]
    items += [f"{k}={v}" for k, v in given.items()]
    data = "\0".join(items).encode("utf-8", "surrogateescape")
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("fixbot-start", 0)
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    else:
        if len(data) > PIPE_CAPACITY:
            raise SystemExit("fixbot: the environment is too large to pass to the re-execution")
        fd, write_end = os.pipe()
        os.write(write_end, data)
        os.close(write_end)
    os.set_inheritable(fd, True)
    return fd


def _exec_as_root(programs: tuple[str, str], argv: list[str], env: dict[str, str], fd: int) -> None:
    """Replace this process with `argv` as root through passwordless sudo: the runner mode's
    uid split (the project's commands then run as a user of their own, `sandbox.choose`).

    sudo keeps no descriptor above 2 and resets the environment (sudoers(5) `closefrom`,
    `env_reset`): the secrets pipe becomes standard input and the environment, which holds no
    secret, is given through `env -i` (so the job's PATH and tools survive `secure_path`),
    without the dynamic loader's variables (`installation.LOADER_VARIABLES`: an `LD_PRELOAD`
    from GITHUB_ENV would otherwise load into root's Python)."""
    sudo, env_program = programs
    os.dup2(fd, 0)
    os.close(fd)
    from fixbot.process.installation import LOADER_VARIABLES  # what sudo's env_reset removes

    kept = {k: v for k, v in env.items() if k not in LOADER_VARIABLES}
    given = [f"{k}={v}" for k, v in kept.items() if k != SECRETS_FD_VARIABLE and "=" not in k]
    at = argv.index(REEXEC_MARKER) + 3  # after the marker, the nonce and the start folder
    marked = [*argv[:at], SPLIT_MARKER, *argv[at:]]
    command = [env_program, "-i", *given, f"{SECRETS_FD_VARIABLE}=0", *marked]
    os.execv(sudo, [sudo, "-n", "--", *command])


def _restore_secrets(fd_text: str, nonce: str) -> None:
    """Read what `_reexec_isolated` passed through descriptor `fd_text`: the secrets into
    `os.environ` (memory only), the environment fixbot was started with into
    `fixbot.core.environment.remember`. Exits (code 2) when it does not start with `nonce`."""
    if not fd_text.isdigit():
        raise SystemExit("fixbot: the re-execution's secrets pipe is missing")
    fd = int(fd_text)
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    first, *items = b"".join(chunks).decode("utf-8", "surrogateescape").split("\0")
    if first != nonce:
        raise SystemExit("fixbot: the re-execution's secrets pipe is not fixbot's own")
    at = items.index("") if "" in items else len(items)
    for item in items[:at]:
        name, sep, value = item.partition("=")
        if sep:
            os.environ[name] = value
    given = {}
    for item in items[at + 1 :]:
        name, sep, value = item.partition("=")
        if sep:
            given[name] = value
    from fixbot.core import environment

    environment.remember(given)
