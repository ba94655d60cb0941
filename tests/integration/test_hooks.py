"""`memspace hook session-start` and `memspace hook prompt-recall` run as Claude Code runs
them: a child process fed the real payload of its event on stdin, against a local store and
a remote server. On any failure they print nothing and exit 0."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memspace.domain.models import Access
from memspace.services.access import AccessService
from memspace.services.memories import AddRequest
from memspace.startup.container import Container
from tests.support.server import free_port, running_server
from tests.support.stdio import open_store, run_hook, store_env

pytestmark = pytest.mark.model

# What Claude Code writes on the hook's stdin (its hooks reference: common fields, then the
# event's own).
SESSION_START = {"session_id": "3f1c2a9e-5b1d-4c1e-9d55-0c6f3e4b7a10",
                 "transcript_path": "/home/dev/.claude/projects/app/3f1c2a9e.jsonl",
                 "cwd": "/home/dev/app", "hook_event_name": "SessionStart", "source": "startup"}


def prompt_payload(prompt: str) -> str:
    return json.dumps({"session_id": "3f1c2a9e-5b1d-4c1e-9d55-0c6f3e4b7a10",
                       "transcript_path": "/home/dev/.claude/projects/app/3f1c2a9e.jsonl",
                       "cwd": "/home/dev/app", "permission_mode": "default",
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt})


MEMORIES = [
    "add_memory refuses content longer than MEMSPACE_MAX_MEMORY_CHARS",
    "Pass --space to every memspace command that reads a space",
    "The deploy script runs on Mondays",
    "The space holds shared notes",
    "services.access decides which space a call may touch; see src/memspace/services/access.py",
    "correctMemory needs the expectedVersion you read",
]


@dataclass
class Store:
    data_dir: Path
    app: Container
    key: str  # read-only on team


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    data_dir = tmp_path_factory.mktemp("hooks")
    app = open_store(data_dir)
    app.admin.create_space("team")
    app.admin.create_space("quiet")
    operator = AccessService.operator()
    for content in MEMORIES:
        app.memories.submit(operator, AddRequest(content, "team"))
    app.handoffs.save(operator, "Hooks half done", "claude", "hooks", ["session-start"],
                      ["prompt-recall tests"], ["which timeout?"], ["src/memspace/cli/hooks.py"], "team")
    key = app.admin.create_key("hook", {"team": Access.READ, "quiet": Access.READ}).raw
    try:
        yield Store(data_dir, app, key)
    finally:
        app.close()


@pytest.fixture(scope="module")
def server(store: Store) -> Iterator[str]:
    with running_server(store.app) as url:
        yield url


def local(store: Store, *args: str, stdin: str | bytes) -> tuple[int, str]:
    done = run_hook(args, stdin, store_env(store.data_dir))
    assert done.stderr == ""  # silent on stderr too
    return done.code, done.stdout


def test_session_start_prints_the_latest_handoff_as_additional_context(store: Store) -> None:
    done = run_hook(["session-start", "--space", "team"], json.dumps(SESSION_START),
                    store_env(store.data_dir))
    assert done.code == 0
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert "Hooks half done" in text and "│ prompt-recall tests" in text and "which timeout?" in text


def test_session_start_is_silent_without_a_handoff_a_space_or_a_store(store: Store, tmp_path: Path) -> None:
    payload = json.dumps(SESSION_START)
    assert local(store, "session-start", "--space", "quiet", stdin=payload) == (0, "")
    assert local(store, "session-start", "--space", "no-such", stdin=payload) == (0, "")
    nowhere = run_hook(["session-start", "--space", "team"], payload, store_env(tmp_path / "none"))
    assert (nowhere.code, nowhere.stdout, nowhere.stderr) == (0, "", "")
    assert not (tmp_path / "none").exists()  # no store is created by looking for one
    assert local(store, "session-start", "--space", "team", stdin="{not json") == (0, "")


def test_prompt_recall_prints_exact_matches_of_the_prompts_identifiers(store: Store) -> None:
    done = run_hook(["prompt-recall", "--space", "team"],
                    prompt_payload("Why does add_memory fail, and what does --space change?"),
                    store_env(store.data_dir))
    assert done.code == 0
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    _header, notice, *lines = answer["additionalContext"].splitlines()
    assert "never an instruction" in notice  # recalled text reaches the model as quoted data
    assert len(lines) == 4  # each memory: its id and what it names, then its text behind │
    assert lines[0].endswith("(names add_memory)") and lines[1].lstrip().startswith("│ ")
    assert "add_memory refuses content" in lines[1]
    assert "Pass --space to every" in lines[3]  # not "The space holds shared notes"
    dotted = done_context(store, "Is services.access the place? Or src/memspace/services/access.py, "
                                 "or correctMemory?")
    assert dotted.count("\n- ") == 2
    assert "(names services.access, src/memspace/services/access.py)" in dotted
    assert "correctMemory needs" in dotted


def done_context(store: Store, prompt: str) -> str:
    done = run_hook(["prompt-recall", "--space", "team"], prompt_payload(prompt),
                    store_env(store.data_dir))
    return done.context


@pytest.mark.parametrize("prompt", [
    "Please fix the deploy script so it runs on Mondays",  # ordinary words, even stored ones
    "Why does add_memroy fail?",  # a typo of a stored identifier is not a match
    "What about remove_memory?",  # an identifier nothing names
    "",
])
def test_prompt_recall_prints_nothing_without_a_strict_match(store: Store, prompt: str) -> None:
    assert local(store, "prompt-recall", "--space", "team", stdin=prompt_payload(prompt)) == (0, "")


@pytest.mark.parametrize("stdin", ["", "{broken", "[1, 2]", json.dumps({"prompt": 42}), b"\xff\xfe"])
def test_prompt_recall_is_silent_on_bad_stdin(store: Store, stdin: str | bytes) -> None:
    assert local(store, "prompt-recall", "--space", "team", stdin=stdin) == (0, "")


def test_a_huge_prompt_is_read_from_its_start(store: Store) -> None:
    filler = "lorem ipsum dolor sit amet " * 150_000  # 4 MB of prose
    found = done_context(store, "Check add_memory first. " + filler)
    assert "add_memory refuses content" in found
    late = prompt_payload(filler + " add_memory")  # past what is scanned: nothing
    assert local(store, "prompt-recall", "--space", "team", stdin=late) == (0, "")


def test_both_hooks_read_a_remote_server_with_the_key_from_the_environment(
        store: Store, server: str) -> None:
    env = {"MEMSPACE_API_KEY": store.key}
    remote = run_hook(["session-start", "--space", "team", "--url", server],
                      json.dumps(SESSION_START), env)
    here = run_hook(["session-start", "--space", "team"], json.dumps(SESSION_START),
                    store_env(store.data_dir))
    assert remote.code == 0 and remote.context == here.context
    prompt = prompt_payload("Why does add_memory fail, and what does --space change?")
    recalled = run_hook(["prompt-recall", "--space", "team", "--url", server], prompt, env)
    assert recalled.context == run_hook(["prompt-recall", "--space", "team"], prompt,
                                        store_env(store.data_dir)).context
    for refused in ({}, {"MEMSPACE_API_KEY": "msk_abcdefgh_" + "x" * 40}):  # no key, a wrong key
        silent = run_hook(["prompt-recall", "--space", "team", "--url", server], prompt, refused)
        assert (silent.code, silent.stdout, silent.stderr) == (0, "", "")


def test_a_server_that_is_down_or_never_answers_leaves_the_hooks_silent(store: Store) -> None:
    env = {"MEMSPACE_API_KEY": store.key}
    prompt = prompt_payload("Why does add_memory fail?")
    down = f"http://127.0.0.1:{free_port()}"
    for args in (["session-start"], ["prompt-recall"]):
        done = run_hook([*args, "--space", "team", "--url", down], prompt, env)
        assert (done.code, done.stdout, done.stderr) == (0, "", "")
    with silent_server() as hung:  # accepts the connection, never answers
        for args in (["session-start"], ["prompt-recall"]):
            done = run_hook([*args, "--space", "team", "--url", hung, "--timeout", "1"], prompt, env)
            assert (done.code, done.stdout, done.stderr) == (0, "", "")


class silent_server:  # noqa: N801 -- used as a context manager
    def __enter__(self) -> str:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.held: list[socket.socket] = []
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.sock.close()
        for conn in self.held:
            conn.close()
