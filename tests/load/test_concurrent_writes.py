"""Many writers at once, on each store: an exact repeat is stored once whatever the timing, and
16 writers on one space all succeed (no deadlock reaches an agent)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import pytest

from memspace.domain.extraction import Candidate, Extraction
from memspace.domain.models import DocumentStatus, MemoryFilter
from tests.load.conftest import Rig, make_rig
from tests.support.fakes import fact
from tests.support.stores import STORE_PARAMS

AGENTS = 8
ROUNDS = 5


def at_once(count: int, work: Callable[[int], str]) -> tuple[Counter[str], list[BaseException]]:
    """Run `work(i)` in `count` threads released together; count what they return."""
    gate = threading.Barrier(count, timeout=60)
    outcomes: Counter[str] = Counter()
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(number: int) -> None:
        try:
            gate.wait()
            outcome = work(number)
            with lock:
                outcomes[outcome] += 1
        except BaseException as exc:  # collected and asserted by the test
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return outcomes, errors


def active(rig: Rig, slug: str) -> list[str]:
    space = rig.app.store.directory.get_space_by_slug(slug)
    assert space is not None
    return [m.content for m in rig.app.store.reads.list_memories(MemoryFilter(space.id), 100_000)]


def test_identical_adds_at_the_same_moment_store_one_memory(rig: Rig) -> None:
    slug = rig.space("same")
    agents = [rig.principal(f"agent-{n}", {slug: "rw"}) for n in range(AGENTS)]
    for round_no in range(ROUNDS):
        text = f"The staging database is rebuilt every night (round {round_no})"
        outcomes, errors = at_once(
            AGENTS, lambda n, text=text: rig.app.memories.add(agents[n], text, slug).status)
        assert errors == []
        assert outcomes == Counter({"created": 1, "duplicate": AGENTS - 1})
    assert len(active(rig, slug)) == ROUNDS


class EchoModel:
    """Extracts the content as one fact; every call answers at the same moment."""

    def __init__(self, parties: int) -> None:
        self._gate = threading.Barrier(parties, timeout=60)

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        self._gate.wait()
        return Extraction((fact(content.rstrip(".") + ", per the runbook"),))


@pytest.mark.parametrize("kind", STORE_PARAMS)
def test_identical_adds_with_a_model_store_each_fact_once(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    rig = make_rig(kind, request, tmp_path, extractor=EchoModel(AGENTS))
    try:
        slug = rig.space("model")
        agents = [rig.principal(f"agent-{n}", {slug: "rw"}) for n in range(AGENTS)]
        outcomes, errors = at_once(AGENTS, lambda n: rig.app.memories.add(
            agents[n], "Invoices are sent on the first working day.", slug).status)
        assert errors == []
        assert outcomes == Counter({"created": 1, "duplicate": AGENTS - 1})
        assert active(rig, slug) == ["Invoices are sent on the first working day, per the runbook"]
    finally:
        rig.app.close()


def test_chunks_of_two_uploads_racing_are_stored_once(rig: Rig) -> None:
    slug = rig.space("uploads")
    who = rig.principal("uploader", {slug: "rw"})
    text = b"Deploys go out on Thursdays.\n\nEvery deploy needs two approvals."
    # Different bytes (two documents), the same text once read.
    documents = [rig.app.ingestion.upload(who, f"notes-{n}.txt", text + b"\n" * n).document
                 for n in range(2)]
    outcomes, errors = at_once(
        2, lambda n: rig.app.ingestion.process(documents[n]).status.value)
    assert errors == []
    assert outcomes == Counter({DocumentStatus.DONE.value: 2})
    stored = active(rig, slug)
    assert len(stored) == len(set(stored)) > 0
    done = [rig.app.store.documents.get_document(d.space_id, d.id) for d in documents]
    assert sum(d.fact_count for d in done if d is not None) == len(stored)  # each linked once


def test_sixteen_writers_on_one_space_all_succeed(rig: Rig, writers: int) -> None:
    slug = rig.space("load")
    per_writer = 25
    agents = [rig.principal(f"writer-{n}", {slug: "rw"}) for n in range(writers)]

    def write_all(number: int) -> str:
        for i in range(per_writer):
            status = rig.app.memories.add(
                agents[number], f"Writer {number} records fact {i} about the rollout", slug).status
            assert status == "created"
        return "ok"

    outcomes, errors = at_once(writers, write_all)
    assert errors == [] and outcomes == Counter({"ok": writers})
    stored = active(rig, slug)
    assert len(stored) == len(set(stored)) == writers * per_writer
