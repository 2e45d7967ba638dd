"""Attacks on the sealed edges: fixbot's own environment (`fixbot.core.environment`), the clone
of the workspace's repository (`fixbot.process.cloning`), fixbot's git configuration, the
no-follow reads of files the commands wrote (`fixbot.process.nofollow`, the per-test report)
and the read-back (`fixbot.process.readback`). A passing test is an attack the control holds; an
`xfail(strict=True)` one is a hole, described in its reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from fixbot.core import environment
from fixbot.core.errors import GitError
from fixbot.process import git, handover, nofollow, readback, sync, worlds
from tests.fakes.reads import read_in_time
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo

ROOT = Path(__file__).resolve().parents[2]
NOBODY = (65534, 65534)
JUNIT = '<testsuite name="x" tests="1"><testcase classname="t" name="test_secret"/></testsuite>\n'
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a root-only repository needs root")


def give(path: Path, who: tuple[int, int] = NOBODY) -> None:
    """Hand `path` and everything under it (links included, not followed) to `who`."""
    for item in [path, *path.rglob("*")]:
        os.lchown(item, *who)


def secret_repo(tmp_path: Path) -> Path:
    """A repository only root may read, holding `key.txt`."""
    secret = make_repo(tmp_path / "secret", {"key.txt": "root only\n"})
    secret.chmod(0o700)
    return secret


def attacker_workspace(tmp_path: Path) -> tuple[Path, Path]:
    """An empty repository owned by another user (the workspace an earlier step prepared) and
    fixbot's private folder for it, configured as a run configures it."""
    workspace = tmp_path / "w"
    workspace.mkdir()
    raw_git(tmp_path, "init", "-q", "-b", "main", str(workspace))
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {}, trusted=(workspace,), protocols=())
    return workspace, private


def cloned_secret(private: Path, workspace: Path) -> bool:
    """Clone `workspace` as a run does; True when the root-only `key.txt` came with it."""
    try:
        with worlds.entered(private):
            worlds.clone(workspace, private / worlds.REPO)
    except GitError:
        return False
    return (private / worlds.REPO / "key.txt").exists()


# --- the clone of the workspace's repository -------------------------------------------------


@needs_root
def test_links_inside_an_owned_git_folder_into_a_root_only_repository(tmp_path: Path) -> None:
    """Fixed: `own_repository` checked the owner of the git folder, its commondir and its
    alternates, not what is inside: a `.git` folder of the workspace's owner whose `objects/`,
    `refs/` and `packed-refs` are links into a root-only repository passed, and the clone, as
    root, followed them (git-upload-pack reads through links) and handed root's files to the
    commands and the model. A link anywhere in the repository's folders is refused now."""
    secret = secret_repo(tmp_path)
    raw_git(secret, "pack-refs", "--all")
    workspace, private = attacker_workspace(tmp_path)
    dot = workspace / ".git"
    for name in ("objects", "refs", "packed-refs"):
        target = dot / name
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
        target.symlink_to(secret / ".git" / name)
    give(workspace)
    assert not cloned_secret(private, workspace)


@needs_root
def test_an_alternate_of_an_alternate_naming_a_root_only_repository(tmp_path: Path) -> None:
    """Fixed: `own_repository` read one level of `objects/info/alternates`; an alternate of
    the workspace's owner that itself lists a root-only repository's objects (git follows
    alternates five deep) was never checked, and the clone carried the root-only objects its
    refs named. Alternates are followed as deep as git follows them now."""
    secret = secret_repo(tmp_path)
    middle = tmp_path / "middle"
    raw_git(tmp_path, "init", "-q", "--bare", str(middle))
    (middle / "objects" / "info" / "alternates").write_text(f"{secret / '.git' / 'objects'}\n")
    give(middle)
    workspace, private = attacker_workspace(tmp_path)
    dot = workspace / ".git"
    (dot / "objects" / "info" / "alternates").write_text(f"{middle / 'objects'}\n")
    (dot / "refs" / "heads" / "main").write_text(raw_git(secret, "rev-parse", "HEAD") + "\n")
    give(workspace)
    with worlds.entered(private), pytest.raises(GitError, match="not the workspace owner"):
        worlds.clone(workspace, private / worlds.REPO)


