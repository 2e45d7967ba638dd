"""The secret scan before any push: every spelling of a known secret, token shapes, no values
in the message (pure), and the Action refusing a push that carries one (end to end)."""

from __future__ import annotations

import base64
import codecs
import textwrap
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from fixbot.github.api import checkout
from fixbot.github.api.rest import GitHub
from fixbot.security.leakscan import (
    LeakRefused,
    forms,
    known_secrets,
    refuse_if_leaking,
    refuse_if_text_leaking,
    scan,
)
from tests.fakes.action_env import TOKEN, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.repo import git, make_repo

SECRET = "pa55:w0rd/with spaces&more"


def diff_adding(path: str, line: str) -> str:
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -0,0 +1 @@\n+{line}\n"


@pytest.mark.parametrize(
    ("spelled", "form"),
    [
        (SECRET, "plain"),
        (SECRET[::-1], "reversed"),
        (SECRET.encode().hex(), "hex"),
        (SECRET.encode().hex().upper(), "hex"),
        (quote(SECRET, safe=""), "url-encoded"),
        (base64.b64encode(SECRET.encode()).decode(), "base64"),
        (base64.b64encode(b"prefix:" + SECRET.encode() + b"!").decode(), "base64"),
        (base64.b64encode(b"xy" + SECRET.encode()).decode(), "base64"),
        (base64.urlsafe_b64encode(b"x" + SECRET.encode()).decode(), "base64"),
    ],
)
def test_every_spelling_of_a_known_secret_is_found(spelled: str, form: str) -> None:
    leaks = scan(diff_adding("build-info.txt", f"data = '{spelled}'"), {"DB_PASSWORD": SECRET})
    assert [leak.describe() for leak in leaks] == [f"DB_PASSWORD ({form}) in build-info.txt"]


def test_only_added_lines_count_and_short_values_are_skipped() -> None:
    removed = "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-" + SECRET + "\n"
    assert scan(removed, {"DB_PASSWORD": SECRET}) == []
    assert scan(diff_adding("f", "abc"), {"PIN": "abc"}) == []
    assert scan(diff_adding("f", "nothing to see"), {"DB_PASSWORD": SECRET}) == []


def diff_adding_lines(path: str, lines: list[str]) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    head = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    return f"{head}@@ -0,0 +1,{len(lines)} @@\n{body}"


LONG = "deploy-" + "k3y" * 30  # long enough that its encodings wrap


