"""fixbot's container image, built on this machine and run the way GitHub runs a container action.

`built_image()` builds (or finds in its cache) the image with `scripts/build-image.sh` and returns
a `BuiltImage`: its name, its configuration (Env, Entrypoint) and the read-only folder holding
its file system. `Container` runs commands in a fresh copy of that file system, with no Docker
daemon: an overlay mount (the image read-only below, a throw-away folder above) in a private
mount namespace, bind mounts for the runner's folders, and `unshare --pid --mount-proc --root`,
so the first program (tini, from the image's ENTRYPOINT) is PID 1 of its own PID namespace and
sees only the container's processes in `/proc`. The network is the host's (`--network host` in
Docker's terms), so the fake servers on 127.0.0.1 answer. See docs/image.md, "How the tests run
the image", for how this differs from Docker on a runner.

`ContainerAction` lays out what the runner gives a container action step (the workspace at
`/github/workspace` owned by uid 1001, `/github/home`, `/github/workflow/event.json`, the
file-command files in `/github/file_commands`, `GITHUB_*` and `INPUT_*` variables) and runs the
image's ENTRYPOINT as root. `Container.run` with `user=1001` runs an attack in the image as the
runner's user, before or beside fixbot.

Needs root, buildah, debootstrap, `unshare` and overlayfs: `image_unavailable()` says what is
missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.action_env import (
    REPOSITORY,
    RUN_ID,
    TOKEN,
    ActionRun,
    ActionSandbox,
    action_inputs,
    parse_outputs,
)
from tests.fakes.paths import ROOT

# Read once, before tests/conftest.py gives every test a throw-away HOME.
CACHE = Path(
    os.environ.get("FIXBOT_IMAGE_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fixbot" / "image"
)
RUNNER_UID = 1001  # the GitHub-hosted runner's user, who owns the workspace
WORKSPACE = "/github/workspace"

# The container's start: an overlay of the image in a private mount namespace, a minimal /dev,
# the host's /etc/hosts and /etc/resolv.conf (host network), the bind mounts, then a new PID
# namespace rooted in the overlay. Arguments: lower upper work merged workdir, then pairs of
# host path and container path, `--`, the command. Runs under `unshare --mount`, in Python: a
# shell would drop the variables whose names are not a shell's (`INPUT_GITHUB-TOKEN`).
_START = r"""
import os, subprocess, sys
def sh(*argv):
    subprocess.run(argv, check=True)
lower, upper, work, merged, wd, *rest = sys.argv[1:]
sh("mount", "-t", "overlay", "overlay", "-o",
   f"lowerdir={lower},upperdir={upper},workdir={work}", merged)
sh("mount", "-t", "tmpfs", "-o", "mode=755,nosuid", "tmpfs", f"{merged}/dev")
for name in ("null", "zero", "full", "random", "urandom", "tty"):
    open(f"{merged}/dev/{name}", "w").close()
    sh("mount", "--bind", f"/dev/{name}", f"{merged}/dev/{name}")
os.makedirs(f"{merged}/dev/pts")
os.makedirs(f"{merged}/dev/shm")
sh("mount", "-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", f"{merged}/dev/shm")
os.symlink("/proc/self/fd", f"{merged}/dev/fd")
binds = rest[: rest.index("--")]
command = rest[rest.index("--") + 1 :]
for f in ("/etc/hosts", "/etc/resolv.conf"):
    if os.path.exists(f):
        binds += [f, f]
for host, inside in zip(binds[::2], binds[1::2]):
    target = merged + inside
    if os.path.isdir(host):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    sh("mount", "--bind", host, target)
os.execvp("unshare", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc",
                      f"--root={merged}", f"--wd={wd}", *command])
"""


def image_unavailable() -> str | None:
    """Why the image cannot be built and run here (None: it can): root, buildah, debootstrap,
    unshare and overlayfs are needed."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "building and running fixbot's image needs root (buildah with vfs storage)"
    for tool in ("buildah", "debootstrap", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} is missing: apt-get install -y buildah debootstrap"
    filesystems = Path("/proc/filesystems")
    if filesystems.exists() and "overlay" not in filesystems.read_text(encoding="utf-8"):
        return "the kernel has no overlayfs (modprobe overlay)"
    return None


