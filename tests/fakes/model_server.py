"""A fake OpenAI-compatible chat completions server on 127.0.0.1 that plays a script.

Tests point litellm at it (`openai/<name>` with `api_base=server.url`) so litellm's real HTTP
path runs. Each request takes the next scripted response (FIFO) and is recorded in `requests`
(the JSON body, the path and the headers). When the script runs out the server answers 400 with
"script exhausted", which litellm raises at once as a permanent error.

    with FakeModelServer() as server:
        server.enqueue(tool_call("read_file", path="app.py"), tool_call("finish", summary="ok"))

Standalone (for end-to-end tests of `fixbot run` in a subprocess):

    python -m tests.fakes.model_server --script script.json --port-file port.txt \
        [--record rec.jsonl] [--pace SECONDS]

`script.json` holds a JSON list of responses as built by the helpers below.

A request with `"stream": true` is answered as OpenAI streams (server-sent events, chunked
transfer encoding, https://platform.openai.com/docs/api-reference/chat-streaming): the content
and each tool call's arguments in pieces of `PIECE` characters (about a token each), the finish
reason, then the usage when `stream_options.include_usage` asks for it; the faults below stream
the same events. `repeat(unit, times)` streams a reply that repeats `unit` (a model that has
stopped answering), `interval` seconds apart per piece.

Fault modes, each bounded in time and ended by `stop()`: `error` (any status, with
headers such as Retry-After), `hang` (say nothing for a while, then close), `trickle` (a valid
reply sent a few bytes at a time, to outlast a per-read timeout), `truncated_json` (a complete
HTTP reply whose body is not JSON), `cut` (the connection closes half-way through the body);
`refused_url()` names a port nobody listens on.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.serve import serve

_ids = itertools.count(1)


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A response whose assistant message calls one tool."""
    return tool_calls((name, arguments))


def tool_calls(*calls: tuple[str, dict[str, Any]], content: str | None = None) -> dict[str, Any]:
    """A response whose assistant message calls several tools, in order."""
    return {"kind": "tools", "content": content, "calls": [[n, a] for n, a in calls]}


def text(content: str) -> dict[str, Any]:
    """A plain text response."""
    return {"kind": "text", "content": content}


def error(
    status: int, message: str, headers: dict[str, str] | None = None, code: str | None = None
) -> dict[str, Any]:
    """An HTTP error response in OpenAI's error shape, with optional headers (e.g. Retry-After)."""
    return {
        "kind": "error",
        "status": status,
        "message": message,
        "headers": headers or {},
        "code": code,
    }


def hang(seconds: float) -> dict[str, Any]:
    """Send nothing for `seconds` (or until the server stops), then close the connection."""
    return {"kind": "hang", "seconds": seconds}


def trickle(item: dict[str, Any], interval: float, chunk: int = 1) -> dict[str, Any]:
    """Answer `item` with status 200 and full headers, then `chunk` bytes every `interval` s."""
    return {"kind": "trickle", "item": item, "interval": interval, "chunk": chunk}


def repeat(unit: str, times: int, interval: float = 0.0) -> dict[str, Any]:
    """A streamed text reply of `unit` repeated `times` times, one piece every `interval` s."""
    return {"kind": "repeat", "unit": unit, "times": times, "interval": interval}


def truncated_json() -> dict[str, Any]:
    """A complete 200 reply whose body is JSON cut short (not parseable)."""
    return {"kind": "raw", "status": 200, "body": '{"id": "chatcmpl-cut", "choices": [{"ind'}


def cut(item: dict[str, Any]) -> dict[str, Any]:
    """Announce the full reply for `item` (Content-Length), send half of it, close the socket."""
    return {"kind": "cut", "item": item}