@needs_root
def test_a_relative_alternate_climbing_to_a_root_only_repository(tmp_path: Path) -> None:
    """An alternate written as a relative path (`../../../secret/.git/objects`) is resolved
    from the objects folder, as git does, and refused."""
    secret = secret_repo(tmp_path)
    workspace, private = attacker_workspace(tmp_path)
    dot = workspace / ".git"
    (dot / "objects" / "info" / "alternates").write_text("../../../secret/.git/objects\n")
    (dot / "refs" / "heads" / "main").write_text(raw_git(secret, "rev-parse", "HEAD") + "\n")
    give(workspace)
    assert os.path.samefile(
        dot / "objects" / "../../../secret/.git/objects", secret / ".git/objects"
    )
    assert not cloned_secret(private, workspace)


@needs_root
def test_a_commondir_in_a_git_folder_naming_a_root_only_repository(tmp_path: Path) -> None:
    """A real `.git` folder (no gitfile) with a `commondir` naming a root-only repository's git
    folder (a worktree's layout): refused."""
    secret = secret_repo(tmp_path)
    workspace, private = attacker_workspace(tmp_path)
    (workspace / ".git" / "commondir").write_text(f"{secret / '.git'}\n")
    give(workspace)
    assert not cloned_secret(private, workspace)


@needs_root
def test_a_gitfile_through_an_owned_link_to_a_root_only_repository(tmp_path: Path) -> None:
    """A gitfile naming a link of the workspace's owner that points at a root-only repository:
    the owner is read through the link (stat, not lstat) and refused."""
    secret = secret_repo(tmp_path)
    workspace, private = attacker_workspace(tmp_path)
    shutil.rmtree(workspace / ".git")
    (workspace / "innocent").symlink_to(secret / ".git")
    (workspace / ".git").write_text("gitdir: innocent\n")
    give(workspace)
    assert not cloned_secret(private, workspace)


def test_the_workspace_configuration_runs_nothing_during_the_clone(tmp_path: Path) -> None:
    """The workspace's `.git/config` names every program git may run on a config key
    (`uploadpack.packObjectsHook`, `core.sshCommand`, `core.gitProxy`, `credential.helper`,
    `core.fsmonitor`, a filter, `include.path` to more of them) and allows every protocol:
    the clone (git-upload-pack) runs none of them."""
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n", ".gitattributes": "* filter=x\n"})
    marker = tmp_path / "ran"
    run = f"!touch {marker}"
    extra = tmp_path / "extra.cfg"
    extra.write_text(f"[uploadpack]\n\tpackObjectsHook = touch {marker}; exec\n")
    with (workspace / ".git" / "config").open("a") as config:
        config.write(
            f"[uploadpack]\n\tpackObjectsHook = sh -c 'touch {marker}; exec \"$@\"' x\n"
            f"[core]\n\tsshCommand = touch {marker}\n\tgitProxy = {marker}.sh\n"
            f"\tfsmonitor = {marker}.sh\n"
            f"[credential]\n\thelper = {run}\n"
            f'[filter "x"]\n\tclean = touch {marker}\n\tsmudge = touch {marker}\n'
            f"[include]\n\tpath = {extra}\n"
            "[protocol]\n\tallow = always\n"
        )
    Path(f"{marker}.sh").write_text(f"#!/bin/sh\ntouch {marker}\n")
    Path(f"{marker}.sh").chmod(0o755)
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
        git.run(private / worlds.REPO, "status", "--porcelain")
    assert (private / worlds.REPO / "app.py").exists()
    assert not marker.exists()


def test_a_server_url_of_the_ext_transport_still_runs_no_command(tmp_path: Path) -> None:
    """`GITHUB_SERVER_URL=ext::sh -c ...` makes the run allow its scheme (`ext`) in fixbot's
    configuration; the `protocol.ext.allow=never` on fixbot's command line still wins."""
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n"})
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {}, trusted=(workspace,), protocols=("ext",))
    marker = tmp_path / "ran"
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
        url = f"ext::sh -c touch% {marker}"
        git.run(private / worlds.REPO, "remote", "set-url", "origin", url)
        done = git.completed(private / worlds.REPO, "fetch", "--quiet", "origin")
    assert done.returncode != 0 and "not allowed" in done.stderr
    assert not marker.exists()


