"""search_memory's text on each store (present/search_text.py): each memory by the shortest
prefix of its id unique in its space, the whole id in the structured content beside `shortId`,
and a related memory that is also a hit named by its number, never quoted twice."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, Memory
from memspace.domain.ports import WriteBatch
from memspace.present.json import search_json
from memspace.present.text import search_text
from memspace.services.access.access import Principal
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support import builders as b
from tests.support.fakes import HashEmbedder, MemoryBlobStore


@pytest.fixture
def app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    made = build(settings, store=store, embedder=HashEmbedder(), blobs=MemoryBlobStore())
    yield made
    made.search.close()


def crafted(app: Container, slug: str, ids_and_texts: list[tuple[str, str]]) -> list[Memory]:
    """Memories with the ids given, written to the space as they are."""
    sid = app.admin.space(slug).id
    embed = HashEmbedder()
    made = [replace(b.memory(sid, text, embed.embed([text])[0]), id=i) for i, text in ids_and_texts]
    app.store.writes.write(WriteBatch(sid, made))
    return made


def space_with_key(app: Container) -> tuple[str, Principal]:
    slug = f"text-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    return slug, app.access.authenticate(app.admin.create_key(f"a-{slug}", {slug: Access.READWRITE}).raw)


def test_a_search_shows_each_memory_by_its_shortest_unique_prefix(app: Container) -> None:
    slug, who = space_with_key(app)
    head = uuid.uuid4().hex[:8]
    twins = crafted(app, slug, [(head + "1a" + "0" * 22, "The deploy window is Tuesday"),
                                (head + "1b" + "0" * 22, "The deploy window needs two approvals")])
    [alone] = crafted(app, slug, [(uuid.uuid4().hex, "The deploy window closes at noon")])
    found = app.search.search(who, SearchRequest("deploy window", space=slug))
    text, shown = search_text(found), search_json(found)["results"]
    short = {r["id"]: r["shortId"] for r in shown}
    assert short == {twins[0].id: head + "1a", twins[1].id: head + "1b", alone.id: alone.id[:8]}
    for memory_id, prefix in short.items():
        assert f"[{prefix}]" in text and memory_id not in text


def test_a_correction_and_what_it_replaced_are_each_quoted_once(app: Container) -> None:
    slug, who = space_with_key(app)
    old = app.memories.add(who, "The storefront is hosted on Vercel", slug).memories[0]
    new = app.memories.correct(who, old.id, "The storefront is hosted on our Kubernetes cluster",
                               slug, None, "moved in April").memories[0]
    app.memories.add(who, "The storefront caches pages for five minutes", slug)
    found = app.search.search(who, SearchRequest("storefront hosted", space=slug,
                                                 include_inactive=True))
    text = search_text(found)
    numbers = {h.memory.id: n for n, h in enumerate(found.hits, start=1)}
    assert {old.id, new.id} <= set(numbers)
    assert text.count("hosted on Vercel") == text.count("our Kubernetes cluster") == 1, text
    first, second = sorted((numbers[old.id], numbers[new.id]))
    link = [line for line in text.splitlines() if line.strip().startswith(("->", "<-"))]
    assert link == [f"   {'<-' if numbers[new.id] == second else '->'} updates #{second}"], text
    assert f"[superseded by #{numbers[new.id]}]" in text
    assert first < second
