"""With a model, the facts an add extracts carry the add's expiry, whether the add waits for
them or the worker extracts them later (docs/lifecycle.md#expiry)."""

from __future__ import annotations

from datetime import timedelta

from memspace.domain.models import MemoryFilter
from memspace.services.memories import AddRequest
from tests.support.fakes import ScriptedExtractor, fact
from tests.unit.conftest import World

NOTE = "Ana leads mobile this sprint and the app ships on Friday"


def _facts(extractor: ScriptedExtractor | None) -> None:
    assert extractor is not None
    extractor.facts(fact("Ana leads mobile this sprint", "person"),
                    fact("The mobile app ships on Friday", "process"))


def test_the_facts_of_an_add_that_waits_carry_its_expiry(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    _facts(model_world.extractor)
    now = model_world.clock.now()
    added = model_world.app.memories.submit(who, AddRequest(NOTE, "acme", forget_after="2w"))

    assert added.mode == "extracted" and len(added.memories) == 2
    [expiry] = {m.expires_at for m in added.memories}  # the add's one expiry, on every fact
    assert expiry is not None and now < expiry - timedelta(weeks=2) < model_world.clock.now()


def test_the_facts_extracted_later_carry_the_notes_expiry(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    app = model_world.app
    at = "2099-06-30T17:00:00+02:00"
    [note] = app.memories.submit(who, AddRequest(NOTE, "acme", expires_at=at), wait=False).memories
    assert note.expires_at is not None and note.expires_at.isoformat() == "2099-06-30T15:00:00+00:00"
    _facts(model_world.extractor)
    notes = app.notes
    assert notes is not None

    [done] = [notes.process(job) for job in notes.pending()]

    space = app.store.directory.get_space_by_slug("acme")
    assert done.reason == "replaced by 2 facts" and space is not None
    facts = app.store.reads.list_memories(MemoryFilter(space.id), 10)
    assert sorted(m.content for m in facts) == ["Ana leads mobile this sprint",
                                                "The mobile app ships on Friday"]
    assert {m.expires_at for m in facts} == {note.expires_at}