def test_a_home_and_xdg_configuration_of_the_commands_never_reach_fixbots_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HOME and XDG_CONFIG_HOME are allowlisted (an earlier step can point them anywhere): a
    `.gitconfig` and `$XDG_CONFIG_HOME/git/config` there with an fsmonitor, a rewritten URL and
    an allowed `file` protocol are never read by fixbot's git during a run."""
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n"})
    other = make_repo(tmp_path / "other", {"b.txt": "b\n"})
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    marker = tmp_path / "ran"
    hostile = (
        f"[core]\n\tfsmonitor = {marker}.sh\n[protocol]\n\tallow = always\n"
        f'[url "{other}"]\n\tinsteadOf = https://\n'
    )
    (home / ".gitconfig").write_text(hostile)
    (home / ".config" / "git" / "config").write_text(hostile)
    Path(f"{marker}.sh").write_text(f"#!/bin/sh\ntouch {marker}\n")
    Path(f"{marker}.sh").chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
        git.run(private / worlds.REPO, "status", "--porcelain")
        done = git.completed(private / worlds.REPO, "ls-remote", "https://example.invalid/x")
    assert str(other) not in done.stdout + done.stderr
    assert not marker.exists()


# --- fixbot's own environment -----------------------------------------------------------------

# Variables a library or program of fixbot's process acts on, with a hostile value each.
LIBRARY_VARIABLES = {
    "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='touch /tmp/pwned'",
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "core.sshCommand",
    "GIT_CONFIG_VALUE_0": "touch /tmp/pwned",
    "GIT_EXEC_PATH": "/tmp/evil",
    "GIT_TEMPLATE_DIR": "/tmp/evil",
    "GIT_SSH_COMMAND": "touch /tmp/pwned",
    "GIT_ASKPASS": "/tmp/evil",
    "GIT_PROXY_COMMAND": "/tmp/evil",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES": "/var/lib/secret/objects",
    "PYTHONHTTPSVERIFY": "0",
    "PYTHONWARNINGS": "error::evil.Warning",
    "PYTHONSTARTUP": "/tmp/evil.py",
    "LITELLM_LOG": "DEBUG",
    "LITELLM_LOCAL_MODEL_COST_MAP": "False",
    "LITELLM_MODEL_COST_MAP_URL": "https://evil.invalid/prices.json",
    "LITELLM_CUSTOM_PROVIDER_MAP": "x",
    "AWS_ENDPOINT_URL": "https://evil.invalid",
    "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "https://evil.invalid",
    "AWS_CA_BUNDLE": "/tmp/evil.pem",
    "AWS_CONFIG_FILE": "/tmp/evil.cfg",
    "OPENAI_BASE_URL": "https://evil.invalid",
    "OPENAI_API_BASE": "https://evil.invalid",
    "ANTHROPIC_BASE_URL": "https://evil.invalid",
    "AZURE_API_BASE": "https://evil.invalid",
    "HF_ENDPOINT": "https://evil.invalid",
    "NODE_OPTIONS": "--require /tmp/evil.js",
    "NODE_EXTRA_CA_CERTS": "/tmp/evil.pem",
    "TMPDIR": "/tmp/evil",
    "GCONV_PATH": "/tmp/evil",
    "LOCPATH": "/tmp/evil",
    "LD_PRELOAD": "/tmp/evil.so",
    "LD_LIBRARY_PATH": "/tmp/evil",
    "OPENSSL_MODULES": "/tmp/evil",
    "OPENSSL_ENGINES": "/tmp/evil",
    "SSLKEYLOGFILE": "/tmp/keys.log",
    "NETRC": "/tmp/evil.netrc",
    "CURL_HOME": "/tmp/evil",
    "BASH_ENV": "/tmp/evil.sh",
    "ENV": "/tmp/evil.sh",
    "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES": "1",
    "SSL_CERT_DIR": "/tmp/evil",
    "ALL_PROXY": "http://evil.invalid:8080",
    "FIXBOT_SECRETS_FD": "0",
}


