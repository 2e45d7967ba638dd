"""Property tests over the event payload parsers: a broken or hostile payload never crashes fixbot.

Whatever sits at `GITHUB_EVENT_PATH` (any JSON value, truncated or invalid bytes, a real payload
from `tests/data/events` with fields removed or of the wrong type, a 1 MB comment, branch names
full of shell metacharacters) `load_event` gives either an `Event` (which `decide` turns into an
`Intent`) or fixbot's own `ConfigError` with a bounded message; never another exception.
"""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fixbot.core.errors import ConfigError
from fixbot.core.github_env import GitHubEnv
from fixbot.github.events.commands.base import HINT_LIMIT
from fixbot.github.events.commands.comment import COMMENT_LIMIT
from fixbot.github.events.data import Event
from fixbot.github.events.event import load_event, parse_event
from fixbot.github.events.intent import Intent, IntentKind, decide
from fixbot.github.events.kinds import registry
from tests.fakes.action_env import load_event as vendored

EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RAW = {"GITHUB_REPOSITORY": "Codertocat/Hello-World", "GITHUB_REF": "refs/heads/main"}
ENV = GitHubEnv.read(RAW)
# Vendored payload -> the GITHUB_EVENT_NAME it arrives with.
PAYLOADS = {
    "pull_request.opened": "pull_request",
    "pull_request.synchronize": "pull_request",
    "pull_request.closed": "pull_request",
    "pull_request_review.submitted": "pull_request_review",
    "pull_request_review_comment.created": "pull_request_review_comment",
    "issue_comment.created": "issue_comment",
    "push": "push",
    "workflow_dispatch": "workflow_dispatch",
    "workflow_run.completed": "workflow_run",
}
# The keys fixbot reads, so generated objects reach past the first lookup.
KEYS = [
    "action", "after", "ref", "repository", "full_name", "default_branch", "pull_request",
    "head", "base", "repo", "sha", "number", "state", "labels", "name", "user", "login",
    "type", "draft", "review", "body", "comment", "issue", "id", "workflow_run",
    "head_branch", "head_sha", "head_repository", "pull_requests", "conclusion",
    "run_attempt", "actor", "triggering_actor", "url",
]  # fmt: skip
MESSAGE_LIMIT = 2_000  # characters: a refusal or error must not echo a hostile payload back

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["Codertocat/Hello-World", "refs/heads/main", "open", "created", "Bot"])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=30,
)
event_names = st.sampled_from([*registry.names(), "release", ""])


@pytest.fixture
def event_file(tmp_path: Path) -> Iterator[Path]:
    """One file reused by every example (each writes it whole before reading)."""
    yield tmp_path / "event.json"


def load(path: Path, name: str, data: bytes) -> Event | ConfigError:
    """`load_event` on `data` written at `path`: the event, or the `ConfigError` it raised."""
    path.write_bytes(data)
    try:
        return load_event(
            GitHubEnv.read(
                {**RAW, "GITHUB_EVENT_NAME": name or "push", "GITHUB_EVENT_PATH": str(path)}
            )
        )
    except ConfigError as exc:
        return exc


def assert_handled(result: Event | ConfigError) -> Intent | None:
    """A parsed event decides an intent; an error names its problems in bounded text."""
    if isinstance(result, ConfigError):
        assert result.problems and all(0 < len(p) <= MESSAGE_LIMIT for p in result.problems)
        for problem in result.problems:
            problem.encode("utf-8")
        return None
    assert isinstance(result, Event)
    assert result.fork in (True, False)
    intent = decide(result, allow_forks=False, bots=("renovate[bot]",))
    assert isinstance(intent, Intent)
    if intent.kind is IntentKind.REFUSE:
        assert intent.reason
    return intent


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) inside a JSON value, the value itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_of(item, (*prefix, index))
    return found


def mutate(payload: Any, path: tuple[Any, ...], new: Any, delete: bool) -> Any:
    """`payload` with the value at `path` deleted (when its parent is an object) or replaced."""
    if not path:
        return new
    parent = payload
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return payload


def on_pull_request(payload: dict[str, Any]) -> dict[str, Any]:
    """An issue_comment example made a pull request's `/fixbot retry` comment (as the sandbox
    does), so mutations reach the command path; other payloads are returned unchanged."""
    if "issue" in payload and "comment" in payload:
        payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
        payload["comment"]["body"] = "/fixbot retry"
    return payload


@given(name=event_names, value=json_values)
@EXAMPLES
def test_any_json_value_as_the_event_file_is_parsed_or_refused_clearly(
    event_file: Path, name: str, value: Any
) -> None:
    assert_handled(load(event_file, name, json.dumps(value).encode()))


