"""The secret scan before any push: every spelling of a known secret, token shapes, no values
in the message (pure), and the Action refusing a push that carries one (end to end)."""

from __future__ import annotations

import base64
import textwrap
from pathlib import Path
from urllib.parse import quote

import pytest

from fixbot.security.leakscan import LeakRefused, forms, known_secrets, refuse_if_leaking, scan
from tests.fakes.action_env import TOKEN, ActionSandbox
from tests.fakes.github_server import FakeGitHub

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
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -0,0 +1 @@\n{body}"


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
    assert scan(diff_adding_lines("a.txt", split_by_prose), {"DEPLOY_KEY": LONG}) == []
    two_files = diff_adding_lines("a.txt", ["x", LONG[:half]]) + diff_adding_lines(
        "b.txt", [LONG[half:], "y"]
    )
    assert scan(two_files, {"DEPLOY_KEY": LONG}) == []
    one_line = scan(diff_adding_lines("c.txt", [LONG, "next"]), {"DEPLOY_KEY": LONG})
    assert [leak.describe() for leak in one_line] == ["DEPLOY_KEY (plain) in c.txt"]


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