@pytest.mark.parametrize("command", ["action", "run"])
@pytest.mark.parametrize("name", sorted(LIBRARY_VARIABLES))
def test_a_variable_a_library_reads_never_reaches_fixbots_process(name: str, command: str) -> None:
    """A variable an earlier step wrote into GITHUB_ENV that git, Python, OpenSSL, glibc,
    litellm, botocore, httpx or node acts on is not in fixbot's own environment (the CLI
    keeps a model server's own variables only: the user's shell chose them)."""
    built = environment.build({name: LIBRARY_VARIABLES[name], "PATH": "/usr/bin"}, command)
    if command == "run" and name in {"OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL"}:
        return  # the CLI's model server, named by its user (no `is_server` given here: dropped)
    assert name not in built


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("VERTEXAI_LOCATION", "evil.invalid/#"),
        ("VERTEX_LOCATION", "x@evil.invalid"),
        ("AWS_REGION_NAME", "x.evil.invalid/#"),
        ("AWS_REGION", "evil.invalid:443/#"),
        ("AWS_DEFAULT_REGION", "../../x"),
        ("VERTEXAI_PROJECT", "p/../../v1/evil"),
        ("AZURE_API_VERSION", "2024-01-01&api-key=x"),
    ],
)
def test_a_provider_setting_holding_a_url_or_path_is_dropped(name: str, value: str) -> None:
    """Fixed: `PROVIDER_SETTINGS` (a region, a project, an API version) were kept whatever
    their value, and a provider's URL is built from them
    (`https://bedrock-runtime.{region}.amazonaws.com`): a region `evil.invalid/#` written into
    GITHUB_ENV would send the signed request, its session token and the code elsewhere. Only a
    plain value (letters, digits, `.`, `_`, `-`) is kept now."""
    assert name not in environment.build({name: value}, "action")
    assert environment.build({name: "us-central1"}, "action") == {name: "us-central1"}


@pytest.mark.parametrize("value", ["/tmp/evil", "../../tmp/evil", "C.UTF-8/../../x", "x\nLD=1"])
@pytest.mark.parametrize("name", ["LANG", "LC_ALL", "LC_CTYPE", "TERM"])
def test_a_locale_naming_a_path_is_dropped(name: str, value: str) -> None:
    """A locale naming a folder (glibc loads a locale, and its gconv modules, from a path
    given as the locale's name) never reaches fixbot's process; a plain one does."""
    assert name not in environment.build({name: value}, "action")
    assert environment.build({name: "C.UTF-8"}, "action") == {name: "C.UTF-8"}


def test_fixbot_variables_of_the_network_settings_carry_no_trust_in_the_action() -> None:
    """A `FIXBOT_HTTPS_PROXY` or `FIXBOT_CA_BUNDLE` written into GITHUB_ENV is a setting
    variable (allowlisted) but sets no proxy or CA for the Action: only its inputs do."""
    given = {
        "FIXBOT_HTTPS_PROXY": "http://evil.invalid:8080",
        "FIXBOT_CA_BUNDLE": "/tmp/evil.pem",
        "FIXBOT_NO_PROXY": "*",
        "HTTPS_PROXY": "http://evil.invalid:8080",
        "SSL_CERT_FILE": "/tmp/evil.pem",
    }
    built = environment.build(given, "action")
    for name in ("HTTPS_PROXY", "https_proxy", "SSL_CERT_FILE", "GIT_SSL_CAINFO", "NO_PROXY"):
        assert name not in built
    built = environment.build({**given, "INPUT_HTTPS-PROXY": "http://proxy.corp:3128"}, "action")
    assert built["HTTPS_PROXY"] == "http://proxy.corp:3128"


def test_every_allowlisted_input_variable_is_an_input_the_runner_sets() -> None:
    """The runner sets `INPUT_<NAME>` of every input action.yml declares (its default when the
    workflow gives none), over a value an earlier step wrote into GITHUB_ENV; an allowlisted
    `INPUT_*` that action.yml does not declare would be the earlier step's to choose."""
    declared = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    names = {name for name in environment.SETTING_VARIABLES if name.startswith("INPUT_")}
    assert names == {"INPUT_" + name.upper() for name in declared}
    for name, spec in declared.items():
        assert "default" in spec or spec.get("required"), name