@given(
    source=st.sampled_from(sorted(PAYLOADS)),
    cut=st.floats(min_value=0, max_value=1, exclude_max=True),
    noise=st.binary(max_size=8),
)
@EXAMPLES
def test_truncated_or_corrupted_payload_bytes_give_a_config_error(
    event_file: Path, source: str, cut: float, noise: bytes
) -> None:
    data = json.dumps(vendored(source)).encode()
    at = int(len(data) * cut)
    corrupted = data[:at] + noise
    with contextlib.suppress(ValueError):  # the noise may close a short prefix (`` + `{}`)
        assume(not isinstance(json.loads(corrupted), dict))
    result = load(event_file, PAYLOADS[source], corrupted)
    assert isinstance(result, ConfigError)  # a prefix of an object is never a whole object
    # ... but the noise alone after an empty prefix may be JSON (`0`): then not an object
    assert any(
        why in result.problems[0]
        for why in ("cannot read the event payload", "the payload is not a JSON object")
    )
    assert_handled(result)


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe{}",  # not UTF-8
        b'{"a": ' + b"9" * 5_000 + b"}",  # an integer past Python's 4300-digit limit
        b"[" * 100_000 + b"]" * 100_000,  # nesting past the parser's recursion limit
        b"",
        b"null",
        b"[]",
        b'"a string"',
    ],
    ids=["not-utf8", "huge-int", "deep-nesting", "empty", "null", "list", "string"],
)
def test_invalid_event_files_give_a_config_error(event_file: Path, data: bytes) -> None:
    result = load(event_file, "push", data)
    assert isinstance(result, ConfigError)
    assert_handled(result)


@given(
    source=st.sampled_from(sorted(PAYLOADS)),
    data=st.data(),
)
@EXAMPLES
def test_real_payloads_with_fields_removed_or_of_the_wrong_type_are_handled(
    event_file: Path, source: str, data: st.DataObject
) -> None:
    payload = on_pull_request(copy.deepcopy(vendored(source)))
    for _ in range(data.draw(st.integers(1, 4), label="changes")):
        path = data.draw(st.sampled_from(paths_of(payload)), label="path")
        new = data.draw(json_values, label="new value")
        payload = mutate(payload, path, new, data.draw(st.booleans(), label="delete"))
    assert_handled(load(event_file, PAYLOADS[source], json.dumps(payload).encode()))


@pytest.mark.parametrize("field", ["number", "id"])
@pytest.mark.parametrize("value", ["1e400", "-1e400", "NaN", '"seven"', "[]"])
def test_non_numeric_numbers_give_a_config_error(event_file: Path, field: str, value: str) -> None:
    """Python's json reads `Infinity`/`NaN` (and 1e400 as infinity); `int()` of them raises
    OverflowError or ValueError, which used to escape the parser."""
    payload = on_pull_request(vendored("issue_comment.created"))
    raw = json.dumps(payload).replace(
        f'"{field}": {payload["issue" if field == "number" else "comment"][field]}',
        f'"{field}": {value}',
        1,
    )
    result = load(event_file, "issue_comment", raw.encode())
    assert isinstance(result, ConfigError), result
    assert_handled(result)


MEGABYTE = 1_000_000
FILLERS = ["x", "a b\n", "> /fixbot retry quoted\n", "    /fixbot retry indented\n", " \t", "é"]


