"""knownAt shows each memory as its record stood at T (docs/time.md): a correction, a relation,
a status mark and a forget made after T leave no trace on any surface read at T — search_memory
(with its profile), get_context, listMemories, getMemory, getMemories and the graph view's data,
in their wire form and their text."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memspace.domain.errors import NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, Relation, RelationType
from memspace.domain.notes import NoteState
from memspace.domain.ports import WriteBatch
from memspace.present.json import context_json, graph_json, memory_detail_json, search_json
from memspace.present.records import memory_json
from memspace.present.text import graph_text, memory_text, search_text
from memspace.services.access.access import Principal
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.contract.test_time_travel import SetClock, _app, day
from tests.support.fakes import HashEmbedder, MemoryBlobStore, ScriptedExtractor, fact

T = day(3)  # the instant read; everything "after T" happens on day 4


@pytest.fixture
def app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    yield from _app(store, Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]


def _space(app: Container) -> tuple[str, Principal]:
    slug = f"known-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    return slug, app.access.authenticate(
        app.admin.create_key(f"auditor-{slug}", {slug: Access.READWRITE}).raw)


def _at(app: Container, when: datetime) -> None:
    clock: SetClock = app.clock_for_test  # type: ignore[attr-defined]
    clock.at = when


def surfaces(app: Container, who: Principal, slug: str, ids: list[str],
             known_at: datetime = T) -> dict[str, Any]:
    """Every surface read at `known_at`, as wire data and as text."""
    found = app.search.search(who, SearchRequest(
        query="pager owner rotation deploys standup", space=slug, limit=20, known_at=known_at))
    _, page = app.memories.list(who, slug, limit=50, known_at=known_at)
    brief = app.briefings.brief(who, space=slug, known_at=known_at)
    graph = app.graphs.graph(who, slug, known_at=known_at)
    _, many, missing = app.memories.get_many(who, ids, slug, known_at=known_at)
    details = [app.memories.get(who, i, slug, known_at=known_at) for i in ids if i not in missing]
    data = {"search": search_json(found), "list": [memory_json(m) for m in page.items],
            "context": context_json(brief), "graph": graph_json(graph),
            "many": [memory_json(m) for m in many],
            "get": [memory_detail_json(d) for d in details]}
    text = "\n".join([search_text(found), brief.text, graph_text(graph),
                      *(memory_text(d) for d in details)])
    return {"data": data, "json": json.dumps(data), "text": text, "missing": missing}


def shown_as_current(seen: dict[str, Any], memory_id: str) -> list[dict[str, Any]]:
    """Every wire record of `memory_id` on every surface; each must read as current."""
    data = seen["data"]
    records = [h for h in data["search"]["results"] if h["id"] == memory_id]
    records += [n for h in data["search"]["results"] for n in h["relatedMemories"]
                if n["id"] == memory_id]
    records += [m for m in data["list"] + data["many"] + data["graph"]["nodes"]
                if m["id"] == memory_id]
    records += [d["memory"] for d in data["get"] if d["memory"]["id"] == memory_id]
    records += [p for d in data["get"] for p in d["timeline"] if p["id"] == memory_id]
    for record in records:
        assert record["status"] == "current", record
        assert record.get("active", True) is True, record
        assert record["version"] == 1 if "version" in record else True, record
        for later in ("supersededBy", "invalidatedAt", "invalidatedBy", "validTo",
                      "supersededAt", "forgottenAt", "forgetReason"):
            assert record.get(later) is None, (later, record)
    return records


def test_a_correction_made_after_t_is_on_no_surface_read_at_t(app: Container) -> None:
    slug, who = _space(app)
    _at(app, day(1))
    dana = app.memories.add(who, "The on-call pager is owned by Dana.", slug).memories[0].id
    rota = app.memories.add(who, "The pager rotation is weekly.", slug).memories[0].id
    _at(app, day(4))
    kenji = app.memories.correct(who, dana, "The on-call pager is owned by Kenji.", slug,
                                 reason="handover").memories[0].id
    _at(app, day(9))
    seen = surfaces(app, who, slug, [dana, rota, kenji])
    assert seen["missing"] == [kenji]
    assert len(shown_as_current(seen, dana)) >= 6  # search, list, many, graph, get, timeline
    for trace in (kenji, "Kenji", "handover", '"superseded"', "superseded by", "Replaced by"):
        assert trace not in seen["json"] and trace not in seen["text"], trace
    assert [len(d["timeline"]) for d in seen["data"]["get"]] == [1, 1]
    assert "describes the space today" in seen["text"]
    assert "profile" not in seen["data"]["search"]  # today's counts count Kenji
    assert "openConflicts" not in seen["data"]["context"]["meta"]
    now = surfaces(app, who, slug, [dana], day(5))  # after the correction: it shows
    assert now["data"]["get"][0]["memory"]["supersededBy"] == kenji
    # The versions of the fact: one at T, current; both after the correction.
    _, then = app.lifecycle.revisions(who, dana, slug, known_at=T)
    assert [(v.memory.id, v.memory.status, v.memory.active) for v in then] == [
        (dana, "current", True)]
    with pytest.raises(NotFound):
        app.lifecycle.revisions(who, kenji, slug, known_at=T)
    _, later = app.lifecycle.revisions(who, kenji, slug, known_at=day(5))
    assert [(v.memory.id, v.memory.status) for v in later] == [(dana, "superseded"),
                                                               (kenji, "current")]


def test_a_relation_recorded_after_t_is_on_no_surface_read_at_t(app: Container,
                                                                  store: GraphStore) -> None:
    slug, who = _space(app)
    _at(app, day(1))
    pager = app.memories.add(who, "The on-call pager is owned by Dana.", slug).memories[0].id
    rota = app.memories.add(who, "The pager rotation is weekly.", slug).memories[0].id
    space_id = app.access.resolve(who, slug).space.id
    store.writes.write(WriteBatch(space_id, [], [Relation(
        rota, pager, RelationType.EXTENDS, day(4), who.actor, "linked later")], at=day(4)))
    _at(app, day(9))
    seen = surfaces(app, who, slug, [pager, rota])
    data = seen["data"]
    assert data["graph"]["edges"] == []
    assert all(d["relations"] == [] and d["relatedMemories"] == [] for d in data["get"])
    assert all(h["relatedMemories"] == [] for h in data["search"]["results"])
    for trace in ("EXTENDS", "linked later"):
        assert trace not in seen["json"] and trace not in seen["text"], trace
    later = surfaces(app, who, slug, [pager, rota], day(5))
    assert len(later["data"]["graph"]["edges"]) == 1


def test_a_mark_made_after_t_is_on_no_surface_read_at_t(app: Container) -> None:
    slug, who = _space(app)
    _at(app, day(1))
    freeze = app.memories.add(who, "Deploys freeze on Fridays.", slug).memories[0].id
    _at(app, day(2))
    rota = app.memories.add(who, "The pager rotation is weekly.", slug).memories[0].id
    app.lifecycle.mark(who, rota, "disputed", "nobody follows it", slug)
    _at(app, day(4))
    app.lifecycle.mark(who, freeze, "disputed", "we deployed last Friday", slug)
    app.lifecycle.mark(who, rota, "current", "agreed again", slug)
    _at(app, day(9))
    seen = surfaces(app, who, slug, [freeze, rota])
    assert len(shown_as_current(seen, freeze)) >= 6
    for trace in ("we deployed last Friday", "agreed again"):
        assert trace not in seen["json"] and trace not in seen["text"], trace
    # A mark made before T holds at T, with the version it gave.
    rotas = [d["memory"] for d in seen["data"]["get"] if d["memory"]["id"] == rota]
    assert [(m["status"], m["version"]) for m in rotas] == [("disputed", 2)]
    assert [(m["status"], m["version"]) for m in seen["data"]["list"] if m["id"] == rota] == [
        ("disputed", 2)]
    short = freeze[:8]  # the text names it by its short id
    assert f"[{short}] v1" in seen["text"] and f"[{short}] v2" not in seen["text"]
    # A status filter at T judges each record by its status then, not today's.
    for wanted, expected in ((["current"], [freeze]), (["disputed"], [rota])):
        _, page = app.memories.list(who, slug, statuses=wanted, known_at=T)
        assert [m.id for m in page.items] == expected, wanted


def test_a_forget_made_after_t_is_on_no_surface_read_at_t(app: Container) -> None:
    slug, who = _space(app)
    _at(app, day(1))
    nine = app.memories.add(who, "The standup is at 9:30.", slug).memories[0].id
    rota = app.memories.add(who, "The pager rotation is weekly.", slug).memories[0].id
    _at(app, day(2))
    ten = app.memories.correct(who, nine, "The standup is at 10:00.", slug).memories[0].id
    _at(app, day(4))
    app.memories.forget(who, ten, reason="wrong room booked", space=slug)
    app.memories.forget(who, rota, reason="rotation retired", space=slug)
    _at(app, day(9))
    seen = surfaces(app, who, slug, [nine, ten, rota])
    # Forgotten text never comes back, at any time (docs/time.md), nor does the forget show.
    assert seen["missing"] == [ten, rota]
    for trace in ("wrong room booked", "rotation retired", "forgotten", "forgetReason",
                  "10:00", "weekly", "historical"):
        assert trace not in seen["json"] and trace not in seen["text"], trace
    [nine_read] = seen["data"]["get"]
    assert [p["id"] for p in nine_read["timeline"]] == [nine]
    assert "profile" not in seen["data"]["search"]  # today's counts leave both out


def test_a_note_still_waiting_for_its_facts_at_t_shows_pending(store: GraphStore,
                                                               tmp_path: Path) -> None:
    # Saved without waiting on day 2, its facts extracted on day 4: at T it was a pending note,
    # active, which its row no longer says (the facts superseded it, the job is settled).
    extractor = ScriptedExtractor()
    clock = SetClock(day(2))
    app = build(Settings(_env_file=None, data_dir=tmp_path), store=store,  # type: ignore[call-arg]
                embedder=HashEmbedder(), blobs=MemoryBlobStore(), clock=clock, extractor=extractor)
    try:
        slug, who = _space(app)
        note = app.memories.add(who, "Ana leads mobile and the app ships every two weeks", slug,
                                wait=False).memories[0]
        clock.at = day(4)
        extractor.facts(fact("Ana leads mobile"), fact("The app ships every two weeks"))
        assert app.notes is not None
        [job] = [j for j in app.notes.pending() if j.memory_id == note.id]
        assert app.notes.process(job).state is NoteState.EXTRACTED

        def records(known_at: datetime) -> list[dict[str, Any]]:
            _, page = app.memories.list(who, slug, limit=50, known_at=known_at)
            graph = app.graphs.graph(who, slug, known_at=known_at)
            found = app.search.search(who, SearchRequest(query="who leads mobile", space=slug,
                                                         known_at=known_at))
            detail = memory_detail_json(app.memories.get(who, note.id, slug, known_at=known_at))
            return [r for r in [*(memory_json(m) for m in page.items), *graph_json(graph)["nodes"],
                                *search_json(found)["results"], detail["memory"]]
                    if r["id"] == note.id]

        then = records(T)
        assert len(then) == 4
        assert all((r["status"], r.get("active", True)) == ("pending", True) for r in then), then
        clock.at = day(6)
        later = records(day(5))  # after the extraction: replaced by its facts
        assert later and all(r["status"] == "superseded" for r in later), later
    finally:
        app.search.close()