# --- no-follow reads of what the commands wrote ----------------------------------------------


@needs_root
def test_a_report_folder_replaced_by_a_link_into_a_root_only_folder(tmp_path: Path) -> None:
    """The report's folder is given to the check's user, in a sticky /tmp: that user may
    rename it and put a link to a root-only folder (holding a 0644 XML) in its place. The
    folder itself is opened without following a link (`nofollow.DIR_FLAGS`), so nothing is
    read."""
    hidden = tmp_path / "root-only"
    hidden.mkdir(mode=0o700)
    (hidden / "report.xml").write_text(JUNIT)
    (hidden / "report.xml").chmod(0o644)
    folder = tmp_path / "fixbot-report-x"
    folder.mkdir()
    os.chown(folder, *NOBODY)
    # what the check's user may do to its own folder in a sticky /tmp
    folder.rename(tmp_path / "moved")
    folder.symlink_to(hidden)
    assert read_in_time(folder / "report.xml", NOBODY) is None


def test_a_fifo_or_a_device_as_the_report_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "report.xml")
    assert read_in_time(tmp_path / "report.xml", NOBODY) is None
    if os.geteuid() == 0:
        os.mknod(tmp_path / "zero.xml", 0o644 | 0o020000, os.makedev(1, 5))  # /dev/zero
        assert read_in_time(tmp_path / "zero.xml", NOBODY) is None


def test_a_sparse_huge_report_is_refused_at_the_bound(tmp_path: Path) -> None:
    """A report of 64 GiB (sparse: no disk) is refused after reading at most the bound."""
    path = tmp_path / "report.xml"
    with path.open("wb") as handle:
        handle.write(JUNIT.encode())
        handle.truncate(64 << 30)
    assert read_in_time(path, (os.geteuid(), os.getegid())) is None


@needs_root
def test_a_report_flipping_between_a_file_and_a_link_never_yields_the_linked_file(
    tmp_path: Path,
) -> None:
    """TOCTOU: a process of the check's user flips the report between its own file and a link
    to a root-only XML while fixbot reads it: every read gets the check's file or nothing."""
    secret = tmp_path / "secret.xml"
    secret.write_text(JUNIT)
    secret.chmod(0o600)
    folder = tmp_path / "r"
    folder.mkdir()
    own = folder / "own.xml"
    own.write_text(JUNIT.replace("test_secret", "test_own"))
    os.chown(own, *NOBODY)
    path = folder / "report.xml"
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for source in (own, secret):
                link = folder / "tmp-link"
                if source is own:
                    os.link(own, link)
                else:
                    link.symlink_to(secret)
                os.replace(link, path)

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        seen = {str(read_in_time(path, NOBODY)) for _ in range(300)}
    finally:
        stop.set()
        thread.join(5)
    assert not any("test_secret" in item for item in seen)


@needs_root
def test_a_hard_link_to_a_root_only_file_is_not_read_back(tmp_path: Path) -> None:
    """The fix command hard-links a root-only file (made where protected_hardlinks is off,
    or by root earlier) into the workspace: the commands' user could not read it, so the
    read-back refuses it (never carried into fixbot's commit)."""
    root = tmp_path / "w"
    root.mkdir()
    secret = tmp_path / "shadow"
    secret.write_text("root:secret\n")
    secret.chmod(0o600)
    os.link(secret, root / "copy.txt")
    with pytest.raises(PermissionError):
        nofollow.read_at(root, "copy.txt", 1 << 20, NOBODY)


@needs_root
def test_a_linked_parent_folder_is_not_followed_by_the_read_back(tmp_path: Path) -> None:
    """The fix command replaced `lib/` by a link to a root-only folder holding a 0644 file of
    the same name: the read-back reads under the workspace without following a folder link."""
    hidden = tmp_path / "hidden"
    hidden.mkdir(mode=0o700)
    (hidden / "util.py").write_text("SECRET = 1\n")
    (hidden / "util.py").chmod(0o644)
    root = tmp_path / "w"
    root.mkdir()
    (root / "lib").symlink_to(hidden)
    with pytest.raises(nofollow.Planted):
        nofollow.read_at(root, "lib/util.py", 1 << 20, NOBODY)


