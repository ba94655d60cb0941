"""Short ids, on each store: a memory is shown by the shortest prefix of its id unique in its
space (at least 8 characters), and every call that takes a memory id takes that prefix; a prefix
that starts two ids is refused with both, and one of another space answers like a missing id
(services/shared/id_prefixes.py, MemoryReadStore.ids_with_prefix)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.errors import AmbiguousId, NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, Memory
from memspace.domain.ports import WriteBatch
from memspace.present.text import memory_text
from memspace.services.access.access import Principal
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
    slug = f"short-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    return slug, app.access.authenticate(app.admin.create_key(f"a-{slug}", {slug: Access.READWRITE}).raw)


def test_ids_are_found_by_prefix_within_their_space_only(store: GraphStore) -> None:
    mine, other = b.space(), b.space()
    store.directory.create_space(mine)
    store.directory.create_space(other)
    head = uuid.uuid4().hex[:8]
    a, c = head + "a" * 24, head + "c" * 24
    written = [replace(b.memory(mine.id, f"fact {n}"), id=i) for n, i in enumerate((a, c))]
    store.writes.write(WriteBatch(mine.id, written))
    store.writes.write(WriteBatch(other.id, [replace(b.memory(other.id, "theirs"), id=head + "b" * 24)]))
    store.writes.forget(mine.id, c, "gone", "test", b.BASE)  # inactive ids are ids too
    assert sorted(store.reads.ids_with_prefix(mine.id, [head], 10)) == [a, c]
    assert store.reads.ids_with_prefix(mine.id, [head], 1) == [a]
    assert store.reads.ids_with_prefix(mine.id, [head + "c", head + "b"], 10) == [c]
    assert store.reads.ids_with_prefix(mine.id, [], 10) == []


def test_every_memory_call_takes_a_short_id(app: Container) -> None:
    slug, who = space_with_key(app)
    saved = app.memories.add(who, "Releases are tagged from main", slug).memories[0]
    short = saved.id[:8]
    assert app.memories.get(who, short, slug).memory.id == saved.id
    _, read, missing = app.memories.get_many(who, [short, "f" * 12], slug)
    assert [m.id for m in read] == [saved.id] and missing == ["f" * 12]
    fixed = app.memories.correct(who, short, "Releases are tagged from the release branch",
                                 slug, None, "moved to release branches", 1)
    new_id = fixed.memories[0].id
    assert app.lifecycle.mark(who, new_id[:8], "disputed", "not everyone agrees", slug).memory.id == new_id
    _, versions = app.lifecycle.revisions(who, new_id[:8], slug)
    assert [v.memory.id for v in versions] == [saved.id, new_id]
    assert app.memories.forget(who, new_id[:9], reason="wrong", space=slug).id == new_id


def test_an_ambiguous_prefix_is_refused_with_the_candidates(app: Container) -> None:
    slug, who = space_with_key(app)
    head = uuid.uuid4().hex[:8]
    crafted(app, slug, [(head + "1a" + "0" * 22, "The on-call rota is weekly"),
                        (head + "1b" + "0" * 22, "The on-call rota starts on Monday")])
    with pytest.raises(AmbiguousId) as refused:
        app.memories.get(who, head, slug)
    assert refused.value.candidates == [head + "1a", head + "1b"]
    assert refused.value.code == "ambiguous_id" and '{"memoryId": "' + head + '1a"}' in refused.value.message
    assert app.memories.get(who, head + "1b", slug).memory.content == "The on-call rota starts on Monday"


def test_a_prefix_of_another_space_answers_like_a_missing_one(app: Container) -> None:
    slug, who = space_with_key(app)
    theirs, _ = space_with_key(app)
    [foreign] = crafted(app, theirs, [(uuid.uuid4().hex, "Their secret plan")])
    missing = uuid.uuid4().hex[:10]
    with pytest.raises(NotFound) as for_foreign:
        app.memories.get(who, foreign.id[:10], slug)
    with pytest.raises(NotFound) as for_missing:
        app.memories.get(who, missing, slug)
    told = str(for_foreign.value).replace(foreign.id[:10], "X")
    assert told == str(for_missing.value).replace(missing, "X")


def test_a_document_is_found_by_its_short_id_within_its_space_only(app: Container) -> None:
    slug, who = space_with_key(app)
    theirs, _ = space_with_key(app)
    head = uuid.uuid4().hex[:8]
    for space, suffix in ((slug, "1a"), (slug, "1b"), (theirs, "2c")):
        sid = app.admin.space(space).id
        app.store.documents.add_document(replace(b.document(sid), id=head + suffix + "0" * 22))
    sid = app.admin.space(slug).id
    assert sorted(app.store.documents.ids_with_prefix(sid, [head], 10)) == [
        head + "1a" + "0" * 22, head + "1b" + "0" * 22]
    assert app.documents.get(who, head + "1b", slug).id == head + "1b" + "0" * 22
    with pytest.raises(AmbiguousId) as refused:
        app.documents.get(who, head, slug)
    assert refused.value.candidates == [head + "1a", head + "1b"]
    assert '{"documentId": "' + head + '1a"}' in refused.value.message
    with pytest.raises(NotFound) as foreign:
        app.documents.get(who, head + "2c", slug)
    with pytest.raises(NotFound) as missing:
        app.documents.get(who, head + "3d", slug)
    assert (str(foreign.value).replace(head + "2c", "X")
            == str(missing.value).replace(head + "3d", "X"))


def test_a_conflict_and_its_sides_are_named_by_short_ids(app: Container) -> None:
    slug, who = space_with_key(app)
    doubted = app.memories.add(who, "The load balancer drains in 30 seconds", slug).memories[0].id
    app.lifecycle.mark(who, doubted[:8], "disputed", "the runbook says 60", slug)
    [conflict] = app.conflicts.listing(who, slug).page.items
    settled = app.conflicts.resolve(who, conflict.id[:12], doubted[:8], None,
                                    "the runbook was out of date", None, slug)
    assert settled.conflict.id == conflict.id
    assert app.conflicts.listing(who, slug).page.items == []


def test_a_code_chunk_is_read_by_its_short_id_within_its_space_only(app: Container) -> None:
    slug, who = space_with_key(app)
    theirs, _ = space_with_key(app)
    head = uuid.uuid4().hex[:8]
    for space, suffix in ((slug, "1a"), (slug, "1b"), (theirs, "2c")):
        sid = app.admin.space(space).id
        repo = Repo(uuid.uuid4().hex, sid, f"r-{uuid.uuid4().hex[:8]}", "/tmp/x", b.BASE)
        app.store.code_index.add_repo(repo)
        chunk = CodeChunk(head + suffix + "0" * 14, sid, repo.id, "a.py", 1, 3, "f", "python",
                          f"def f(): return '{suffix}'")
        app.store.code_index.apply_files(repo, [IndexedFile("a.py", suffix, "python", (chunk,))],
                                         [], b.BASE, None)
    sid = app.admin.space(slug).id
    assert sorted(app.store.code_index.chunk_ids_with_prefix(sid, [head], 10)) == [
        head + "1a" + "0" * 14, head + "1b" + "0" * 14]
    assert app.code.get_chunk(who, head + "1b", slug).chunk.body == "def f(): return '1b'"
    with pytest.raises(AmbiguousId) as refused:
        app.code.get_chunk(who, head, slug)
    assert refused.value.candidates == [head + "1a", head + "1b"]
    with pytest.raises(NotFound) as foreign:
        app.code.get_chunk(who, head + "2c", slug)
    with pytest.raises(NotFound) as missing:
        app.code.get_chunk(who, head + "3d", slug)
    assert (str(foreign.value).replace(head + "2c", "X")
            == str(missing.value).replace(head + "3d", "X"))


def test_get_memory_names_the_memory_its_replacement_and_their_link_by_short_ids(
        app: Container) -> None:
    slug, who = space_with_key(app)
    old = app.memories.add(who, "The staging site is staging.acme.test", slug).memories[0].id
    new = app.memories.correct(who, old, "The staging site is stage.acme.test", slug, None,
                               "renamed").memories[0].id
    text = memory_text(app.memories.get(who, old[:8], slug))
    assert f"[{old[:8]}] v1" in text and f"[superseded by {new[:8]}]" in text
    assert f"Replaced by {new[:8]} at" in text and f"{new[:8]} UPDATES {old[:8]}" in text
    assert old not in text and new not in text  # whole ids are the structured content's
