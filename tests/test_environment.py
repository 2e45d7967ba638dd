"""fixbot's environment is built, not inherited: an earlier step's GITHUB_ENV (an `OPENSSL_CONF`,
a proxy trusted by a CA bundle, litellm's `SSL_VERIFY`, git's `GIT_AUTHOR_*`, any name nobody
listed) reaches neither fixbot's own process, nor libcrypto in it, nor its git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fixbot.core import environment
from fixbot.core.secrets import PROVIDER_KEYS
from fixbot.startup import REEXEC_MARKER
from tests.fakes.action_env import ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.paths import ROOT
from tests.fakes.repo import git, make_repo

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and fifos: Linux")


def hostile(fifo: Path) -> dict[str, str]:
    """What an earlier step wrote into GITHUB_ENV, by name."""
    return {
        "OPENSSL_CONF": str(fifo),
        "GIT_SSL_CAINFO": "/tmp/attacker-ca.pem",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "SSL_VERIFY": "False",
        "GIT_AUTHOR_NAME": "Mallory",
        "GIT_AUTHOR_EMAIL": "mallory@attacker.example",
        "GIT_COMMITTER_NAME": "Mallory",
        "GIT_COMMITTER_EMAIL": "mallory@attacker.example",
        "FOO_HOOK": "attacker",
    }


class Opened(threading.Thread):
    """Watches the fifo `OPENSSL_CONF` names: opening it for writing without blocking succeeds
    only while some process has it open for reading (fifo(7)), libcrypto loading its
    configuration. Feeds it an empty configuration then."""

    def __init__(self, fifo: Path) -> None:
        super().__init__(daemon=True)
        self.fifo, self.readers, self.stop = fifo, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.005)
                continue
            self.readers += 1
            os.write(fd, b"\n")
            os.close(fd)
            time.sleep(0.05)


@pytest.mark.slow
@linux
@pytest.mark.skipif(os.geteuid() != 0, reason="reads fixbot's environ: root only (not dumpable)")
def test_what_an_earlier_step_wrote_reaches_neither_fixbot_nor_its_git(tmp_path: Path) -> None:
    """fixbot's re-executed process starts from the allowlist: its `/proc/<pid>/environ` holds
    none of the hostile names, libcrypto never opens the `OPENSSL_CONF` file, and the verified
    commit carries the user's git identity, not `GIT_AUTHOR_NAME`'s. Without the control the
    environ holds them all, the fifo is opened, and the commit is Mallory's."""
    fifo = tmp_path / "openssl.cnf"
    os.mkfifo(fifo)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Real User\n\temail = real@example.org\n")
    script = "grep -q good src.txt || { touch started; sleep 2; exit 1; }\n"
    repo = make_repo(tmp_path / "repo", {"src.txt": "bad\n", "check.sh": script})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FIXBOT_", "GIT_"))}
    env.update({"HOME": str(home), "PYTHONPATH": str(ROOT), "FIXBOT_RUN_AS": "self"})
    env.update(hostile(fifo))
    watcher = Opened(fifo)
    watcher.start()
    fix = "echo good > src.txt"
    args = ["run", "--check", "sh check.sh", "--fix-commands", fix, "-C", str(repo), "--json"]
    with subprocess.Popen(
        [sys.executable, "-m", "fixbot", *args],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        deadline = time.monotonic() + 60
        while not (repo / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        seen = (Path("/proc") / str(proc.pid) / "environ").read_bytes().split(b"\0")
        out, err = proc.communicate(timeout=120)
    watcher.stop.set()
    names = {item.split(b"=", 1)[0].decode() for item in seen if item}
    assert "PATH" in names, names
    assert not names & set(hostile(fifo)), names
    assert json.loads(out)["outcome"] == "fixed", out + err
    assert watcher.readers == 0  # libcrypto of fixbot's never read the planted configuration
    author = git(repo, "log", "-1", "--format=%an <%ae> %cn")
    assert author == "Real User <real@example.org> Real User", author
    ignored = next(line for line in err.splitlines() if line.startswith("fixbot: ignored"))
    assert "GIT_SSL_CAINFO" in ignored and "HTTPS_PROXY" in ignored, err


def test_the_allowlist_keeps_what_fixbot_reads_and_nothing_else() -> None:
    """Each class the allowlist names, and nothing outside it: the settings' variables, the
    runner's, the model keys, the basics; not git's, OpenSSL's, a proxy or an unknown name."""
    given = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "INPUT_MODEL": "openai/gpt-4o",
        "INPUT_GITHUB-TOKEN": "t",
        "FIXBOT_TIMEOUT": "5",
        "GITHUB_SERVER_URL": "https://github.com",
        "OPENAI_API_KEY": "k",
        "TAVILY_API_KEY": "s",
        "AWS_REGION_NAME": "eu-west-1",
        **hostile(Path("/tmp/x")),
        "LD_PRELOAD": "/tmp/x.so",
        "GIT_CONFIG_GLOBAL": "/tmp/c",
        "PYTHONPATH": "/tmp",
        "OPENAI_BASE_URL": "http://attacker.example",
    }
    built = environment.build(given, "action", lambda name: name == "OPENAI_BASE_URL")
    assert set(built) == {
        *("PATH", "HOME", "LANG", "INPUT_MODEL", "INPUT_GITHUB-TOKEN", "FIXBOT_TIMEOUT"),
        *("GITHUB_SERVER_URL", "OPENAI_API_KEY", "TAVILY_API_KEY", "AWS_REGION_NAME"),
    }
    cli = environment.build(given, "run", lambda name: name == "OPENAI_BASE_URL")
    assert set(cli) - set(built) == {"OPENAI_BASE_URL"}  # the CLI's own shell names its server
    assert "LANG" not in environment.build({"LANG": "../../tmp/x"}, "run")  # a name, not a path
    assert {k for k in PROVIDER_KEYS if environment.allowed(k, "action")} >= PROVIDER_KEYS


def test_proxies_and_certificate_authorities_come_from_the_inputs_and_are_named() -> None:
    """In the Action a proxy and a CA bundle are the `https-proxy` and `ca-bundle` inputs
    (a `FIXBOT_HTTPS_PROXY` from GITHUB_ENV carries no trust), set for git, httpx, requests and
    OpenSSL, and named in the log without the proxy's password; the environment's are named as
    ignored."""
    given = {
        "INPUT_HTTPS-PROXY": "http://user:pw@proxy.internal:3128",
        "INPUT_CA-BUNDLE": "/etc/ssl/corp.pem",
        "FIXBOT_NO_PROXY": "attacker.example",
        "HTTPS_PROXY": "http://attacker.example:8080",
    }
    built = environment.build(given, "action")
    assert built["HTTPS_PROXY"] == built["http_proxy"] == "http://user:pw@proxy.internal:3128"
    assert built["GIT_SSL_CAINFO"] == built["SSL_CERT_FILE"] == "/etc/ssl/corp.pem"
    assert "NO_PROXY" not in built
    lines = "\n".join(environment.announce(given, "action"))
    assert "https-proxy: http://proxy.internal:3128" in lines and "pw" not in lines
    assert "ca-bundle: /etc/ssl/corp.pem" in lines and "ignored HTTPS_PROXY" in lines
    assert environment.build(given, "run").get("NO_PROXY") == "attacker.example"  # the CLI's


def test_security_doc_lists_the_allowlist() -> None:
    """docs/SECURITY.md names every basic variable, provider setting and network setting of the
    allowlist (`fixbot.core.environment`), so the page cannot drift from the code."""
    text = (ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    names = [*environment.BASICS, *environment.PROVIDER_SETTINGS, *environment.NETWORK_SETTINGS]
    missing = [name for name in sorted(names) if f"`{name}`" not in text]
    assert not missing, missing


@pytest.mark.slow
@linux
@pytest.mark.skipif(os.geteuid() != 0, reason="reads fixbot's environ: root only (not dumpable)")
def test_the_actions_fixbot_starts_from_the_allowlist_too(
    tmp_path: Path, github_server: FakeGitHub
) -> None:
    """The Action, as a step after one that wrote GITHUB_ENV: the re-executed fixbot's
    `/proc/<pid>/environ` holds none of the hostile names, libcrypto never opens the planted
    `OPENSSL_CONF`, and the pushed commit is the bot's, not `GIT_AUTHOR_NAME`'s."""
    fifo = tmp_path / "openssl.cnf"
    os.mkfifo(fifo)
    box = ActionSandbox(tmp_path / "action", github_server)
    check = "grep -q good src.txt || { sleep 2; exit 1; }\n"
    box.commit("main", {"src.txt": "good\n", "check.sh": check}, "initial")
    sha = box.commit("changes", {"src.txt": "bad\n"}, "break it")
    workspace = box.workspace("changes", merge_into="main")
    inputs = {"check-command": "sh check.sh", "fix-commands": "echo good > src.txt"}
    event = box.pull_request_event("changes", sha)
    env = box.env("pull_request", event, workspace, inputs) | hostile(fifo)
    watcher = Opened(fifo)
    watcher.start()
    seen: list[bytes] = []
    with subprocess.Popen(
        [sys.executable, "-m", "fixbot", "action"],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        proc_dir = Path("/proc") / str(proc.pid)
        while proc.poll() is None:  # the last environ read from the re-executed process
            try:
                if REEXEC_MARKER.encode() in (proc_dir / "cmdline").read_bytes():
                    seen = (proc_dir / "environ").read_bytes().split(b"\0")
            except OSError:
                break
            time.sleep(0.05)
        out, err = proc.communicate(timeout=300)
    watcher.stop.set()
    names = {item.split(b"=", 1)[0].decode() for item in seen if item}
    assert "PATH" in names and "GITHUB_REPOSITORY" in names, (names, out + err)
    assert not names & set(hostile(fifo)), names
    assert watcher.readers == 0  # libcrypto of fixbot's never read the planted configuration
    pushed = box.origin_sha("changes")
    assert pushed is not None and pushed != sha, out + err
    author = git(box.origin, "log", "-1", "--format=%an <%ae>", pushed)
    assert "Mallory" not in author and "attacker" not in author, author
