"""What the project's commands see of the users' homes when they run as another user than fixbot.

When fixbot is root and the commands run as another user (the runner mode's split, the CLI as
root with `run-as`, the image's user), their PID namespace (`fixbot.process.sandbox`) is also a
mount namespace. Inside it, before the change of user, root covers the users' homes with empty,
read-only tmpfs folders (`Cover.hidden`) and binds back, at their own paths, only what the
commands need (`plan`): an allowlist of what they see, not a list of files they must not read.

- **Hidden**: `/root`, `/home` whole (every user's home, the runner's `/home/runner` among
  them) and the HOME of every user, whatever its uid (a self-hosted runner's user may be a
  system user living in `/srv/runner`), that is a folder of that user's own (so a service
  account's `/usr` is never hidden), from the password database, except the commands' own
  user's (when it is theirs); and the runner's `RUNNER_TEMP` when it is a folder of a user
  other than root and the commands (actions/checkout's token file is kept there; under the
  runner's HOME on GitHub's hosted runners, under `/opt/actions-runner/_work` on a
  self-hosted one installed there). A home closed to others (root's 0700 `/root`) hides
  itself: left alone.
- **Shown back, writable**: the workspace (a GitHub runner's is
  `/home/runner/work/<repo>/<repo>`), the commands' private HOME and the commands' user's own
  home when they lie under a hidden folder.
- **Shown back, read-only**: the folders of the commands' PATH, the folders the environment's
  tool-chain variables name (`TOOL_VARIABLES`, an allowlist: `RUSTUP_HOME`, `CARGO_HOME`,
  `PYENV_ROOT`, `NVM_DIR`, `GOROOT`, `JAVA_HOME`, ...; never a configuration folder such as
  gh's `GH_CONFIG_DIR`, whatever its name looks like) and
  the runner's tool cache (`RUNNER_TOOL_CACHE`: under HOME on a self-hosted runner; GitHub's
  hosted runners keep it in `/opt/hostedtoolcache`). Never a folder holding a user's home
  (a PATH entry `~` or `/home` would show everything) or the workspace (`WORK_DIR=~/work`
  would show the runner's `~/work/_temp` beside it, actions/checkout's token file), and only
  a folder reached without a link through folders the commands cannot write (`_unmovable`:
  else they would swap a PATH folder for a link to `~/.ssh` and root would bind what it
  names). Each is shown whole: a credential kept inside one (`CARGO_HOME`'s
  `credentials.toml`) is readable, a documented gap.

fixbot's own folders for the commands (the observer's plugin, the tracer, the commands' HOME) are
made in the temporary folder (`tempfile`; fixbot's environment names no TMPDIR), never under a
home, so nothing of fixbot's needs showing back beyond the above.

The mounts follow mount(8): a tmpfs mounted on a root-only stage folder, the kept folders bound
into it (`--rbind`, with `-o ro` for the read-only ones), the tmpfs made read-only and moved
(`--move`) onto the hidden folder. Mounts that come from root's namespace as one unit are locked
in any namespace the commands make (mount_namespaces(7)): they cannot unmount the tmpfs.
`unshare --mount` makes the namespace's mounts private (unshare(1), `--propagation private` is
its default): nothing is seen outside it.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TOPS = ("/root", "/home")  # every user's home on a Linux machine (FHS 3.0, 3.8 and 3.15)
# The variables that name a tool chain's installation, whose folder the commands may need to
# run the tools on their PATH: an allowlist, each from its tool's documentation (rustup's
# "Environment variables", pyenv's README, nvm's, Volta's, pnpm's and Bun's install scripts,
# `go env`, the JDK's, .NET's, Android's SDK and NDK tools, rbenv's, asdf's, SDKMAN's, the
# Gradle, Maven and Ant distributions' `*_HOME`; CONDA and FLUTTER_ROOT as GitHub's hosted
# runners set them). A variable that names a configuration folder (`GH_CONFIG_DIR`, gh's token;
# `GNUPGHOME`, `AZURE_CONFIG_DIR`, `GRADLE_USER_HOME`, `DOCKER_CONFIG`) is not one: its folder
# stays hidden, whatever its name looks like.
TOOL_VARIABLES = frozenset(
    {
        "RUSTUP_HOME",
        "CARGO_HOME",
        "PYENV_ROOT",
        "NVM_DIR",
        "VOLTA_HOME",
        "PNPM_HOME",
        "BUN_INSTALL",
        "GOROOT",
        "JAVA_HOME",
        "DOTNET_ROOT",
        "ANDROID_HOME",
        "ANDROID_SDK_ROOT",
        "ANDROID_NDK_HOME",
        "RBENV_ROOT",
        "ASDF_DIR",
        "ASDF_DATA_DIR",
        "SDKMAN_DIR",
        "GRADLE_HOME",
        "M2_HOME",
        "MAVEN_HOME",
        "ANT_HOME",
        "CONDA",
        "FLUTTER_ROOT",
    }
)
TOOL_CACHE = "RUNNER_TOOL_CACHE"
TEMP = "RUNNER_TEMP"  # the runner's scratch folder (GitHub's documented variable)
FAILED = 126  # the exit code of a command whose view of the homes could not be made


@dataclass(frozen=True)
class Cover:
    """The homes the commands do not see (`hidden`, each an empty read-only folder) and what
    they see of them: `writable` and `readable` folders, shown back at their own paths.
    Absolute paths without a link (`writable` resolved, `readable` checked), each under a
    hidden one."""

    hidden: tuple[str, ...]
    writable: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()


Passwd = Callable[[], Sequence["pwd.struct_passwd"]]


def plan(
    uid: int,
    shown: Iterable[Path | str],
    env: Mapping[str, str],
    passwd: Passwd = pwd.getpwall,
) -> Cover:
    """The cover for commands of the user `uid` that must write the folders `shown` (the
    workspace, their private HOME) and run with `env` (its PATH and tool-chain variables).
    See the module's docstring for what is hidden and what is shown back."""
    own = _own_home(uid)
    homes = (_homes(passwd) | _runner_temp(env, uid)) - {own, ""}
    hidden = [h for h in _outermost(homes) if _enterable(h)]
    writable = [_resolved(str(p)) for p in [*shown, *([own] if own else [])]]
    writable = _under(hidden, [p for p in writable if os.path.isdir(p)])
    readable = [
        path
        for path in _tool_folders(env)
        if _apart(path, writable, homes) and _unmovable(path, hidden, uid)
    ]
    return Cover(tuple(hidden), tuple(writable), tuple(_under(hidden, readable)))


