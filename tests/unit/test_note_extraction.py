"""add_memory with `wait: false` and a model (docs/contract.md): the note is stored at once and its facts
replace it later, through the ingestion worker; history kept, status visible, restart-safe."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memspace.domain.errors import ExtractionFailed
from memspace.domain.models import MemoryFilter, RelationType
from memspace.domain.notes import NoteJob, NoteState
from memspace.present.json import add_json, memory_detail_json
from memspace.services.access.access import Principal
from memspace.services.memories.extraction_jobs import FROM_NOTE, NoteExtraction
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, ScriptedExtractor, StepClock, fact
from tests.unit.conftest import World

NOTE = "Ana leads mobile and the app ships every two weeks"


def model(world: World) -> ScriptedExtractor:
    assert world.extractor is not None
    return world.extractor


def notes(app: Container) -> NoteExtraction:
    assert app.notes is not None
    return app.notes


def space_id(app: Container, slug: str = "acme") -> str:
    space = app.store.directory.get_space_by_slug(slug)
    assert space is not None
    return space.id


def active(app: Container) -> list[str]:
    return sorted(m.content for m in app.store.reads.list_memories(MemoryFilter(space_id(app)), 100))


def job_of(app: Container, memory_id: str) -> NoteJob:
    return notes(app).states(space_id(app), [memory_id])[memory_id]


def run_pending(app: Container) -> list[NoteJob]:
    return [notes(app).process(job) for job in notes(app).pending()]


def test_a_note_saved_without_waiting_is_stored_pending_searchable_and_costs_no_call(
    model_world: World,
) -> None:
    who = model_world.principal({"acme": "rw"})
    result = model_world.app.memories.add(who, NOTE, "acme", wait=False)

    assert (result.status, result.mode, result.usage.llm_calls) == ("created", "pending", 0)
    assert add_json(result)["memories"][0]["status"] == "pending"
    assert model(model_world).calls == []
    found = model_world.app.search.search(who, SearchRequest(query="who leads mobile", space="acme"))
    assert [h.memory.id for h in found.hits][:1] == [result.memories[0].id]
    shown = memory_detail_json(model_world.app.memories.get(who, result.memories[0].id))["memory"]
    assert (shown["status"], shown["extraction"], shown["extractionReason"]) == (
        "pending", "pending", None)


def test_the_worker_replaces_the_note_with_its_facts_and_keeps_it_as_history(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    note = app.memories.add(who, NOTE, "acme", wait=False, speaker="Priya").memories[0]
    model(model_world).facts(fact("Ana leads the mobile team", "person"),
                             fact("The mobile app ships every two weeks", "process"),
                             prompt_tokens=300, completion_tokens=40)

    [done] = run_pending(app)

    assert done.state is NoteState.EXTRACTED and done.reason == "replaced by 2 facts"
    assert model(model_world).calls[0][0] == NOTE and model(model_world).calls[0][2] == "Priya"
    assert active(app) == ["Ana leads the mobile team", "The mobile app ships every two weeks"]
    retired = app.store.reads.get_memory(space_id(app), note.id)
    assert retired is not None and not retired.active and retired.invalidated_by is not None
    links = app.store.relations.relations_of(space_id(app), note.id)
    assert sorted((r.type, r.reason) for r in links) == [(RelationType.DERIVES, FROM_NOTE)] * 2
    shown = memory_detail_json(app.memories.get(who, note.id))["memory"]
    assert (shown["status"], shown["extraction"], shown["extractionReason"]) == (
        "superseded", "extracted", "replaced by 2 facts")
    usage = app.store.ledger.usage_totals(space_id(app))
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 300, 40)


def test_a_failing_model_leaves_the_note_as_it_is_marked_flat_with_the_reason(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    note = model_world.app.memories.add(who, NOTE, "acme", wait=False).memories[0]
    model(model_world).fail(ExtractionFailed("model openai/x timed out after 30 s", 1, 0, 0))

    [done] = run_pending(model_world.app)

    assert done.state is NoteState.FLAT and "timed out" in (done.reason or "")
    assert active(model_world.app) == [NOTE]
    assert job_of(model_world.app, note.id).state is NoteState.FLAT


def test_a_note_that_is_one_fact_as_saved_stays_and_is_marked_extracted(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    note = model_world.app.memories.add(who, "Standup is at 9:30", "acme", wait=False).memories[0]
    model(model_world).facts(fact("Standup is at 9:30"))

    [done] = run_pending(model_world.app)

    assert done.state is NoteState.EXTRACTED
    kept = model_world.app.store.reads.get_memory(space_id(model_world.app), note.id)
    assert kept is not None and kept.active and active(model_world.app) == ["Standup is at 9:30"]


def test_a_background_update_retires_the_old_fact_and_the_note(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    app.memories.add_many(who, ["The deploy window is Friday afternoon"], "acme")
    old = app.store.reads.list_memories(MemoryFilter(space_id(app)), 5)[0]
    app.memories.add(who, "deploys moved to thursday", "acme", wait=False)
    model(model_world).facts(fact("The deploy window is Thursday afternoon", old=(0, "updates")))

    [done] = run_pending(app)

    assert done.reason == "replaced by 1 fact, superseding 1 earlier memory"
    offered = model(model_world).calls[0][1]
    assert [c.content for c in offered] == ["The deploy window is Friday afternoon"]
    assert active(app) == ["The deploy window is Thursday afternoon"]
    again = app.store.reads.get_memory(space_id(app), old.id)
    assert again is not None and not again.active


def test_notes_still_pending_are_never_offered_as_candidates(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    app.memories.add_many(who, ["Lunch is at noon"], "acme")
    for text in ("first note about lunch", "second note about lunch"):
        app.memories.add(who, text, "acme", wait=False)
    model(model_world).facts(fact("Lunch moved to 12:30"))
    model(model_world).facts(fact("Lunch is in the kitchen"))

    run_pending(app)

    first_offer, second_offer = (call[1] for call in model(model_world).calls)
    assert [c.content for c in first_offer] == ["Lunch is at noon"]
    assert "first note about lunch" not in [c.content for c in second_offer]


def test_a_note_corrected_before_extraction_is_left_as_the_person_made_it(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    note = app.memories.add(who, NOTE, "acme", wait=False).memories[0]
    app.memories.correct(who, note.id, "Ana leads the mobile team", "acme")

    [done] = run_pending(app)

    assert done.state is NoteState.FLAT and "corrected or forgotten" in (done.reason or "")
    assert model(model_world).calls == []


def test_a_crash_after_the_facts_were_written_settles_the_job_without_writing_again(
    model_world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    app.memories.add(who, NOTE, "acme", wait=False)
    model(model_world).facts(fact("Ana leads the mobile team"), fact("The app ships every two weeks"))

    def crash(*args: object) -> None:
        raise KeyboardInterrupt("the process died here")

    with monkeypatch.context() as patch:
        patch.setattr(notes(app)._jobs, "settle_note_job", crash)
        with pytest.raises(KeyboardInterrupt):
            run_pending(app)

    [done] = run_pending(app)  # the next start: the job is still pending

    assert (done.state, done.reason) == (NoteState.EXTRACTED, "replaced by its facts")
    assert len(model(model_world).calls) == 1
    assert active(app) == ["Ana leads the mobile team", "The app ships every two weeks"]


def test_wait_true_answers_with_the_facts_as_before(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model(model_world).facts(fact("Ana leads the mobile team"), fact("The app ships every two weeks"))
    result = model_world.app.memories.add(who, NOTE, "acme", wait=True)
    assert (result.mode, len(result.memories)) == ("extracted", 2)
    assert notes(model_world.app).pending() == []


def test_without_a_model_wait_false_changes_nothing(world: World) -> None:
    who = world.principal({"acme": "rw"})
    result = world.app.memories.add(who, NOTE, "acme", wait=False)
    assert result.mode == "flat" and world.app.notes is None
    assert "extraction" not in add_json(result)["memories"][0]
    assert add_json(result)["memories"][0]["status"] == "current"


def test_the_worker_extracts_notes_left_pending_and_new_ones_in_the_order_saved(tmp_path: Path) -> None:
    # A file store: the worker's thread and this one write at once (see test_ingestion.py).
    extractor = ScriptedExtractor()
    store = SqliteStore(tmp_path / "memspace.db")
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    first = build(settings, store=store, embedder=HashEmbedder(), clock=StepClock(),
                  extractor=extractor, blobs=MemoryBlobStore())
    first.admin.create_space("acme")
    who: Principal = first.access.operator()
    saved = [first.memories.add(who, f"note {n} about the release", "acme", wait=False).memories[0]
             for n in range(3)]
    # "Restart": a new container on the same store finds the three pending notes.
    app = build(settings, store=store, embedder=HashEmbedder(), clock=StepClock(),
                extractor=extractor, blobs=MemoryBlobStore())
    for n in range(4):
        extractor.facts(fact(f"Release fact {n}"))
    app.worker.start()
    try:
        fresh = app.memories.add(who, "note 3 about the release", "acme", wait=False).memories[0]
        for note in [*saved, fresh]:
            assert wait_settled(app, note.id).state is NoteState.EXTRACTED
    finally:
        app.worker.stop()
    assert [call[0] for call in extractor.calls] == [f"note {n} about the release" for n in range(4)]
    app.close()


def wait_settled(app: Container, memory_id: str, bound_s: float = 30.0) -> NoteJob:
    """Poll until the note's job is settled; the bound only guards against a hang."""
    deadline = time.monotonic() + bound_s
    while True:
        job = job_of(app, memory_id)
        if job.state is not NoteState.PENDING:
            return job
        assert time.monotonic() < deadline, f"note {memory_id} still pending after {bound_s} s"
        time.sleep(0.01)
