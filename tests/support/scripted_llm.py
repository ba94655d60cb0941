"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for the real litellm path.

    with ScriptedLLM() as llm:
        llm.push(Reply({"facts": [...]}), Status(429, retry_after=1), Delay(5))
        LitellmExtractor("openai/scripted", api_base=llm.url, api_key="test").extract(...)
        assert len(llm.requests) == 1

Each request to `POST /v1/chat/completions` (or `/chat/completions`) takes the next scripted
step; the parsed request bodies are kept in `.requests`. A request arriving with nothing left
in the script is answered by `.fallback` when one is set (a function of the request body, for
tests that make many calls in an order they do not control), else gets a 500 and is counted in
`.unscripted`, so a test that made an unexpected call can say so.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Reply:
    """A 200 whose assistant message is `content`: a dict/list is sent as JSON, a str as is."""

    content: dict[str, Any] | list[Any] | str
    prompt_tokens: int = 100
    completion_tokens: int = 20


@dataclass(frozen=True)
class Status:
    """An HTTP error answer (429, 500, 503 …) with an OpenAI-style error body."""

    code: int
    message: str = "scripted failure"
    retry_after: float | None = None


@dataclass(frozen=True)
class Delay:
    """Wait `seconds` (to outlast the client's timeout), then answer `then` if still connected."""

    seconds: float
    then: Reply | Status | None = None


Step = Reply | Status | Delay


class ScriptedLLM:
    """Answers chat completions from a queue of steps; a context manager starts and stops it."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.unscripted = 0
        self.fallback: Callable[[dict[str, Any]], Step] | None = None
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The api_base to give litellm: http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *steps: Step) -> None:
        """Append steps to the script, answered in order."""
        with self._lock:
            self._steps.extend(steps)

    def script(self, *steps: Step) -> None:
        """Replace the script and forget earlier requests."""
        with self._lock:
            self._steps.clear()
            self._steps.extend(steps)
            self.requests.clear()
            self.unscripted = 0

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._steps)

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stopping.set()  # wakes any handler sleeping in a Delay
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> Step | None:
        with self._lock:
            self.requests.append(body)
            if self._steps:
                return self._steps.popleft()
            if self.fallback is not None:
                return self.fallback(body)
            self.unscripted += 1
            return None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.rstrip("/") not in PATHS:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                step = llm._next(json.loads(raw or b"{}"))
                if isinstance(step, Delay):
                    if llm._stopping.wait(step.seconds):
                        return
                    step = step.then
                    if step is None:
                        self._send(500, {"error": {"message": "scripted delay ended"}})
                        return
                if step is None:
                    self._send(500, {"error": {"message": "scripted LLM: no step left in the script"}})
                elif isinstance(step, Status):
                    headers = {} if step.retry_after is None else {"Retry-After": f"{step.retry_after:g}"}
                    self._send(step.code, {"error": {"message": step.message, "type": "scripted",
                                                     "code": str(step.code)}}, headers)
                else:
                    self._send(200, completion(step))

            def _send(self, code: int, payload: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a timeout test): nothing to answer

        return Handler


def completion(reply: Reply) -> dict[str, Any]:
    """An OpenAI chat.completion body carrying `reply` as the assistant message."""
    content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
    return {
        "id": f"chatcmpl-scripted-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
    }


def sentences_as_facts(body: dict[str, Any]) -> Reply:
    """A `fallback` that answers like a diligent model: each sentence of the content is a fact."""
    prompt = str(body["messages"][-1]["content"])
    tag = "note" if "<note>" in prompt else "content"  # extract_facts.v2 / v1
    content = prompt.split(f"<{tag}>", 1)[-1].split(f"</{tag}>", 1)[0]
    found = re.split(r"(?<=[.!?])\s+|\n+", content)
    facts = [{"text": s.strip(), "category": "fact", "relations": []} for s in found if s.strip()]
    return Reply({"facts": facts})


# Ports held bound but never listening, for the life of the test process: a connection to one
# is refused, and no other process can start listening there in the meantime (a port bound and
# released at once could be taken by a parallel test between here and the call).
_REFUSING: list[socket.socket] = []


def refused_url() -> str:
    """An api_base on 127.0.0.1 that refuses connections: a port this process holds, unlistened."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _REFUSING.append(sock)
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