def _apart(path: str, writable: Iterable[str], homes: Iterable[str]) -> bool:
    """Whether a tool folder may be shown back beside the `writable` folders and the `homes`:
    it neither holds nor lies in a writable one (the workspace's parent would show the runner's
    `_temp` beside it), nor holds a home (a PATH entry `~` or `/home`)."""
    if any(_within(path, w) or _within(w, path) for w in writable):
        return False
    return not any(_within(h, path) for h in homes)


def _homes(passwd: Passwd) -> set[str]:
    """The users' homes: `TOPS` (as the folders they name: `/home` may be a link to
    `/var/home`), the folders in them, and the HOME of every user that is a folder of that
    user's own, whatever its uid (a self-hosted runner's user may be a system user, uid 999,
    living in `/srv/runner`; a service account's HOME `/usr` or `/var/www` is root's: not
    hidden)."""
    found = {_resolved(top) for top in TOPS if os.path.isdir(top)} - {"/"}  # `/home` -> `/var/home`
    for top in list(found):
        found |= {os.path.join(top, n) for n in _names(top) if _is_folder(os.path.join(top, n))}
    for entry in passwd():
        home = _resolved(entry.pw_dir)
        with suppress(OSError):
            if home != "/" and os.stat(home).st_uid == entry.pw_uid and _is_folder(home):
                found.add(home)
    return found


def _runner_temp(env: Mapping[str, str], uid: int) -> set[str]:
    """`RUNNER_TEMP`, the runner's scratch folder beside the workspace (actions/checkout's
    token file, the file commands `GITHUB_ENV` and `GITHUB_PATH`), when it is a folder of a
    user's own other than root and the commands (`uid`): a self-hosted runner installed
    outside any home keeps it in `/opt/actions-runner/_work/_temp`. A `/tmp` named there is
    root's: never hidden."""
    folder = env.get(TEMP, "")
    if not os.path.isabs(folder):
        return set()
    folder = _resolved(folder)
    try:
        owner = os.stat(folder).st_uid
    except OSError:
        return set()
    return {folder} if owner not in (0, uid) and _is_folder(folder) and folder != "/" else set()


def _enterable(folder: str) -> bool:
    """True when a user other than the owner may enter `folder` (its group or others have
    the search bit): a closed home (root's 0700 `/root`) hides itself, and is left alone."""
    try:
        return bool(os.stat(folder).st_mode & (stat.S_IXGRP | stat.S_IXOTH))
    except OSError:
        return False


def _is_folder(path: str) -> bool:
    """True for a folder that is not a link."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _unmovable(path: str, hidden: Sequence[str], uid: int) -> bool:
    """True when `path` is a folder reached without a link from the hidden folder holding it,
    every folder on the way neither the commands' (`uid`) nor writable by group or others:
    the commands cannot turn a PATH folder into a link to a credential folder before root
    binds it."""
    top = next((h for h in hidden if _within(path, h) and path != h), None)
    if top is None:
        return False
    folder = path
    while True:
        try:
            info = os.lstat(folder)
        except OSError:
            return False
        if not stat.S_ISDIR(info.st_mode) or info.st_uid == uid:
            return False
        if folder != top and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
        if folder == top:
            return True
        folder = os.path.dirname(folder)


def _tool_folders(env: Mapping[str, str]) -> list[str]:
    """The commands' PATH folders, the folders their tool-chain variables name and the
    runner's tool cache: absolute paths only, normalized (links are not resolved)."""
    found = env.get("PATH", "").split(os.pathsep)
    for name, value in env.items():
        if name in TOOL_VARIABLES or name == TOOL_CACHE:
            found.append(value)
    return [os.path.normpath(p) for p in found if p and os.path.isabs(p)]


