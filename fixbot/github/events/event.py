"""The event that started the workflow, parsed from `GITHUB_EVENT_PATH` into an `Event`.

The common fields (repository, the branch of `ref`, `after` or `GITHUB_SHA`) are read here;
each event's own fields by its kind in the registry (`fixbot.github.events.kinds`). An event no
kind handles keeps the common fields alone (`intent.decide` refuses it). The data
(`Event`, `PullRequest`, ...) is in `fixbot.github.events.data`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fixbot.core.errors import ConfigError
from fixbot.core.github_env import GitHubEnv
from fixbot.github.events.data import Event, branch_of
from fixbot.github.events.kinds import registry


def parse_event(name: str, payload: Mapping[str, Any], github: GitHubEnv) -> Event:
    """Build the `Event` of workflow event `name` from its webhook `payload`.

    `github` (the runner's variables, typed) supplies `GITHUB_REPOSITORY`, `GITHUB_REF` and
    `GITHUB_SHA` where the payload has none (schedule). Raises `ConfigError` when the payload
    lacks what the event must carry.
    """
    try:
        event = _parse(name, payload, github)
        # `model_copy` does not validate: check every field the payload filled in once more
        return Event.model_validate(dict(event))
    except KeyError as exc:
        raise ConfigError(
            [f"the {name} event payload lacks {_short(exc)}; is GITHUB_EVENT_PATH right?"]
        ) from exc
    except (TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise ConfigError(
            [
                f"the {name} event payload is not shaped as GitHub sends it "
                f"({type(exc).__name__}: {_short(exc)}); is GITHUB_EVENT_PATH right?"
            ]
        ) from exc


def _short(exc: BaseException, limit: int = 300) -> str:
    """`exc`'s message cut to `limit` characters (a hostile payload may be large)."""
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "..."


def _parse(name: str, payload: Mapping[str, Any], github: GitHubEnv) -> Event:
    repo_raw = payload.get("repository") or {}
    repository = str(repo_raw.get("full_name") or github.repository)
    if not repository:
        raise ConfigError(["no repository in the event payload or GITHUB_REPOSITORY"])
    if len(repository.split("/")) != 2 or not all(repository.split("/")):
        raise ValueError(f"the repository {repository[:200]!r} is not `owner/name`")
    base = Event(
        name=name,
        action=payload.get("action"),
        repository=repository,
        default_branch=repo_raw.get("default_branch"),
        branch=branch_of(payload.get("ref") or github.ref),
        sha=payload.get("after") or github.sha or None,
        head_repo=repository,
    )
    kind = registry.find(name)
    return kind.parse(base, payload) if kind is not None else base


def load_event(github: GitHubEnv) -> Event:
    """Read `GITHUB_EVENT_NAME` and the JSON at `GITHUB_EVENT_PATH`; `ConfigError` if absent."""
    name, path = github.event_name, github.event_path
    if not name or not path:
        raise ConfigError(
            [
                "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: run `fixbot action` "
                "in GitHub Actions, or `fixbot run` locally"
            ]
        )
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad UTF-8 or JSON
        raise ConfigError(
            [f"GITHUB_EVENT_PATH {path}: cannot read the event payload ({_short(exc)})"]
        ) from exc
    if not isinstance(payload, dict):
        raise ConfigError([f"GITHUB_EVENT_PATH {path}: the payload is not a JSON object"])
    return parse_event(name, payload, github)
