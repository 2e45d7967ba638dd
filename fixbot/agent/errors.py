"""How each litellm exception is handled, and the tenacity retry policy that reads the table.

Every exception class of `litellm.exceptions` (litellm 1.106; see
https://docs.litellm.ai/docs/exception_mapping) is listed in `TABLE` with a `Rule`:
- RETRY: rate limits (honouring `Retry-After`), connection errors, timeouts, 5xx; backed off
  exponentially, then the next fallback model is tried;
- SHRINK: the prompt is too long for the model: the caller rebuilds it smaller;
- PERMANENT: retrying the same request cannot help. `fallback` says whether another model may.
Authentication errors stop the run at once with the environment variable the provider expects.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, NamedTuple

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from fixbot.core.secrets import key_variable


class Disposition(StrEnum):
    """What to do with a failed model call."""

    RETRY = "retry"
    SHRINK = "shrink"
    PERMANENT = "permanent"


class Rule(NamedTuple):
    """The handling of one exception class; `fallback` allows trying the next model."""

    disposition: Disposition
    fallback: bool


R, S, P = Disposition.RETRY, Disposition.SHRINK, Disposition.PERMANENT
TABLE: dict[str, Rule] = {
    "APIConnectionError": Rule(R, True),
    "APIError": Rule(R, True),
    "APIResponseValidationError": Rule(R, True),
    "AuthenticationError": Rule(P, False),
    "BadGatewayError": Rule(R, True),
    "BadRequestError": Rule(P, False),
    "BlockedPiiEntityError": Rule(P, False),
    "BudgetExceededError": Rule(P, False),
    "ContentPolicyViolationError": Rule(P, True),
    "ContextWindowExceededError": Rule(S, False),
    "GuardrailRaisedException": Rule(P, False),
    "ImageFetchError": Rule(P, False),
    "InternalServerError": Rule(R, True),
    "InvalidRequestError": Rule(P, False),
    "JSONSchemaValidationError": Rule(R, True),
    "LiteLLMUnknownProvider": Rule(P, False),
    "MidStreamFallbackError": Rule(R, True),
    "MockException": Rule(P, False),
    "ModelNotMappedError": Rule(P, True),
    "ModifyResponseException": Rule(P, False),
    "NotFoundError": Rule(P, True),
    "OpenAIError": Rule(P, True),
    "PaymentRequiredError": Rule(P, True),
    "PermissionDeniedError": Rule(P, True),
    "RateLimitError": Rule(R, True),
    "RejectedRequestError": Rule(P, False),
    "SensitiveDataRouteException": Rule(P, False),
    "ServiceUnavailableError": Rule(R, True),
    "Timeout": Rule(R, True),
    "UnprocessableEntityError": Rule(P, False),
    "UnsupportedParamsError": Rule(P, False),
    "VectorStoreSearchError": Rule(P, False),
}

MAX_WAIT_S = 60.0


def rule_for(exc: BaseException) -> Rule | None:
    """The rule of the most specific litellm exception class of `exc`, or None if not litellm's."""
    for klass in type(exc).__mro__:
        if klass.__module__.startswith("litellm") and klass.__name__ in TABLE:
            return TABLE[klass.__name__]
    return None


def is_retryable(exc: BaseException) -> bool:
    """True when the table says RETRY for `exc` and fixbot did not mark it futile (a request
    that timed out while the model was writing, which the same request would repeat:
    `fixbot.agent.llm`)."""
    rule = rule_for(exc)
    if getattr(exc, "fixbot_futile", False):
        return False
    return rule is not None and rule.disposition is Disposition.RETRY


def parse_retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date).

    Source: https://www.rfc-editor.org/rfc/rfc9110#field.retry-after. None when absent/invalid.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        value = lowered.get("retry-after")
        if value is None:
            return None
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(str(value))
        return None if parsed is None else max(0.0, email.utils.mktime_tz(parsed) - now)