def _own_home(uid: int) -> str:
    """The HOME of the user `uid` when it is a folder of that user's own, else "": a HOME
    naming another user's folder (the runner's) is that user's to hide, never shown back."""
    try:
        home = _resolved(pwd.getpwuid(uid).pw_dir)
    except KeyError:
        return ""
    try:
        return home if home != "/" and os.stat(home).st_uid == uid and _is_folder(home) else ""
    except OSError:
        return ""


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _resolved(path: str) -> str:
    return os.path.realpath(path) if path else ""


def _within(inner: str, outer: str) -> bool:
    """True when `inner` is `outer` or lies under it (both resolved)."""
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(_within(path, k) for k in kept):
            kept.append(path)
    return kept


def _under(hidden: Sequence[str], paths: Iterable[str]) -> list[str]:
    """The `paths` under a `hidden` folder (not a hidden folder itself), outermost first,
    none under another of them."""
    inside = [p for p in paths if p and any(_within(p, h) and p != h for h in hidden)]
    return _outermost(inside)


def argv(cover: Cover, namespace: Sequence[str]) -> tuple[str, ...]:
    """The argv prefix that makes `cover`'s view, then runs the rest of the argv (`exec "$@"`),
    to put between root's namespace `namespace` (from `sandbox`) and the change of user; ()
    when root cannot make such a view here (`works`) or no program is found."""
    script = _script(cover)
    if script is None or not works(tuple(namespace)):
        return ()
    return ("/bin/sh", "-c", script, "fixbot-homes")


def _script(cover: Cover) -> str | None:
    """The shell script that makes `cover`'s mounts in the current mount namespace, then
    `exec "$@"`; None without `mount` or `mkdir` in root's trusted folders. One `mount` per
    folder shown back (a read-only bind in one call: mount(8), since util-linux 2.27), plus
    three per hidden folder: each `mount` costs about 5 ms here (it reads the mount table)."""
    from fixbot.process import programs

    mount, mkdir = programs.optional("mount"), programs.optional("mkdir")
    if mount is None or mkdir is None:
        return None
    stage = _stage()
    m, mk, at = shlex.quote(mount), shlex.quote(mkdir), shlex.quote(stage)
    lines = [
        "umask 022",
        f'fail() {{ echo "fixbot: could not hide the homes: $1" >&2; exit {FAILED}; }}',
        'here=$(pwd -P) || fail "the current folder"',
    ]
    for hidden in cover.hidden:
        shown = sorted(p for p in [*cover.writable, *cover.readable] if _within(p, hidden))
        inner = {p: shlex.quote(stage + p[len(hidden) :]) for p in shown}
        lines.append(
            f"{m} -t tmpfs -o mode=0755,size=1m,nosuid,nodev fixbot-homes {at} || fail tmpfs"
        )
        if shown:
            lines.append(f"{mk} -p {' '.join(inner.values())} || fail mkdir")
        for path in shown:  # a tool folder gone since `plan` stays hidden; the workspace may not
            source = shlex.quote(path)
            if path in cover.readable:
                lines.append(f"{m} --rbind -o ro {source} {inner[path]} || :")
            else:
                lines.append(f"{m} --rbind {source} {inner[path]} || fail {source}")
        target = shlex.quote(hidden)
        lines.append(f"{m} -o remount,ro {at} && {m} --move {at} {target} || fail {target}")
    # The current folder was entered before the mounts: it is still the folder under the
    # cover, whose `..` climbs the hidden home (path_resolution(7) follows a mount downwards
    # only). Entered again by its path, it is the folder shown back, or hidden and refused.
    lines.append('cd -P -- "$here" || fail "the current folder"')
    lines.append('exec "$@"')
    return "\n".join(lines)


@cache
def _stage() -> str:
    """A root-only empty folder the tmpfs is mounted on before it is moved (inside the
    namespace only), made once per process and removed when it ends."""
    folder = tempfile.mkdtemp(prefix="fixbot-homes-")
    atexit.register(shutil.rmtree, folder, True)  # ignore_errors: never a traceback at exit
    return folder


PROBE = 'test -w "$1/kept" && test -d "$1/tool" && ! test -w "$1/tool" && ! test -e "$1/secret"'


@cache
def works(namespace: tuple[str, ...]) -> bool:
    """True when, in root's namespace `namespace`, a folder can be hidden and a folder under it
    shown back writable (the probe runs the real script once per process; mount(8) may be
    refused in a container without `CAP_SYS_ADMIN`)."""
    if not namespace:
        return False
    probe = tempfile.mkdtemp(prefix="fixbot-homes-probe-")
    try:
        for name in ("kept", "tool"):
            (Path(probe) / name).mkdir()
        (Path(probe) / "secret").write_text("")
        script = _script(Cover((probe,), (f"{probe}/kept",), (f"{probe}/tool",)))
        if script is None:
            return False
        done = subprocess.run(
            [
                *namespace,
                "/bin/sh",
                "-c",
                script,
                "fixbot-homes",
                "/bin/sh",
                "-c",
                PROBE,
                "-",
                probe,
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
            cwd="/",
        )
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return done.returncode == 0