@pytest.mark.parametrize("filler", FILLERS)
@pytest.mark.parametrize("where", ["start", "middle", "end", "beyond", "none", "long-hint"])
def test_a_one_megabyte_comment_is_parsed_in_bounded_time_and_not_echoed(
    event_file: Path, filler: str, where: str
) -> None:
    """Every filler is text no command hides in (quoted, indented code), so the command found
    is the one placed at `where`; only the first `COMMENT_LIMIT` characters (GitHub's limit)
    are read, so a command after them (`beyond`) is not."""
    padding = filler * (MEGABYTE // len(filler))
    half = COMMENT_LIMIT // 2
    body = {
        "start": "/fixbot retry use the new API\n" + padding,
        "middle": padding[:half] + "\n\n/fixbot status\n" + padding[half:],
        "end": padding[: COMMENT_LIMIT - 20] + "\n\n/fixbot help\n" + padding,
        "beyond": padding + "\n\n/fixbot help",
        "none": padding,
        "long-hint": "/fixbot retry " + "h" * MEGABYTE,
    }[where]
    payload = on_pull_request(vendored("issue_comment.created"))
    payload["comment"]["body"] = body
    result = load(event_file, "issue_comment", json.dumps(payload).encode())
    intent = assert_handled(result)
    assert intent is not None
    assert len(intent.model_dump_json()) < MESSAGE_LIMIT + HINT_LIMIT
    if where == "start":
        assert intent.command is not None and intent.command.kind == "retry"
        assert intent.command.hint == "use the new API"
    if where == "long-hint":
        assert intent.command is not None and len(intent.command.hint or "") == HINT_LIMIT
    if where in ("none", "beyond"):
        assert intent.kind is IntentKind.REFUSE and intent.quiet
    if where in ("middle", "end"):
        expected = "status" if where == "middle" else "help"
        assert intent.command is not None and intent.command.kind == expected


@pytest.mark.slow  # a wall-clock bound, far from what a quadratic scan of 1 MB would take
@pytest.mark.parametrize("filler", FILLERS)
def test_a_one_megabyte_comment_without_a_command_is_read_in_bounded_time(
    event_file: Path, filler: str
) -> None:
    payload = on_pull_request(vendored("issue_comment.created"))
    payload["comment"]["body"] = filler * (MEGABYTE // len(filler))
    started = time.monotonic()
    intent = assert_handled(load(event_file, "issue_comment", json.dumps(payload).encode()))
    assert time.monotonic() - started < 60  # linear: about 0.1 s on an idle core
    assert intent is not None and intent.kind is IntentKind.REFUSE


PIECES = ["a;touch${IFS}x", "$(id)", "`id`", "'", '"', "|", "&&", ">", "<", "$HOME", "!", "#"]


def git_accepts(name: str) -> bool:
    """`git check-ref-format --branch` accepts `name`."""
    done = subprocess.run(
        ["git", "check-ref-format", "--branch", name], capture_output=True, check=False
    )
    return done.returncode == 0


branch_names = (
    st.lists(
        st.sampled_from(PIECES) | st.text("abc/-_.", min_size=1, max_size=4), min_size=1, max_size=5
    )
    .map("".join)
    .filter(git_accepts)
)


@given(branch=branch_names)
@settings(max_examples=60, deadline=None)
def test_branch_names_with_shell_metacharacters_are_kept_as_data(branch: str) -> None:
    pushed = vendored("push")
    pushed["ref"] = f"refs/heads/{branch}"
    assert parse_event("push", pushed, ENV).branch == branch
    raw = vendored("pull_request.opened")
    raw["pull_request"]["head"]["ref"] = branch
    event = parse_event("pull_request", raw, ENV)
    assert event.branch == branch and event.pull_request is not None
    assert event.pull_request.head_ref == branch
    assert decide(event, allow_forks=False).kind is IntentKind.FIX


@pytest.mark.parametrize(
    "name", ["pull_request", "pull_request_review", "pull_request_review_comment"]
)
def test_a_pull_request_from_a_deleted_fork_is_refused_clearly(name: str) -> None:
    source = next(k for k, v in PAYLOADS.items() if v == name)
    raw = vendored(source)
    raw["pull_request"]["head"]["repo"] = None
    if name == "pull_request_review":
        raw["review"]["state"] = "changes_requested"
    event = parse_event(name, raw, ENV)
    assert event.head_deleted and event.pull_request is not None
    intent = decide(event, allow_forks=True)
    assert intent.kind is IntentKind.REFUSE
    assert "was deleted" in intent.reason and f"#{event.pull_request.number}" in intent.reason


@pytest.mark.parametrize(
    ("source", "change"),
    [
        ("workflow_run.completed", {"id": "not-a-number"}),
        ("workflow_run.completed", {"head_branch": 5}),
        ("workflow_run.completed", {"run_attempt": [1]}),
        ("push", {"full_name": "no-owner"}),
        ("push", {"full_name": "a/b/c"}),
    ],
)
def test_fields_copied_from_the_payload_are_type_checked(
    source: str, change: dict[str, Any]
) -> None:
    """Values set with `model_copy` (not validated by pydantic) are checked once more, so a
    run id that is no number, or a repository that is not `owner/name`, stops at the parser
    instead of in a REST call or an `owner, name = ...split("/")` later."""
    raw = vendored(source)
    (raw["workflow_run"] if "workflow_run" in raw else raw["repository"]).update(change)
    with pytest.raises(ConfigError, match="event payload"):
        parse_event(PAYLOADS[source], raw, ENV)


@given(
    good=st.text("abc/-_.", min_size=1, max_size=8),
    bad=st.sampled_from(["\x00", "\n", "\x1b[31m", "\x7f", "\ud800"]),
    where=st.sampled_from(["push ref", "head ref", "head sha", "base ref"]),
)
@EXAMPLES
def test_refs_that_cannot_reach_git_are_a_config_error(
    event_file: Path, good: str, bad: str, where: str
) -> None:
    """A NUL makes `subprocess` raise ValueError, a lone surrogate UnicodeEncodeError: such a
    ref (which GitHub never sends) stops at the parser as a `ConfigError`."""
    name = "push" if where == "push ref" else "pull_request"
    payload = vendored("push" if name == "push" else "pull_request.opened")
    value = good + bad + good
    if where == "push ref":
        payload["ref"] = f"refs/heads/{value}"
    else:
        side, key = where.split(" ")
        payload["pull_request"][side][key] = value
    data = json.dumps(payload).encode()  # ASCII, with \u escapes: valid JSON
    result = load(event_file, name, data)
    assert isinstance(result, ConfigError), result
    assert_handled(result)
