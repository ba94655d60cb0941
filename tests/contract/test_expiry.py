"""Memories that expire, on every store: the expiry stored and read back, and
LifecycleStore.expire_due retiring what is due as of its expiry (docs/lifecycle.md#expiry)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import WriteBatch
from tests.support import builders as b

# builders.memory records memories from 2026-03-01 on, a minute apart.
DUE = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 9, 1, tzinfo=UTC)
NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _space(store: GraphStore) -> str:
    space = b.space()
    store.directory.create_space(space)
    return space.id


def _expiring(sid: str, text: str, at: datetime | None) -> Memory:
    return replace(b.memory(sid, text), expires_at=at)


def _ids(store: GraphStore, where: MemoryFilter) -> set[str]:
    return {m.id for m in store.reads.list_memories(where, 50)}


def test_an_expiry_is_stored_and_read_back(store: GraphStore) -> None:
    sid = _space(store)
    offset = datetime(2026, 6, 30, 17, 0, tzinfo=UTC) + timedelta(microseconds=123)
    kept, plain = _expiring(sid, "The staging freeze lasts until June", offset), \
        b.memory(sid, "Staging runs on k3s")
    store.writes.write(WriteBatch(sid, [kept, plain]))

    got = store.reads.get_memory(sid, kept.id)
    assert got == kept and got is not None and got.expires_at == offset
    other = store.reads.get_memory(sid, plain.id)
    assert other is not None and other.expires_at is None
    [listed] = [m for m in store.reads.list_memories(MemoryFilter(sid), 10) if m.id == kept.id]
    assert listed.expires_at == offset


def test_expire_due_retires_only_the_due_memories_of_that_space(store: GraphStore) -> None:
    sid, other = _space(store), _space(store)
    due = _expiring(sid, "The office is closed for the holiday", DUE)
    not_yet = _expiring(sid, "The freeze ends in September", LATER)
    plain = b.memory(sid, "Deploys need two approvals")
    elsewhere = _expiring(other, "The other team's holiday closure", DUE)
    store.writes.write(WriteBatch(sid, [due, not_yet, plain]))
    store.writes.write(WriteBatch(other, [elsewhere]))
    version = store.directory.space_stats(sid).version

    [gone] = store.marks.expire_due(sid, NOW, "consolidator", "expired", 10)

    assert gone.id == due.id
    assert (gone.active, gone.status, gone.version) == (False, MemoryStatus.HISTORICAL, 2)
    assert gone.invalidated_at == DUE and gone.valid_to == DUE and gone.expires_at == DUE
    assert (gone.forget_reason, gone.forgotten_by) == ("expired", "consolidator")
    assert store.reads.get_memory(sid, due.id) == gone
    assert _ids(store, MemoryFilter(sid)) == {not_yet.id, plain.id}
    assert _ids(store, MemoryFilter(other)) == {elsewhere.id}
    stats = store.directory.space_stats(sid)
    assert (stats.version, stats.active_memories) == (version + 1, 2)

    [mark] = store.marks.marks_of(sid, [due.id])
    assert (mark.kind, mark.status, mark.by, mark.reason, mark.version, mark.at) == (
        "expired", "historical", "consolidator", "expired", 2, DUE)
    feed = store.reads.list_changes(MemoryFilter(sid), 10)
    assert feed[-1].memory.id == due.id and feed[-1].stamp == version + 1


def test_reads_of_the_past_show_it_until_its_expiry(store: GraphStore) -> None:
    sid = _space(store)
    due = _expiring(sid, "The office is closed for the holiday", DUE)
    store.writes.write(WriteBatch(sid, [due]))
    store.marks.expire_due(sid, NOW, "consolidator", "expired", 10)
    before, after = DUE - timedelta(hours=1), DUE + timedelta(hours=1)

    for at in (TimeSlice(as_of=before), TimeSlice(known_at=before),
               TimeSlice(as_of=before, known_at=after)):
        assert _ids(store, MemoryFilter(sid, at=at)) == {due.id}, at
    for at in (TimeSlice(as_of=DUE), TimeSlice(as_of=after), TimeSlice(known_at=after)):
        assert _ids(store, MemoryFilter(sid, at=at)) == set(), at


def test_a_second_call_changes_nothing_and_the_limit_holds(store: GraphStore) -> None:
    sid = _space(store)
    first = _expiring(sid, "The first closure", DUE - timedelta(days=1))
    second = _expiring(sid, "The second closure", DUE)
    store.writes.write(WriteBatch(sid, [first, second]))

    assert [m.id for m in store.marks.expire_due(sid, NOW, "consolidator", "expired", 1)] == [
        first.id]
    assert [m.id for m in store.marks.expire_due(sid, NOW, "consolidator", "expired", 5)] == [
        second.id]
    version = store.directory.space_stats(sid).version
    assert store.marks.expire_due(sid, NOW, "consolidator", "expired", 5) == []
    assert store.directory.space_stats(sid).version == version
    assert len(store.marks.marks_of(sid, [first.id, second.id])) == 2


def test_a_forgotten_memory_with_an_expiry_stays_erased_from_the_past(store: GraphStore) -> None:
    sid = _space(store)
    secret = _expiring(sid, "The temporary password is hunter2", DUE)
    store.writes.write(WriteBatch(sid, [secret]))
    store.writes.forget(sid, secret.id, "a leaked secret", "test", DUE - timedelta(days=1))

    assert store.marks.expire_due(sid, NOW, "consolidator", "expired", 10) == []
    at = TimeSlice(as_of=DUE - timedelta(days=2))
    assert _ids(store, MemoryFilter(sid, at=at)) == set()


def test_search_stops_finding_a_memory_once_it_expired(store: GraphStore) -> None:
    sid = _space(store)
    due = replace(b.memory(sid, "The office is closed for the holiday", [1.0, 0.0, 0.0]),
                  expires_at=DUE)
    kept = b.memory(sid, "The office opens at nine", [0.8, 0.6, 0.0])
    store.writes.write(WriteBatch(sid, [due, kept]))
    probe = [1.0, 0.0, 0.0]
    assert [h.memory.id for h in store.search.vector_search(MemoryFilter(sid), probe, 5)] == [
        due.id, kept.id]

    store.marks.expire_due(sid, NOW, "consolidator", "expired", 10)

    assert [h.memory.id for h in store.search.vector_search(MemoryFilter(sid), probe, 5)] == [
        kept.id]
