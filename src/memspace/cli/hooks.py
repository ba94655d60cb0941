"""Claude Code hooks: `memspace hook session-start` (the latest handoff, for SessionStart) and
`memspace hook prompt-recall` (memories naming the prompt's identifiers, for UserPromptSubmit).

A hook that breaks a session is worse than no hook, so both are silent on any failure (no
store, no space, a server that is down, bad stdin, a timeout): nothing on stdout or stderr,
exit status 0. Each answers within its `timeout` or not at all: the work runs in a daemon
thread, and the process leaves when the time is up whether or not it finished.

Both read a local store (the one Settings names, as the local operator; a SQLite file that
does not exist is not created) or, with `--url`, a memspace server over REST, presenting the
key in MEMSPACE_API_KEY.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any, Protocol

from memspace.domain.identifiers import identifiers, mentions
from memspace.domain.models import Handoff
from memspace.present.hook import (
    Recalled,
    found_from_json,
    handoff_from_json,
    hook_output,
    recall_text,
    search_body,
    session_start_text,
)

# Stdin larger than this is not read (nothing is printed): no hook payload is that large. A
# large prompt is read whole, and its identifiers taken from its start
# (domain.identifiers.MAX_SCANNED_CHARS).
MAX_STDIN_CHARS = 32 * 2**20


class HookSource(Protocol):
    """Where a hook reads: the local store or a remote server."""

    def latest_handoff(self, space: str) -> tuple[str, Handoff | None]: ...

    def strict_search(self, space: str, keyword: str, limit: int) -> tuple[str, list[tuple[str, str]]]:
        """(space slug, (id, content) of memories holding every word of `keyword` as typed)."""
        ...

    def close(self) -> None: ...


class LocalSource:
    """The store Settings names, read as the local operator."""

    def __init__(self) -> None:
        from memspace.startup.container import build
        from memspace.startup.settings import Settings

        settings = Settings()
        if settings.store == "sqlite" and not settings.sqlite_path.exists():
            raise FileNotFoundError(f"no memspace store at {settings.sqlite_path}")
        self._container = build(settings)

    def latest_handoff(self, space: str) -> tuple[str, Handoff | None]:
        from memspace.services.access import AccessService

        return self._container.handoffs.latest(AccessService.operator(), None, None, space)

    def strict_search(self, space: str, keyword: str, limit: int) -> tuple[str, list[tuple[str, str]]]:
        from memspace.services.access import AccessService
        from memspace.services.search import SearchRequest

        request = SearchRequest(keyword=keyword, space=space, limit=limit, include_profile=False,
                                exact_keyword=True)
        found = self._container.search.search(AccessService.operator(), request)
        return found.space, [(h.memory.id, h.memory.content) for h in found.hits]

    def close(self) -> None:
        self._container.close()


class RemoteSource:
    """A memspace server's REST API, with the key from MEMSPACE_API_KEY."""

    def __init__(self, url: str, timeout: float) -> None:
        from memspace.startup.settings import Settings

        key = Settings().api_key
        if key is None:
            raise PermissionError("MEMSPACE_API_KEY is not set")
        self._base = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {key.get_secret_value()}",
                         "Content-Type": "application/json"}
        self._timeout = timeout

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self._base + path, headers=self._headers, method="POST" if body else "GET",
            data=json.dumps(body).encode() if body else None)
        with urllib.request.urlopen(request, timeout=self._timeout) as response:
            return json.loads(response.read())

    def latest_handoff(self, space: str) -> tuple[str, Handoff | None]:
        data = self._call("/v1/handoffs/latest?" + urllib.parse.urlencode({"space": space}))
        found = data.get("handoff")
        return str(data["space"]), handoff_from_json(found) if found else None

    def strict_search(self, space: str, keyword: str, limit: int) -> tuple[str, list[tuple[str, str]]]:
        data = self._call("/v1/search", search_body(keyword, space, limit))
        return str(data["space"]), found_from_json(data)

    def close(self) -> None:
        pass


def session_start(source: HookSource, space: str) -> dict[str, Any] | None:
    slug, handoff = source.latest_handoff(space)
    if handoff is None:
        return None
    return hook_output("SessionStart", session_start_text(slug, handoff))


def prompt_recall(source: HookSource, space: str, payload: Any, limit: int) -> dict[str, Any] | None:
    """Memories that name the prompt's identifiers exactly: each identifier is searched with
    every one of its words as typed, and a memory is kept only if it holds the identifier
    itself (case aside)."""
    prompt = payload.get("prompt") if isinstance(payload, dict) else None
    if not isinstance(prompt, str):
        return None
    recalled: dict[str, Recalled] = {}
    slug = space
    for name in identifiers(prompt):
        slug, found = source.strict_search(space, name, limit)
        for memory_id, content in found:
            if not mentions(content, name):
                continue
            known = recalled.get(memory_id)
            if known is None and len(recalled) < limit:
                recalled[memory_id] = Recalled(memory_id, content, (name,))
            elif known is not None and name not in known.identifiers:
                recalled[memory_id] = Recalled(memory_id, content, (*known.identifiers, name))
    if not recalled:
        return None
    return hook_output("UserPromptSubmit", recall_text(slug, list(recalled.values())))


def read_payload() -> Any:
    """The hook's JSON from stdin; None from a terminal (run by hand)."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    text = sys.stdin.read(MAX_STDIN_CHARS + 1)
    if len(text) > MAX_STDIN_CHARS:
        raise ValueError("stdin is larger than any hook payload")
    return json.loads(text)


def run_hook(open_source: Callable[[], HookSource],
             work: Callable[[Any, Any], dict[str, Any] | None], timeout: float,
             needs_payload: bool) -> None:
    """Run `work(source, payload)` within `timeout` seconds; print its answer as JSON if it
    finished with one. Never raises, never prints anything else; leaves the process, status 0."""
    out = sys.stdout
    answer: list[dict[str, Any]] = []
    devnull = open(os.devnull, "w")  # noqa: SIM115 -- kept open until the process leaves
    sys.stdout = sys.stderr = devnull  # a library's warning must not reach Claude Code

    def attempt() -> None:
        try:
            payload = read_payload()
            if needs_payload and payload is None:
                return
            source = open_source()
            try:
                result = work(source, payload)
            finally:
                source.close()
            if result is not None:
                answer.append(result)
        except BaseException:  # silence is the contract
            pass

    thread = threading.Thread(target=attempt, daemon=True, name="memspace-hook")
    thread.start()
    thread.join(timeout)
    if answer and not thread.is_alive():
        out.write(json.dumps(answer[0], ensure_ascii=False) + "\n")
    out.flush()
    os._exit(0)  # now, even if the work is still waiting on a store or a server