@pytest.fixture(params=[True, False], ids=["written", "unwritten"])
def pair(tmp_path: Path, request: pytest.FixtureRequest) -> sync.Worlds:
    """A workspace and fixbot's clone of it, its files written (the Action's) or not (a run's:
    the read-back writes them first)."""
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n", "lib/util.py": "y = 2\n"})
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO, files=request.param)
    return sync.Worlds(private / worlds.REPO, workspace)


def test_a_file_name_with_a_newline_comes_back_as_itself(pair: sync.Worlds) -> None:
    """A fix command writes `app.py\\nlib/util.py`: the read-back brings that one name (or
    refuses it), never rewrites `app.py` or `lib/util.py` of fixbot's clone."""
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
        before = pair.untracked()
        (pair.workspace / "app.py\nlib").mkdir()
        (pair.workspace / "app.py\nlib" / "util.py").write_text("EVIL = 1\n")
        (pair.workspace / "new\nname.py").write_text("EVIL = 2\n")
        back = pair.read_back(before)
    assert (pair.fixbot / "app.py").read_text() == "x = 1\n"
    assert (pair.fixbot / "lib" / "util.py").read_text() == "y = 2\n"
    for rel in back.changed:
        assert (pair.fixbot / rel).read_text().startswith("EVIL")


def test_a_gitdir_or_git_file_written_by_the_fix_command_is_never_read_back(
    pair: sync.Worlds,
) -> None:
    """A fix command writes `sub/.git` (a gitfile naming a root-only repository) and
    `.GIT/config`, `lib/.git/config`: none of them comes into fixbot's clone, whose git would
    then read that repository as a submodule."""
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
        before = pair.untracked()
        (pair.workspace / "sub").mkdir()
        (pair.workspace / "sub" / ".git").write_text("gitdir: /var/lib/secret\n")
        (pair.workspace / "lib" / ".git").mkdir()
        (pair.workspace / "lib" / ".git" / "config").write_text("[core]\n\tfsmonitor = x\n")
        back = pair.read_back(before)
    assert not (pair.fixbot / "sub" / ".git").exists()
    assert not (pair.fixbot / "lib" / ".git").exists()
    assert not any(".git" in Path(rel).parts for rel in back.changed)


