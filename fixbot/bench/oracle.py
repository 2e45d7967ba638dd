"""The oracle: a scripted model that answers every case with its reference fix.

`ScriptedModel` is a small OpenAI-compatible chat completions server on 127.0.0.1 (litellm's
real HTTP path runs: `openai/<name>` with `api_base=server.url`). Each request is recorded and
answered by a function of its JSON body. `reference_answer` is the oracle's function: the fix
request gets one `write_file` call per file the reference fix changes (the whole new text) and
`finish`, preceded by one `read_file` round when the first request did not show what the fix
changes (a model has to see the code before it edits it: the calls per fix count that); the
self-review gets an empty `submit_review`; a diagnosis gets a low-confidence `submit_diagnosis`.
Every case must end `fixed` with its hidden tests passing: a case that does not shows a fault in
fixbot (the evidence, applying edits, verifying, or a false alarm of the tampering detector,
`fixbot.policy.cheats`), not in the model.

The request and response shapes are OpenAI's chat completions API
(https://platform.openai.com/docs/api-reference/chat/create).
"""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fixbot.bench import localize
from fixbot.bench.results import apply_patch
from fixbot.process import git

Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""A request body (OpenAI's JSON) -> the assistant message to answer with (`role`, `content`,
`tool_calls`)."""

_ids = itertools.count(1)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One OpenAI tool call of function `name` with `arguments` (JSON-encoded as the API does)."""
    return {
        "id": f"call_{next(_ids)}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def message(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    """An assistant message with `calls` (tool calls) and/or `content`."""
    found: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        found["tool_calls"] = list(calls)
    return found


def _completion(body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    # Tokens estimated as characters / 4, as fixbot.agent.context does: the oracle costs nothing.
    prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
    done = max(1, len(json.dumps(answer)) // 4)
    return {
        "id": f"chatcmpl-{next(_ids)}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": answer,
                "finish_reason": "tool_calls" if answer.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": done,
            "total_tokens": prompt + done,
        },
    }


class ScriptedModel:
    """The server: `start()`/`stop()` or a context manager; `requests` holds every body asked.

    `answer` raising `LookupError` answers HTTP 400 (litellm raises it as a permanent error).
    """

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The api_base to give litellm (ends in /v1)."""
        assert self.httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def respond(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Record `body`; (HTTP status, JSON reply)."""
        with self.lock:
            self.requests.append(body)
            try:
                return 200, _completion(body, self.answer(body))
            except LookupError as exc:
                return 400, {"error": {"message": str(exc), "type": "invalid_request_error"}}

    def start(self) -> ScriptedModel:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _sse(reply: dict[str, Any], body: dict[str, Any]) -> list[bytes]:
    """`reply`, a chat completion, as the server-sent events of a streamed one (OpenAI's
    "chat.completion.chunk" objects, https://platform.openai.com/docs/api-reference/chat-streaming):
    the role, the content, each tool call whole, the finish reason, the usage when
    `stream_options.include_usage` asks for it, then `[DONE]`."""
    choice = reply["choices"][0]
    answer = choice["message"]
    head = {k: reply[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": answer.get("content") or ""})]
    for index, tool in enumerate(answer.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": index, **tool}]}))
    events.append(chunk({}, choice["finish_reason"]))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({**head, "choices": [], "usage": reply["usage"]})
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]


def _handler(server: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet: the bench reports
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, reply = server.respond(body)
            if status == 200 and body.get("stream"):
                data = b"".join(_sse(reply, body))
                kind = "text/event-stream"  # the connection's end ends the events (HTTP/1.0)
            else:
                data, kind = json.dumps(reply).encode(), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def fixed_files(repo: Path, patch: str) -> dict[str, str]:
    """The new text of every file `patch` (a unified diff) changes in the git repository `repo`,
    path (relative, posix) -> text; deleted files are left out. The patch is applied with
    `git apply` in a throwaway copy, its line ends as the file has them (a CRLF file's text is
    not turned to LF, which would change every line of it); raises `ValueError` naming the patch
    when it does not apply."""
    with tempfile.TemporaryDirectory(prefix="fixbot-oracle-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
        problem = apply_patch(copy, patch)
        if problem:
            raise ValueError(f"the reference fix does not apply: {problem}")
        names = git.run(copy, "status", "--porcelain", "-z", "--untracked-files=all")
        paths = [entry[3:] for entry in names.split("\0") if entry]
        return {p: _text(copy / p) for p in paths if (copy / p).is_file()}


def _text(path: Path) -> str:
    """The UTF-8 text of `path` with its line ends unchanged (`read_text` makes CRLF LF)."""
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def _tools(body: dict[str, Any]) -> set[str]:
    return {t.get("function", {}).get("name", "") for t in body.get("tools") or []}


def _called(body: dict[str, Any], name: str) -> bool:
    """Whether an earlier assistant message of `body` called the tool `name`."""
    return any(
        call.get("function", {}).get("name") == name
        for m in body.get("messages", [])
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    )


def _first_request_text(body: dict[str, Any]) -> str:
    """The system and first user messages of `body` (what fixbot sent before any tool ran)."""
    messages = body.get("messages", [])
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    opening = messages[: users[0] + 1] if users else messages
    return localize.request_text({"messages": opening})


def reference_answer(files: dict[str, str], patch: str = "") -> Answer:
    """The oracle's answers for a case whose reference fix leaves `files` (path -> new text).

    With the reference fix's `patch`, the oracle reads before it writes, as a model must: when
    the first request does not hold what the fix changes (`fixbot.bench.localize`: its files and
    at least half its lines), it first asks for those files with `read_file`, one call more per
    fix. Model calls per fix then measure localization as a model pays for it."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        tools = _tools(body)
        if "submit_review" in tools:
            return message(call("submit_review", findings=[]))
        if "submit_diagnosis" in tools:
            return message(
                call(
                    "submit_diagnosis",
                    why=["the reference fix was applied"],
                    root_cause={
                        "category": "code_bug",
                        "description": "the oracle applied the reference fix",
                        "confidence": 0.1,
                    },
                    evidence=[],
                    next_step="none: the oracle has no other answer",
                )
            )
        if "finish" in tools:
            if _called(body, "write_file") or (not files and _called(body, "finish")):
                return message(call("finish", summary="applied the reference fix"))
            shown = localize.measure(patch, _first_request_text(body)) if patch else None
            # a fix with no target lines has only its files to show
            missing = shown and not (shown.localized or (shown.no_target_lines and shown.named))
            if missing and not _called(body, "read_file"):
                return message(*(call("read_file", path=p) for p in sorted(files)))
            writes = [call("write_file", path=p, content=t) for p, t in sorted(files.items())]
            return message(*writes, call("finish", summary="applied the reference fix"))
        return message(content="The oracle applied the reference fix; nothing more to say.")

    return answer
