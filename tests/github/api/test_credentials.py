"""The token reaches git's credential helper through a pipe, so no process of the
same user (the check, in runner mode) reads it from any environment or command line while git
fetches or pushes."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fixbot.github.api import checkout
from fixbot.process import git
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo

TOKEN = "ghs_pipeTOKEN0123456789abcdef"


class AuthServer(ThreadingHTTPServer):
    """git's smart HTTP, as far as authentication: 401 until a Basic password arrives; then the
    password is recorded and, after `hold` seconds (git's processes stay alive meanwhile), 403."""

    def __init__(self, hold: float) -> None:
        self.hold = hold
        self.passwords: list[str] = []
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: AuthServer

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="fake"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.server.passwords.append(base64.b64decode(auth[6:]).decode().partition(":")[2])
        time.sleep(self.server.hold)
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server() -> Iterator[AuthServer]:
    httpd = AuthServer(hold=1.5)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def watch(stop: threading.Event, seen: list[str]) -> None:
    """What a process of the same user can do: read every process's environ and cmdline."""
    needle = TOKEN.encode()
    while not stop.is_set():
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            for name in ("environ", "cmdline"):
                try:
                    if needle in (proc / name).read_bytes():
                        seen.append(f"{proc.name}/{name}")
                except OSError:
                    continue


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc (Linux)")
def test_no_process_environment_or_command_line_holds_the_token_during_a_push(
    tmp_path: Path, server: AuthServer
) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    host = f"127.0.0.1:{server.server_address[1]}"
    raw_git(repo, "remote", "add", "origin", f"http://{host}/repo.git")
    seen: list[str] = []
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(stop, seen), daemon=True)
    watcher.start()
    try:
        with pytest.raises(git.GitError, match="pushing to main failed"):
            checkout.push(repo, "HEAD", "main", checkout.auth_env(TOKEN, host))
    finally:
        stop.set()
        watcher.join()
    assert server.passwords == [TOKEN]  # the helper gave it to git, and git to the server
    assert seen == []