def test_the_hand_over_script_takes_no_option_from_its_arguments(tmp_path: Path) -> None:
    """The hand-over passes fixbot's clone's path to `git fetch` after `--`: a clone path
    starting with `--upload-pack=` (a state folder the user named so) is a path, not an
    option that runs a program."""
    marker = tmp_path / "ran"
    workspace = make_repo(tmp_path / "w", {"a": "1\n"})
    head = raw_git(workspace, "rev-parse", "HEAD")
    evil = f"--upload-pack=touch {marker};"
    done = subprocess.run(
        ["sh", "-c", handover.HAND_OVER, "x", "refs/heads/main", head, head, evil, "/.fixbot/"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert not marker.exists()


# --- the runner mode's uid split: what the commands' user could read -------------------------


def test_a_token_checkout_v6_persisted_through_an_include_is_found(tmp_path: Path) -> None:
    """Fixed: actions/checkout v6 (the current default) persists the token in a separate file
    under RUNNER_TEMP that the workspace's `.git/config` includes (`[includeIf
    "gitdir:<workspace>/.git"] path = <RUNNER_TEMP>/git-credentials-<uuid>.config`);
    `persisted_credentials` searched `.git/config` alone and gave no warning. The included
    files are read (as data, bounded) too now."""
    from fixbot.process import exposure

    repo = make_repo(tmp_path / "w", {"a.txt": "a\n"})
    temp = tmp_path / "_temp"
    temp.mkdir()
    included = temp / "git-credentials-0123.config"
    included.write_text('[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n')
    raw_git(repo, "config", f"includeIf.gitdir:{repo}/.git.path", str(included))
    assert raw_git(repo, "config", "--get-regexp", "extraheader")  # git itself sees the token
    assert exposure.persisted_credentials(repo)


@pytest.fixture
def open_home() -> Iterator[Path]:
    """A runner's HOME others can enter, in a folder others can enter from `/` (pytest's own
    temporary folder is closed to others, which would hide every link's target)."""
    base = Path(tempfile.mkdtemp(prefix="fixbot-home-", dir="/tmp"))
    try:
        base.chmod(0o755)
        home = base / "runner"
        (home / "dotfiles").mkdir(parents=True)
        home.chmod(0o755)
        (home / "dotfiles").chmod(0o755)
        yield home
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_credential_file_that_is_a_link_in_an_open_home_is_found(open_home: Path) -> None:
    """A 0644 `~/.gitconfig` kept in a dotfiles folder and linked (stow): any user reads it
    through the link. Judged by lstat alone, the link was skipped."""
    from fixbot.process import exposure

    target = open_home / "dotfiles" / "gitconfig"
    target.write_text("[http]\n\textraheader = AUTHORIZATION: basic x\n")
    target.chmod(0o644)
    (open_home / ".gitconfig").symlink_to(target)
    assert exposure.exposed_home(open_home) == [open_home / ".gitconfig"]
    target.chmod(0o600)  # closed: the link reaches nothing others may read
    assert exposure.exposed_home(open_home) == []


def test_a_credential_folder_that_is_a_link_in_an_open_home_is_walked(open_home: Path) -> None:
    """`~/.ssh` as a link to a dotfiles folder others can enter: its 0644 key is found."""
    from fixbot.process import exposure

    folder = open_home / "dotfiles" / "ssh"
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (folder / "id_ed25519").chmod(0o644)
    (open_home / ".ssh").symlink_to(folder)
    assert exposure.exposed_home(open_home) == [folder / "id_ed25519"]


@pytest.mark.parametrize(
    "rel",
    [".cargo/credentials.toml", ".m2/settings.xml", ".gem/credentials", ".terraform.d/x.json"],
)
def test_a_credential_file_of_a_tool_not_listed_is_out_of_the_commands_reach(
    tmp_path: Path, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fixed (was a hole: `exposed_home` knows a list of credential names, and a 0644
    `~/.cargo/credentials.toml` in the runner's open HOME was not reported). The split's
    commands now run where the users' homes are hidden (`fixbot.process.homes`): the check's
    `cat` of any file in the runner's HOME fails, listed or not. Without the cover it reads
    the token."""
    from fixbot.process.launcher import Launcher
    from tests.fakes.homes import as_the_split, needs_hidden_homes, runner_home, secret_file

    needs_hidden_homes()
    with runner_home() as (home, workspace):
        path = secret_file(home / rel)
        code, log = as_the_split(workspace, f"cat {path}", tmp_path / "check.log")
        assert code != 0 and "cio-0123456789" not in log, log
        assert "No such file or directory" in log
        monkeypatch.setattr(Launcher, "_cover", lambda self: None)
        code, log = as_the_split(workspace, f"cat {path}", tmp_path / "open.log")
        assert code == 0 and "cio-0123456789" in log, log  # the attack, without the cover


def test_a_fifo_and_a_setuid_file_of_the_fix_command_come_back_harmless(pair: sync.Worlds) -> None:
    """The fix command leaves a FIFO (a read would block until a writer comes) and a setuid,
    group-writable `tool`: the read-back refuses the FIFO without blocking and carries `tool`
    as 0755, never with the setuid bit or a write bit for others."""
    with worlds.entered(pair.fixbot.parent):
        pair.to_workspace()
        before = pair.untracked()
        os.mkfifo(pair.workspace / "pipe.py")
        (pair.workspace / "tool").write_text("#!/bin/sh\n")
        (pair.workspace / "tool").chmod(0o6777)
        found: list[readback.ReadBack] = []
        thread = threading.Thread(target=lambda: found.append(pair.read_back(before)))
        thread.daemon = True
        thread.start()
        thread.join(20)
    assert not thread.is_alive(), "the read-back blocked on a FIFO"
    assert "pipe.py" not in found[0].changed and not (pair.fixbot / "pipe.py").exists()
    assert found[0].changed == ["tool"]
    assert (pair.fixbot / "tool").stat().st_mode & 0o7777 == 0o755