def retry_after(exc: BaseException) -> float | None:
    """The Retry-After of a provider error response, in seconds, or None.

    litellm keeps the provider's response headers in `litellm_response_headers`; `response`
    holds a synthetic response without them (observed with litellm 1.106).
    """
    response = getattr(exc, "response", None)
    headers = (
        getattr(exc, "litellm_response_headers", None)
        or getattr(response, "headers", None)
        or getattr(exc, "headers", None)
        or {}
    )
    return parse_retry_after(dict(headers), time.time())


def wait_seconds(state: RetryCallState) -> float:
    """Retry-After when the provider sent one, else 1, 2, 4 ... s with jitter, capped at 60 s."""
    exc = state.outcome.exception() if state.outcome else None
    hinted = retry_after(exc) if exc else None
    if hinted is not None:
        return min(hinted, MAX_WAIT_S)
    return min(2.0 ** (state.attempt_number - 1) + random.uniform(0, 0.5), MAX_WAIT_S)


# Causes below litellm (Python, httpx, openai), most specific first: litellm reports a refused
# connection as `InternalServerError` with status 500 ("Connection error."), so the chain of
# causes tells the truth where the class does not (observed with litellm 1.106).
CAUSES = {
    "ConnectionRefusedError": "connection refused",
    "gaierror": "host not found",
    "RemoteProtocolError": "connection closed mid-reply",
    "ConnectError": "could not connect",
    "APIConnectionError": "could not connect",
    "ReadTimeout": "timed out",
    "APITimeoutError": "timed out",
    "JSONDecodeError": "malformed reply",
    "IncompleteReply": "reply cut short",
}
REASONS = {
    "RateLimitError": "rate limited",
    "Timeout": "timed out",
    "APIConnectionError": "could not connect",
    "ServiceUnavailableError": "service unavailable",
    "InternalServerError": "server error",
    "BadGatewayError": "bad gateway",
    "APIResponseValidationError": "malformed reply",
    "NotFoundError": "model not found",
    "BadRequestError": "bad request",
    "AuthenticationError": "credentials rejected",
    "PermissionDeniedError": "permission denied",
    "ContentPolicyViolationError": "content policy",
}


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in chain and len(chain) < 10:
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def reason(exc: BaseException) -> str:
    """A short, true reason for a failed call: `429 rate limited`, `timed out`, `500 server error`,
    `connection refused`.

    The cause chain is read first (see `CAUSES`); else the litellm class names it, with the HTTP
    status from litellm's `status_code` attribute.
    """
    for link in reversed(_causes(exc)):
        for klass in type(link).__mro__:
            if klass.__name__ in CAUSES:
                return CAUSES[klass.__name__]
    status = getattr(exc, "status_code", None)
    name = next(
        (REASONS[k.__name__] for k in type(exc).__mro__ if k.__name__ in REASONS),
        type(exc).__name__,
    )
    if isinstance(status, int) and name != "timed out":
        return f"{status} {name}"
    return name


def retry_notice(model: str, state: RetryCallState) -> str:
    """The line shown before a backoff wait: `openai/x: retrying in 4 s (429 rate limited)`."""
    exc = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    why = reason(exc) if exc else "failed"
    return f"{model}: retrying in {wait:.0f} s ({why})"


def policy(
    sleep: Callable[[float], Any] = time.sleep,
    attempts: int = 4,
    notify: Callable[[RetryCallState], None] | None = None,
) -> Retrying:
    """The tenacity policy for one model: retry RETRY errors `attempts` times, then re-raise.

    `notify` is tenacity's `before_sleep` hook: called before each backoff wait, so the user sees
    the retry as it happens (see `retry_notice`).
    """
    return Retrying(
        retry=retry_if_exception(is_retryable),
        wait=wait_seconds,
        stop=stop_after_attempt(attempts),
        sleep=sleep,
        before_sleep=notify,
        reraise=True,
    )


def auth_message(model: str, exc: BaseException) -> str:
    """The message for an authentication failure, naming the variable to set."""
    variable = key_variable(model)
    return (
        f"the model provider rejected the credentials for {model} ({type(exc).__name__}): "
        f"set {variable} to a valid key (as a repository secret in GitHub Actions) and run again"
    )
