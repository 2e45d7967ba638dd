"""The litellm adapter: one `complete` call with tools and fallback models (the reply, its figures
and its cost are read by `fixbot.agent.reply`).

litellm is imported lazily (it takes ~2.5 s) with `LITELLM_LOCAL_MODEL_COST_MAP=True` so it never
downloads its price map. litellm's own retries are off (`num_retries=0`, `max_retries=0`): the
tenacity policy of `fixbot.agent.errors` is the only one. Every message is redacted before it
leaves the process.

Every request is bounded: `max_tokens` caps its output, and `within` its wall time. litellm's
`timeout` alone does not: the openai client (and httpx under it) applies it to each socket read,
so a server that keeps sending a byte now and then (or a reply of thousands of tokens arriving
slowly) holds the call open far longer (observed: 460 s with `timeout=180`).

Every request streams (`stream_options={"include_usage": True}`): `fixbot.agent.stream` puts the
reply together and stops it once it has stopped being an answer; each call's figures (tokens in
and out, seconds, first token, how it ended) are kept as a `ModelCall`, a timed-out one with the
speed it had reached.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fixbot.agent import errors, streamed
from fixbot.agent.reply import Message, Reply, figures, reply_of
from fixbot.agent.stream import Assembly
from fixbot.agent.waiting import quiet, within
from fixbot.core.budget import Deadline
from fixbot.core.calls import CallEnd, CallPurpose, ModelCall
from fixbot.core.errors import ConfigError
from fixbot.core.models import Heartbeat
from fixbot.core.secrets import DEFAULT_BASES, provider_of
from fixbot.core.settings import Settings
from fixbot.security.redact import Redactor

REQUEST_TIMEOUT_S = 180.0
DEFAULT_OUTPUT_TOKENS = 4096


class ModelError(RuntimeError):
    """A model call failed for good; the message says what the user should do."""


class ContextTooLong(ModelError):
    """The prompt is longer than the model's context window: rebuild it smaller."""


class ModelConfigError(ConfigError):
    """No model can be used as configured (a rejected key, an unreachable host): the run ends
    with `error` (exit 2), not an escalation, and no further model call is made. Not a
    `ModelError`, so no fixer, reviewer or analyst swallows it."""

    def __init__(self, message: str) -> None:
        super().__init__([message])


CONNECTION_ERRORS = ("APIConnectionError",)


def unreachable(exc: BaseException) -> bool:
    """True when `exc` says the provider's host could not be reached at all (litellm maps the
    openai client's connection errors to `InternalServerError` "Connection error.")."""
    if type(exc).__name__ in CONNECTION_ERRORS or "Connection error" in str(exc):
        return True
    return errors.reason(exc) in ("connection refused", "host not found", "could not connect")


def host_of(model: str, api_base: str | None) -> str:
    """The host a model's requests go to: `api_base`'s, else litellm's default for the provider."""
    from urllib.parse import urlsplit

    base = api_base
    if not base:
        try:
            _, provider, _, base = litellm_module().get_llm_provider(model=model)
        except Exception:  # litellm raises bare Exception for unmapped providers
            provider, base = model.split("/", 1)[0], None
        base = base or DEFAULT_BASES.get(provider)
    return urlsplit(base).netloc or str(base) if base else f"the {model.split('/')[0]} API"