def refused_url() -> str:
    """An api_base on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def raw(body: dict[str, Any]) -> dict[str, Any]:
    """A 200 response with `body` as it is (e.g. a search provider's JSON, not a completion)."""
    return {"kind": "raw", "status": 200, "body": json.dumps(body)}


def _usage(body: dict[str, Any], completion: str) -> dict[str, int]:
    prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
    done = max(1, len(completion) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}


def _message(item: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if item["kind"] == "text":
        return {"role": "assistant", "content": item["content"]}, "stop"
    calls = [
        {
            "id": f"call_{next(_ids)}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for name, args in item["calls"]
    ]
    return {"role": "assistant", "content": item.get("content"), "tool_calls": calls}, "tool_calls"


PIECE = 4  # characters per streamed piece: about one token


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def stream_events(item: dict[str, Any], request: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunks (`chat.completion.chunk` objects) that stream the scripted `item`."""
    message, reason = _message(item)
    head = {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion.chunk"}
    head |= {"created": 1700000000, "model": request.get("model", "fake")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in _pieces(message.get("content") or "")]
    for index, call in enumerate(message.get("tool_calls") or []):
        opening = {"index": index, "id": call["id"], "type": "function"}
        opening["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(chunk({"tool_calls": [opening]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _pieces(call["function"]["arguments"])
        ]
    events.append(chunk({}, reason))
    if (request.get("stream_options") or {}).get("include_usage"):
        events.append({**head, "choices": [], "usage": _usage(request, json.dumps(message))})
    return events


def sse(events: list[dict[str, Any]]) -> list[bytes]:
    """Server-sent events: one `data: <json>` each, then `data: [DONE]`."""
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]


def completion_body(item: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body of a successful chat completion for the scripted `item`."""
    message, reason = _message(item)
    return {
        "id": f"chatcmpl-{next(_ids)}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": _usage(request, json.dumps(message)),
    }


class FakeModelServer:
    """The server: `enqueue` responses, read `requests`; start/stop or use as a context manager."""

    def __init__(
        self, script: list[dict[str, Any]] | None = None, record: Path | None = None
    ) -> None:
        self.queue: deque[dict[str, Any]] = deque(script or [])
        self.requests: list[dict[str, Any]] = []
        self.record = record
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        # seconds per piece of a reply, as a model generates it: a streamed reply sends each
        # piece after this long, a plain one waits for all of them (0: answer at once)
        self.pace = 0.0

    @property
    def port(self) -> int:
        assert self.httpd is not None, "start the server first"
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        """The api_base to give litellm (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *items: dict[str, Any]) -> None:
        """Append scripted responses."""
        with self.lock:
            self.queue.extend(items)

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of every recorded request."""
        return [r["body"] for r in self.requests]

    def all_text(self) -> str:
        """Every recorded request body as one string (to assert what reached the server)."""
        return "\n".join(json.dumps(b) for b in self.bodies())

    def next_item(self, request: dict[str, Any]) -> dict[str, Any] | None:
        with self.lock:
            self.requests.append(request)
            if self.record:
                with self.record.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(request) + "\n")
            return self.queue.popleft() if self.queue else None

    def start(self) -> FakeModelServer:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = serve(self.httpd)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _head(self, status: int, length: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(length))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self._head(status, len(data), headers)
            self.wfile.write(data)

        def _stream_head(self) -> None:
            # small writes at once, as a streaming server sends them (uvicorn sets TCP_NODELAY);
            # without it each piece waits for the client's delayed ACK (~40 ms)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.protocol_version = "HTTP/1.1"  # chunked transfer encoding, as uvicorn streams
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

        def _chunk(self, data: bytes) -> bool:
            """Send `data` as one HTTP chunk; False when the client has gone."""
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            except OSError:
                return False
            return True

        def _stream(self, parts: list[bytes], interval: float = 0.0) -> None:
            """Send `parts`, the i-th `interval` x i seconds after the first (on a clock, so
            that late wake-ups do not add up)."""
            self._stream_head()
            began = time.monotonic()
            for index, part in enumerate(parts, 1):
                due = began + interval * index - time.monotonic()
                if interval and server.stopping.wait(max(0.0, due)):
                    return
                if not self._chunk(part):
                    return
            self._chunk(b"")

        def _fault(self, item: dict[str, Any], request: dict[str, Any]) -> None:
            kind = item["kind"]
            streamed = bool(request.get("stream")) and kind != "raw"
            if kind == "repeat":
                text_item = {"kind": "text", "content": item["unit"] * item["times"]}
                self._stream(sse(stream_events(text_item, request)), item["interval"])
                return
            if streamed and kind != "hang":
                data = b"".join(sse(stream_events(item["item"], request)))
                if kind == "cut":
                    self._stream_head()
                    self._chunk(data[: len(data) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                step = int(item["chunk"])
                parts = [data[i : i + step] for i in range(0, len(data), step)]
                self._stream(parts, item["interval"])
                return
            if kind == "hang":
                server.stopping.wait(item["seconds"])
                self.close_connection = True
                return
            if kind == "raw":
                data = item["body"].encode()
                self._head(item["status"], len(data), {})
                self.wfile.write(data)
                return
            data = json.dumps(completion_body(item["item"], request)).encode()
            self._head(200, len(data), {})
            self.close_connection = True
            if kind == "cut":
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            step = int(item["chunk"])
            for start in range(0, len(data), step):  # trickle
                if server.stopping.wait(item["interval"]):
                    return
                try:
                    self.wfile.write(data[start : start + step])
                    self.wfile.flush()
                except OSError:  # the client gave up: stop sending
                    return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            request = {"path": self.path, "body": body, "headers": dict(self.headers)}
            item = server.next_item(request)
            if item is None:
                message = "fake model server: script exhausted"
                self._send(
                    400, {"error": {"message": message, "type": "invalid_request_error"}}, {}
                )
            elif item["kind"] == "error":
                err = {"message": item["message"], "type": "error", "code": item.get("code")}
                self._send(item["status"], {"error": err}, item["headers"])
            elif item["kind"] in ("hang", "trickle", "raw", "cut", "repeat"):
                self._fault(item, body)
            elif body.get("stream"):
                self._stream(sse(stream_events(item, body)), server.pace)
            else:
                reply = completion_body(item, body)
                if server.pace:
                    server.stopping.wait(server.pace * len(stream_events(item, body)))
                self._send(200, reply, {})

    return Handler


class InProcessModel(FakeModelServer):
    """The same script and record as `FakeModelServer`, answered in this process: no socket.

    For tests of the agent's logic (what it asks, what it does with the answers). It replaces
    fixbot's one way to reach litellm (`fixbot.agent.llm.litellm_module`) by a stand-in whose
    `completion` records the request as the HTTP fake would (`requests`, `bodies()`; plus the
    request's `timeout`, which no HTTP request carries) and answers
    with litellm's own `ModelResponse` built from the same scripted item (a stream of its
    `ModelResponseStream` chunks when asked to stream); every other attribute
    is litellm's. Only `text` and `tools` items are served: the fault modes (errors, hangs,
    trickles, cut bodies) need the HTTP fake, which keeps covering litellm's real path.
    """

    URL = "http://in-process.invalid/v1"  # never contacted: the stand-in answers first

    @property
    def url(self) -> str:
        """An api_base for the settings (unused: nothing is sent)."""
        return self.URL

    def start(self) -> InProcessModel:
        return self

    def stop(self) -> None:
        self.stopping.set()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> InProcessModel:
        """Answer every litellm completion fixbot makes in this test from the script."""
        from fixbot.agent import llm

        real = llm.litellm_module()
        monkeypatch.setattr(llm, "litellm_module", lambda: _Seam(self, real))
        return self


class _Seam:
    """litellm, except that `completion` plays `model`'s script."""

    def __init__(self, model: InProcessModel, real: Any) -> None:
        self._model = model
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def completion(self, **kwargs: Any) -> Any:
        keys = ("messages", "tools", "temperature", "max_tokens")
        body = {k: kwargs[k] for k in keys if kwargs.get(k) is not None}
        body = json.loads(json.dumps(body, default=str))  # what the wire would carry
        body["model"] = str(kwargs["model"]).split("/", 1)[-1]
        # `timeout`: the seconds fixbot gave this request (HTTP carries none; recorded here).
        request = {"path": "/v1/chat/completions", "body": body, "headers": {}}
        item = self._model.next_item({**request, "timeout": kwargs.get("timeout")})
        if item is None:
            raise self._real.BadRequestError(
                message="script exhausted", model=body["model"], llm_provider="openai"
            )
        assert item["kind"] in ("text", "tools"), (
            f"{item['kind']!r} needs the HTTP fake (the model_server fixture)"
        )
        if kwargs.get("stream"):  # the chunks litellm's stream would yield
            asked = {**body, "stream_options": kwargs.get("stream_options")}
            return iter([self._real.ModelResponseStream(**e) for e in stream_events(item, asked)])
        return self._real.ModelResponse(**completion_body(item, body))


@pytest.fixture
def model_server() -> Iterator[FakeModelServer]:
    """A running FakeModelServer, stopped after the test."""
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def inprocess_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessModel]:
    """An `InProcessModel` answering every litellm completion of the test (no HTTP)."""
    with InProcessModel() as fake:
        yield fake.install(monkeypatch)


def main(argv: list[str] | None = None) -> None:
    """Serve a script until killed; write the port to --port-file once listening."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--pace", type=float, default=0.0, help="seconds per piece of a reply")
    args = parser.parse_args(argv)
    server = FakeModelServer(json.loads(args.script.read_text()), record=args.record)
    server.pace = args.pace
    server.start()
    tmp = args.port_file.with_suffix(".tmp")
    tmp.write_text(str(server.port))
    tmp.replace(args.port_file)
    assert server.thread is not None
    server.thread.join()


if __name__ == "__main__":
    main()