def require(unavailable: str | None, in_ci: bool) -> None:
    """Skip the calling test with the reason `unavailable` (from `image_unavailable`), or fail it
    when `in_ci` (`CI=true`: CI runs as root and must run the image tests); nothing when None."""
    if unavailable is None:
        return
    if in_ci:
        pytest.fail(f"CI=true, and fixbot's image cannot be tested: {unavailable}")
    pytest.skip(unavailable)


@dataclass(frozen=True)
class BuiltImage:
    """An image in the build cache: `name` (localhost/fixbot:<key>), `config` (the OCI image
    configuration: Env, Entrypoint, WorkingDir) and `rootfs`, the folder holding its whole file
    system (vfs storage keeps every layer complete), used read-only."""

    name: str
    config: dict[str, Any]
    rootfs: Path

    @property
    def env(self) -> dict[str, str]:
        """The image's ENV (name -> value)."""
        pairs = (item.partition("=") for item in self.config.get("Env") or [])
        return {name: value for name, _, value in pairs}

    @property
    def entrypoint(self) -> list[str]:
        """The image's ENTRYPOINT followed by its CMD, as `docker run image` runs them."""
        return [*(self.config.get("Entrypoint") or []), *(self.config.get("Cmd") or [])]


def buildah(*args: str) -> str:
    """Run buildah on the cache's storage; return its stdout. Raises CalledProcessError."""
    storage = ["--root", str(CACHE / "storage"), "--runroot", str(CACHE / "run")]
    done = subprocess.run(
        ["buildah", *storage, "--storage-driver", "vfs", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@cache
def built_image() -> BuiltImage:
    """Build the image (cached by scripts/build-image.sh; minutes the first time, about a second
    after) and describe it. Raises RuntimeError with the build's output when the build fails."""
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-image.sh")],
        env={**os.environ, "FIXBOT_IMAGE_CACHE": str(CACHE)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"scripts/build-image.sh failed:\n{done.stdout}\n{done.stderr}")
    name = done.stdout.strip().splitlines()[-1]
    inspected = json.loads(buildah("inspect", "--type", "image", name))
    images = json.loads((CACHE / "storage" / "vfs-images" / "images.json").read_text("utf-8"))
    layer = next(i["layer"] for i in images if i["id"] == inspected["FromImageID"])
    return BuiltImage(name, inspected["OCIv1"]["config"], CACHE / "storage" / "vfs" / "dir" / layer)


@dataclass
class Container:
    """A fresh container of `image` under `root` (its writable layer in `root/upper`): every
    `run` starts from what the previous runs left, like `docker start` of the same container.
    `mounts` (host path -> container path) are bound into every run."""

    image: BuiltImage
    root: Path
    mounts: dict[Path, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("upper", "work", "merged"):
            (self.root / name).mkdir(parents=True, exist_ok=True)

    def path(self, inside: str) -> Path:
        """Where a file the container wrote (outside the mounts) is seen from the host."""
        return self.root / "upper" / inside.lstrip("/")

    def run(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        workdir: str = "/",
        user: int | None = None,
        timeout: float = 300,
    ) -> subprocess.CompletedProcess[str]:
        """Run `argv` in the container as root (or as uid `user` through the image's `setpriv`),
        with exactly the environment `env` (the image's ENV when None), in `workdir`."""
        if user is not None:
            switch = ["/usr/bin/setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]
            argv = [*switch, *argv]
        binds: list[str] = []
        for host, inside in self.mounts.items():
            binds += [str(host), inside]
        layers = [
            str(self.image.rootfs),
            *(str(self.root / n) for n in ("upper", "work", "merged")),
        ]
        command = [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            sys.executable,
            "-c",
            _START,
            *layers,
            workdir,
            *binds,
            "--",
            *argv,
        ]
        return subprocess.run(
            command,
            env=dict(self.image.env if env is None else env),
            cwd="/",
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def shell(self, script: str, user: int | None = RUNNER_UID, timeout: float = 120) -> str:
        """Run `sh -c script` in the container (as the runner's uid by default) with the image's
        environment; return stdout. Raises AssertionError with the output when it fails."""
        done = self.run(["/bin/sh", "-c", script], user=user, timeout=timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


@dataclass
class ContainerRun(ActionRun):
    """A finished container action step: `ActionRun`'s fields, and what the step wrote for later
    steps through `GITHUB_ENV` and `GITHUB_PATH` (as the runner would apply them)."""

    env_file: str = ""
    path_file: str = ""


class ContainerAction:
    """The runner's side of one container action step of `sandbox`'s repository, in `container`.

    The workspace is bound at `/github/workspace` and owned by uid 1001; the run's server (a
    folder holding the origin repository, `GITHUB_SERVER_URL` as a `file://` URL; on GitHub it
    is https://github.com) is bound at its own path; fixbot reaches the fake GitHub and model
    servers on 127.0.0.1.
    """

    def __init__(self, sandbox: ActionSandbox, container: Container) -> None:
        self.sandbox = sandbox
        self.container = container
        self.steps = 0

    def run(
        self,
        event_name: str,
        event: dict[str, Any],
        workspace: Path,
        inputs: Mapping[str, str],
        step_env: Mapping[str, str] | None = None,
        timeout: float = 300,
        same_home: bool = False,
    ) -> ContainerRun:
        """Run the image's ENTRYPOINT as GitHub runs a container action: root, `--workdir
        /github/workspace`, env `HOME=/github/home`, `GITHUB_*`, `INPUT_*` (every action.yml
        input, at its default unless `inputs` gives it) and the step's `env:` (`step_env`).
        `same_home`: `/github/home` is the previous step's, as the runner keeps it for every
        step of one job."""
        self.steps += 1
        runner = self.sandbox.root / f"runner{self.steps}"
        home, workflow, commands = (runner / n for n in ("home", "workflow", "file_commands"))
        for folder in (workflow, commands):
            folder.mkdir(parents=True)
        if same_home and self.steps > 1:
            home = self.sandbox.root / f"runner{self.steps - 1}" / "home"  # mounted again
        else:
            home.mkdir(parents=True)
        (workflow / "event.json").write_text(json.dumps(event), encoding="utf-8")
        step = uuid.uuid4().hex[:8]
        files = {
            "GITHUB_OUTPUT": f"set_output_{step}",
            "GITHUB_ENV": f"set_env_{step}",
            "GITHUB_PATH": f"add_path_{step}",
            "GITHUB_STEP_SUMMARY": f"step_summary_{step}",
            "GITHUB_STATE": f"save_state_{step}",
        }
        for name in files.values():
            (commands / name).touch()
        for path in [runner, *runner.rglob("*"), workspace, *workspace.rglob("*")]:
            os.lchown(path, RUNNER_UID, RUNNER_UID)
        env = {
            **self.container.image.env,
            "HOME": "/github/home",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_WORKSPACE": WORKSPACE,
            "GITHUB_API_URL": self.sandbox.github.url,
            "GITHUB_GRAPHQL_URL": self.sandbox.github.url + "/graphql",
            "GITHUB_SERVER_URL": self.sandbox.server.as_uri(),  # fixbot's remote: <it>/<repo>
            "GITHUB_RUN_ID": RUN_ID,
            "RUNNER_OS": "Linux",
            "RUNNER_TEMP": "/home/runner/work/_temp",
            **{k: f"/github/file_commands/{v}" for k, v in files.items()},
        }
        for name, spec in action_inputs().items():
            default = str(spec.get("default", ""))
            env["INPUT_" + name.upper()] = TOKEN if "github.token" in default else default
        env.update({"INPUT_" + k.upper(): v for k, v in inputs.items()})
        env.update(step_env or {})
        self.container.mounts.update(
            {
                workspace: WORKSPACE,
                home: "/github/home",
                workflow: "/github/workflow",
                commands: "/github/file_commands",
                self.sandbox.server: str(self.sandbox.server),
            }
        )
        done = self.container.run(self.container.image.entrypoint, env, WORKSPACE, None, timeout)

        def read(variable: str) -> str:
            return (commands / files[variable]).read_text(encoding="utf-8")

        return ContainerRun(
            done.returncode,
            done.stdout,
            done.stderr,
            parse_outputs(read("GITHUB_OUTPUT")),
            read("GITHUB_STEP_SUMMARY"),
            read("GITHUB_ENV"),
            read("GITHUB_PATH"),
        )
