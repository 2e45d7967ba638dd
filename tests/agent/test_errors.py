"""The litellm exception table, the retry policy and the lazy import."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest
from tenacity import RetryError

from fixbot.agent import errors


def _litellm_exception_names() -> set[str]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm.exceptions as module

    return {
        name
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseException)
        and obj.__module__.startswith("litellm")
    }


def test_every_litellm_exception_is_in_the_table() -> None:
    unknown = _litellm_exception_names() - set(errors.TABLE)
    assert not unknown, (
        f"litellm added exception classes: add them to fixbot.agent.errors.TABLE: {unknown}"
    )


def test_table_has_no_stale_entries() -> None:
    assert set(errors.TABLE) <= _litellm_exception_names()


def test_rules_of_key_classes() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    def make(cls: type, **kw: object) -> BaseException:
        return cls(message="m", llm_provider="openai", model="x", **kw)  # type: ignore[no-any-return]

    assert errors.is_retryable(make(litellm.RateLimitError))
    assert errors.is_retryable(make(litellm.Timeout))
    assert errors.is_retryable(make(litellm.ServiceUnavailableError))
    ctx = errors.rule_for(make(litellm.ContextWindowExceededError))
    assert ctx is not None and ctx.disposition is errors.Disposition.SHRINK
    auth = errors.rule_for(make(litellm.AuthenticationError))
    assert auth == errors.Rule(errors.Disposition.PERMANENT, False)
    assert errors.rule_for(ValueError("not litellm")) is None


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "12"}, 12.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    now = 1445412480.0  # 2015-10-21 07:28:00 GMT
    assert errors.parse_retry_after(headers, now) == expected


def test_policy_stops_after_its_attempts_and_reraises() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    sleeps: list[float] = []
    calls: list[int] = []

    def boom() -> None:
        calls.append(1)
        raise litellm.APIConnectionError(message="down", llm_provider="openai", model="x")

    with pytest.raises(litellm.APIConnectionError):
        errors.policy(sleeps.append, attempts=3)(boom)
    assert len(calls) == 3 and len(sleeps) == 2 and sleeps[0] < sleeps[1]
    assert not issubclass(litellm.APIConnectionError, RetryError)


@pytest.mark.slow
def test_importing_the_agent_does_not_import_litellm() -> None:
    code = "import sys, fixbot.agent, fixbot.security.redact; assert 'litellm' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