def litellm_module() -> Any:
    """Import litellm without a network download of its price map, with no logging of streamed
    chunks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    # litellm hands every streamed chunk to its logging callbacks in a thread pool (fixbot
    # registers none): most of its cost per chunk (bench/README.md, "Streaming").
    litellm.disable_streaming_logging = True
    return litellm


WARMING: list[threading.Thread] = []  # the one background import of this process


def warm_up() -> threading.Thread | None:
    """Start importing litellm in a background thread, once a process, and return it (None:
    imported or started already). The import takes seconds (2.5 s idle, 9-23 s on a busy
    runner); started when a failure the model will be asked about is known, it runs while the
    run gathers the evidence (the coverage of the failing tests, the fix commands), and the
    first model call waits only for what is left (Python's import lock makes it wait for the
    thread's import instead of starting another). A daemon thread: a run that ends first does
    not wait for it."""
    if WARMING or "litellm" in sys.modules:
        return None
    thread = threading.Thread(target=_import_quietly, name="fixbot-litellm-import", daemon=True)
    WARMING.append(thread)
    thread.start()
    return thread


def _import_quietly() -> None:
    # a broken installation fails again, with its message, at the first model call
    with contextlib.suppress(Exception):
        litellm_module()


def models_for(settings: Settings, attempt: int) -> list[str]:
    """The models to try in order: the escalation model from attempt 2 on, then the fallbacks."""
    first = (
        settings.escalation_model if attempt >= 2 and settings.escalation_model else settings.model
    )
    ordered = [m for m in [first, *settings.fallback_models] if m]
    return list(dict.fromkeys(ordered))


def supports_tools(model: str) -> bool:
    """litellm's capability data for function calling (False for unknown models)."""
    try:
        return bool(litellm_module().supports_function_calling(model=model))
    except Exception as exc:  # litellm raises bare Exception for unmapped providers
        if "not mapped" in str(exc).lower() or "provider" in str(exc).lower():
            return False
        raise


def output_cap(model: str, setting: int | None) -> int:
    """Output tokens per request for `model`: `setting`, else litellm's `max_output_tokens`
    for the model (litellm's model data), else `DEFAULT_OUTPUT_TOKENS`."""
    if setting:
        return setting
    litellm = litellm_module()
    try:
        info = litellm.get_model_info(model)
    except litellm.exceptions.ModelNotMappedError:
        return DEFAULT_OUTPUT_TOKENS
    value = info.get("max_output_tokens") or info.get("max_tokens")
    return int(value) if value else DEFAULT_OUTPUT_TOKENS


@dataclass
class LLM:
    """Talks to the models in order; `notes` collects fallbacks and unknown prices.

    `max_output_tokens` (None: `output_cap`'s default) caps each reply; `request_timeout`
    (seconds) bounds each request from sending to the whole reply, and `deadline` (the run's
    wall-time budget, `fixbot.core.budget.Deadline`) shortens it; `notify` receives one line
    per retry wait and fallback, as they happen. Every call streams (`fixbot.agent.stream`):
    a reply that stops being an answer is cut short; `calls` gets each call's figures, and
    `observe` sees each (with its cap); `size` may lower a call's cap (a model measured slow).
    """

    models: list[str]
    redactor: Redactor
    api_base: str | None = None
    temperature: float = 0.0
    sleep: Callable[[float], Any] = time.sleep
    tries_per_model: int = 4
    notes: list[str] = field(default_factory=list)
    active: int = 0  # index of the model that answered last: later calls start there
    max_output_tokens: int | None = None
    request_timeout: float = REQUEST_TIMEOUT_S
    notify: Callable[[str], None] = quiet
    deadline: Deadline = field(kw_only=True)
    calls: list[ModelCall] = field(default_factory=list)  # every call's figures, in order
    observe: Callable[[ModelCall, int], None] = lambda call, cap: None
    purpose: CallPurpose = CallPurpose.FIX  # what the calls are for, stamped on each
    size: Callable[[str, int], int] = lambda model, cap: cap

    @property
    def current(self) -> str:
        """The model in use (the first one until a fallback took over)."""
        return self.models[self.active]

    def complete(
        self, messages: Sequence[Message], tools: list[dict[str, Any]] | None = None
    ) -> Reply:
        """One completion; raises `ContextTooLong`, or `ModelError` when every model failed."""
        clean = [self._redact(m) for m in messages]
        last: BaseException | None = None
        for index in range(self.active, len(self.models)):
            model = self.models[index]
            try:
                reply = self._with_policy(model, clean, tools)
                self.active = index
                return reply
            except Exception as exc:
                self._raise_unless_fallback(model, exc)
                last = exc
                self.notes.append(
                    f"{model} unavailable ({type(exc).__name__}: {errors.reason(exc)}); "
                    "trying the next model"
                )
                if index + 1 < len(self.models):
                    self.notify(
                        f"{model} unavailable ({errors.reason(exc)}): "
                        f"falling back to {self.models[index + 1]}"
                    )
        if last is not None and unreachable(last):
            hosts = ", ".join(dict.fromkeys(host_of(m, self.api_base) for m in self.models))
            raise ModelConfigError(
                f"could not reach the model provider's host ({hosts}) for "
                f"{', '.join(self.models)} ({errors.reason(last)}): is this machine online, or "
                "behind a proxy (HTTPS_PROXY)? Check --api-base, or add --fallback-models"
            )
        why = errors.reason(last) if last else "no model"
        raise ModelError(
            f"every model failed ({', '.join(self.models)}): {why}; last error: {last}. "
            + self._advice(why)
        )

    def _advice(self, why: str) -> str:
        """What to change after every model failed for `why` (`errors.reason`): a request that
        timed out wants more time or a shorter reply (a slow local server keeps generating; a
        fallback model would not help it), anything else the provider's status or a fallback."""
        if why == "timed out":
            return (
                f"The model did not answer within --request-timeout ({self.request_timeout:g} s): "
                "raise --request-timeout, or lower --max-output-tokens so that a slow server "
                "finishes its reply in time"
            )
        return "Check the provider status, or add --fallback-models"

    def _raise_unless_fallback(self, model: str, exc: Exception) -> None:
        rule = errors.rule_for(exc)
        if rule is None:
            raise exc
        if type(exc).__name__ == "AuthenticationError":
            raise ModelConfigError(errors.auth_message(model, exc)) from exc
        if rule.disposition is errors.Disposition.SHRINK:
            raise ContextTooLong(f"{model}: prompt longer than its context window") from exc
        if not rule.fallback:
            raise ModelError(
                f"{model} refused the request ({type(exc).__name__}: {exc}); "
                "check --model and --api-base"
            ) from exc

    def _with_policy(
        self, model: str, messages: list[Message], tools: list[dict[str, Any]] | None
    ) -> Reply:
        def before_sleep(state: Any) -> None:
            self.notify(errors.retry_notice(model, state))

        reply: Reply = errors.policy(self.sleep, self.tries_per_model, before_sleep)(
            self._call, model, messages, tools
        )
        return reply

    def _call(
        self, model: str, messages: list[Message], tools: list[dict[str, Any]] | None
    ) -> Reply:
        litellm = litellm_module()
        extra: dict[str, Any] = {"tools": tools} if tools else {}
        seconds, flag = self.request_timeout, "--request-timeout"
        if self.deadline.cap(seconds) < seconds:
            seconds, flag = self.deadline.cap(seconds), "--max-duration"
        cap = self.size(model, output_cap(model, self.max_output_tokens))
        built = Assembly()
        cancel = threading.Event()
        marks: dict[str, float] = {}  # "first": seconds until the first token came
        opened: list[Any] = []  # the stream, once litellm returned it
        started = time.monotonic()

        def request() -> str | None:
            """Stream the reply into `built`; the reason it was stopped early, or None."""
            stream = litellm.completion(
                model=model,
                messages=messages,
                temperature=self.temperature,
                api_base=self.api_base,
                max_tokens=cap,
                num_retries=0,
                max_retries=0,
                timeout=seconds,
                stream=True,
                stream_options={"include_usage": True},
                # litellm imports its MCP gateway (and the `mcp` package) whenever tools are
                # passed, unless told to skip it; fixbot sends plain function tools only.
                _skip_mcp_handler=True,
                **extra,
            )
            opened.append(stream)
            try:
                for chunk in streamed.chunks_of(litellm, model, stream):
                    built.feed(chunk)
                    if built.pieces:  # the first token (a role-only chunk may come at once)
                        marks.setdefault("first", time.monotonic() - started)
                    if cancel.is_set():
                        return None
                    why = built.stop_reason(bool(tools))
                    if why:
                        return why
            finally:
                streamed.close(stream)
            return None

        def timed_out() -> Exception:
            cancel.set()
            for stream in opened:  # hang up: a local server then stops generating the reply
                streamed.close(stream)
            took = time.monotonic() - started
            call = self._record(litellm, model, messages, built, took, marks.get("first"), cap)
            call.end = CallEnd.TIMED_OUT
            speed = call.tokens_per_s
            pace = (
                f"; {call.tokens_out} tokens had come at {speed:.1f} tokens/s"
                if speed
                else f"; {call.tokens_out} tokens had come"
            )
            call.why = f"no complete reply within {seconds:.0f} s ({flag}){pace}"
            # a model that was writing, too slowly for its cap, is asked again only with a cap
            # its speed fits (`size`); the same request again would time out the same way
            again = self.size(model, output_cap(model, self.max_output_tokens))
            futile = speed is not None and again >= cap
            if futile:
                call.why += "; not retried: the same request would time out again"
            message = f"{call.why}; abandoned"
            provider = provider_of(model)
            timeout: Exception = litellm.Timeout(
                message=message, model=model, llm_provider=provider
            )
            timeout.fixbot_futile = futile  # type: ignore[attr-defined]  # read by errors.policy
            return timeout

        host = host_of(model, self.api_base)

        def beat(waited: float) -> None:
            self.notify(
                Heartbeat(
                    f"waiting for {model} at {host}: {waited:.0f} s so far, "
                    f"{built.pieces} tokens in, at most {seconds:.0f} s ({flag})"
                )
            )

        # A little slack so that litellm's own per-read timeout, when it fires, wins the race.
        stopped = within(seconds + 1.0, request, timed_out, beat)
        took = time.monotonic() - started
        streamed.refuse_incomplete(litellm, model, built, stopped)
        call = self._record(litellm, model, messages, built, took, marks.get("first"), cap)
        streamed.mark_end(call, stopped, built.finish_reason)
        response = streamed.response_of(litellm, model, built, call)
        reply = reply_of(litellm, model, response, self.notes)
        return dataclasses.replace(reply, call=call)

    def _record(
        self,
        litellm: Any,
        model: str,
        messages: list[Message],
        built: Assembly,
        seconds: float,
        first: float | None,
        cap: int,
    ) -> ModelCall:
        """The call's figures (`fixbot.agent.reply.figures`) of a reply streamed into `built`
        (capped at `cap` tokens), kept in `calls` and shown to `observe`."""
        call = figures(litellm, model, self.purpose, messages, built, seconds, first)
        self.calls.append(call)
        self.observe(call, cap)
        return call

    def _redact(self, message: Message) -> Message:
        out = dict(message)
        if isinstance(out.get("content"), str):
            out["content"] = self.redactor.redact(out["content"])
        if out.get("tool_calls"):
            out["tool_calls"] = [self._redact_call(c) for c in out["tool_calls"]]
        return out

    def _redact_call(self, call: dict[str, Any]) -> dict[str, Any]:
        function = dict(call["function"])
        function["arguments"] = self.redactor.redact(function.get("arguments") or "")
        return {**call, "function": function}