@pytest.mark.parametrize(
    ("lines", "form"),
    [  # `base64` and MIME wrap at 76 columns, PEM at 64, a YAML block indents, hex dumps wrap
        (base64.encodebytes(b"token=" + LONG.encode()).decode().splitlines(), "base64"),
        (textwrap.wrap(base64.b64encode(LONG.encode()).decode(), 64), "base64"),
        (["  " + x for x in textwrap.wrap(base64.b64encode(LONG.encode()).decode(), 60)], "base64"),
        (textwrap.wrap(LONG.encode().hex(), 32), "hex"),
    ],
)
def test_a_secret_wrapped_over_several_lines_is_found(lines: list[str], form: str) -> None:
    assert len(lines) > 1 and not scan(diff_adding("x", lines[0]), {"DEPLOY_KEY": LONG})
    leaks = scan(diff_adding_lines("blob.txt", lines), {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in leaks] == [f"DEPLOY_KEY ({form} wrapped) in blob.txt"]


def test_only_consecutive_one_word_lines_of_one_file_are_joined() -> None:
    half = len(LONG) // 2
    split_by_prose = [LONG[:half], "a line of prose", LONG[half:]]
    leaks = scan(diff_adding_lines("a.txt", split_by_prose), {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in leaks] == ["DEPLOY_KEY (fragment) in a.txt"]  # not joined
    one_line = scan(diff_adding_lines("c.txt", [LONG, "next"]), {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in one_line] == ["DEPLOY_KEY (plain) in c.txt"]


def test_a_value_split_over_two_files_is_found_as_fragments() -> None:
    token = "ghs_" + "Q7x9Lm2Vb4Nc8Zr1Tp6Wd3Ky5Hf0Js"
    half = len(token) // 2
    two_files = diff_adding_lines("a.txt", ["x", token[:half]]) + diff_adding_lines(
        "b.txt", [token[half:], "y"]
    )
    leaks = scan(two_files, {"GITHUB_TOKEN": token})
    assert [leak.describe() for leak in leaks] == [
        "GITHUB_TOKEN (fragment) in a.txt",
        "GITHUB_TOKEN (fragment) in b.txt",
    ]


def test_a_line_starting_with_plus_plus_space_is_content_not_a_header() -> None:
    token = "Q7x9Lm2Vb4Nc8Zr1Tp6Wd3Ky5Hf0Js"
    diff = diff_adding_lines("notes.txt", ["first", f"++ {token}"])  # git shows `+++ Q7x9...`
    assert "+++ " + token in diff
    leaks = scan(diff, {"DEPLOY_KEY": token})
    assert [leak.describe() for leak in leaks] == ["DEPLOY_KEY (plain) in notes.txt"]


@pytest.mark.parametrize(
    ("spelled", "form"),
    [
        (codecs.encode(LONG, "rot13"), "rot13"),
        (base64.b32encode(LONG.encode()).decode(), "base32"),
        (base64.b32encode(b"ab" + LONG.encode()).decode().lower(), "base32"),
    ],
)
def test_rot13_and_base32_are_found(spelled: str, form: str) -> None:
    leaks = scan(diff_adding("x.txt", spelled), {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in leaks] == [f"DEPLOY_KEY ({form}) in x.txt"]


def test_a_secret_in_a_file_name_is_found() -> None:
    diff = diff_adding(f"logs/{LONG}.txt", "harmless")
    leaks = scan(diff, {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in leaks] == ["DEPLOY_KEY (plain) in file names"]


def test_published_texts_are_scanned_and_refused_without_the_value() -> None:
    with pytest.raises(LeakRefused) as caught:
        refuse_if_text_leaking(
            {"the commit message": f"fix\n\nsee {codecs.encode(LONG, 'rot13')}"},
            {"DEPLOY_KEY": LONG},
            "pushing",
        )
    assert "DEPLOY_KEY (rot13) in the commit message" in str(caught.value)
    assert LONG not in str(caught.value)
    refuse_if_text_leaking({"the body": "all clean"}, {"DEPLOY_KEY": LONG}, "commenting")


def test_token_shapes_are_found_without_knowing_the_value() -> None:
    leaks = scan(diff_adding("config.py", "KEY = 'ghp_" + "a1B2" * 9 + "'"), {})
    assert [leak.describe() for leak in leaks] == ["a token (shape) in config.py"]


def test_the_refusal_names_secret_and_file_never_the_value() -> None:
    with pytest.raises(LeakRefused) as caught:
        refuse_if_leaking(diff_adding("out.txt", SECRET), {"DB_PASSWORD": SECRET}, "pushing")
    message = str(caught.value)
    assert "DB_PASSWORD (plain) in out.txt" in message and SECRET not in message


def test_known_secrets_takes_secret_looking_variables_and_the_token() -> None:
    env = {"HOME": "/home/me", "OPENAI_API_KEY": "sk-0123456789", "PATH": "/usr/bin"}
    assert known_secrets(env, github_token="ghs_x1234567") == {
        "OPENAI_API_KEY": "sk-0123456789",
        "github_token": "ghs_x1234567",
    }
    assert all(len(text) >= 8 for text in forms("abcdefgh").values())


ENCODED = base64.b64encode(TOKEN.encode()).decode()
CHECK_PY = (
    "import pathlib, sys\nsys.exit(0 if 'fixed' in pathlib.Path('app.py').read_text() else 1)\n"
)


@pytest.mark.slow
def test_the_action_refuses_to_push_a_diff_carrying_the_token(
    tmp_path: Path, github_server: FakeGitHub
) -> None:
    """The fix command writes the token (base64) into the file it fixes: fixbot escalates with
    the reason and the branch is left alone."""
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {"app.py": "broken\n", "check.py": CHECK_PY}, "initial")
    sha = box.commit("changes", {"app.py": "still broken\n"}, "change")
    ws = box.workspace("changes", merge_into="main")
    inputs = {
        "check-command": "python check.py",
        "fix-commands": f"printf 'fixed\\n# build {ENCODED}\\n' > app.py",
    }
    run = box.run(box.env("pull_request", box.pull_request_event("changes", sha), ws, inputs))
    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["outcome"] == "escalated"
    assert "github_token (base64) in app.py" in run.outputs["reason"]
    assert box.origin_sha("changes") == sha  # nothing was pushed
    assert TOKEN not in run.stdout.replace(f"::add-mask::{TOKEN}", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "found"),
    [  # a line `++ <token>` shows in the diff as `+++ <token>`, a header to a hand-made parser
        (f"printf 'fixed\\n++ {TOKEN}\\n' > app.py", "github_token (plain) in app.py"),
        (f"printf 'fixed\\n' > app.py && touch 'dump-{TOKEN}.txt'", "in file names"),
        (
            f"printf 'fixed\\n# {codecs.encode(TOKEN, 'rot13')}\\n' > app.py",
            "github_token (rot13) in app.py",
        ),
    ],
    ids=["plus-plus-line", "file-name", "rot13"],
)
def test_the_action_refuses_to_push_what_a_hand_made_diff_parser_missed(
    tmp_path: Path, github_server: FakeGitHub, command: str, found: str
) -> None:
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {"app.py": "broken\n", "check.py": CHECK_PY}, "initial")
    sha = box.commit("changes", {"app.py": "still broken\n"}, "change")
    ws = box.workspace("changes", merge_into="main")
    inputs = {"check-command": "python check.py", "fix-commands": command}
    run = box.run(box.env("pull_request", box.pull_request_event("changes", sha), ws, inputs))
    assert run.outputs["outcome"] == "escalated", run.stdout + run.stderr
    assert found in run.outputs["reason"]
    assert box.origin_sha("changes") == sha  # nothing was pushed


@pytest.mark.parametrize(
    "send",
    [
        lambda gh: gh.comment(1, f"done: {TOKEN}"),
        lambda gh: gh.upsert_status_comment(1, f"<!-- fixbot -->\n{ENCODED}"),
        lambda gh: gh.upsert_issue("main", "fixbot", f"log says {codecs.encode(TOKEN, 'rot13')}"),
        lambda gh: gh.open_pull_request(None, f"fix {TOKEN[::-1]}", "body"),
    ],
    ids=["comment", "status-comment", "issue", "pull-request-title"],
)
def test_every_text_sent_to_github_is_scanned_first(send: Any) -> None:
    gh = GitHub(repo=None)  # type: ignore[arg-type]  # a request would fail: none is made
    gh.secrets = {"github_token": TOKEN}
    with pytest.raises(LeakRefused) as caught:
        send(gh)
    assert "github_token" in str(caught.value) and TOKEN not in str(caught.value)


def test_a_commit_message_carrying_the_token_is_never_pushed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("b\n")
    git(repo, "commit", "-qam", f"fixbot: fix\n\ndebug {ENCODED}")
    with pytest.raises(LeakRefused, match=r"github_token \(base64\) in commit messages"):
        checkout.refuse_messages(repo, base, "HEAD", {"github_token": TOKEN}, "pushing")
    checkout.refuse_messages(repo, base, "HEAD", {"OTHER": "x" * 20}, "pushing")
