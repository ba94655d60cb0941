"""The conflict queue's store role on every store (ConflictStore, docs/conflicts.md): records
kept once and only in their space, and a settlement that changes its memories, their history
and the record in one transaction, or nothing when a memory moved on."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.conflicts import (
    ConflictKind,
    Proposal,
    RecordedConflict,
    Settlement,
    conflict_id,
)
from memspace.domain.errors import NotFound, StaleVersion
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus, MemoryType
from memspace.domain.models import Memory, RelationType
from memspace.domain.ports import WriteBatch
from memspace.domain.text import content_hash
from tests.support import builders as b

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _space(store: GraphStore) -> str:
    space = b.space()
    store.directory.create_space(space)
    return space.id


def _pair(store: GraphStore, sid: str) -> tuple[Memory, Memory]:
    old = b.memory(sid, "The cache holds entries for 10 minutes")
    new = b.memory(sid, "Invoices are archived after 7 years")
    store.writes.write(WriteBatch(sid, [old, new]))
    return new, old


def _record(sid: str, new: Memory, old: Memory, at: datetime = AT,
            kind: ConflictKind = ConflictKind.SUGGESTED_UPDATE) -> RecordedConflict:
    return RecordedConflict(conflict_id(sid, kind, (new.id, old.id)), sid, kind,
                            (new.id, old.id), "a model said so", "agent-a", at)


def _updates(store: GraphStore, sid: str, memory_id: str) -> list[tuple[str, str]]:
    return [(r.source_id, r.target_id) for r in store.relations.relations_of(sid, memory_id)
            if r.type is RelationType.UPDATES]


def test_a_record_is_kept_once_newest_first_and_only_in_its_space(store: GraphStore) -> None:
    conflicts = store.conflicts
    sid, other = _space(store), _space(store)
    new, old = _pair(store, sid)
    third = b.memory(sid, "Standups are at 09:30")
    store.writes.write(WriteBatch(sid, [third]))
    first = _record(sid, new, old)
    second = _record(sid, third, old, AT + timedelta(minutes=5), ConflictKind.CONTRADICTION)

    assert conflicts.record(first) is True
    assert conflicts.record(first) is False  # a second report of it is not a second entry
    assert conflicts.record(second) is True
    assert [c.id for c in conflicts.open_recorded(sid, 10)] == [second.id, first.id]
    assert conflicts.open_recorded(sid, 10)[1] == first
    assert conflicts.open_recorded(other, 10) == []
    assert conflicts.get_recorded(other, first.id) is None
    assert conflicts.get_recorded(sid, first.id) == first


def test_a_settlement_supersedes_records_history_and_closes_the_record(store: GraphStore) -> None:
    conflicts, marks = store.conflicts, store.marks
    sid = _space(store)
    new, old = _pair(store, sid)
    record = _record(sid, new, old)
    conflicts.record(record)
    before = store.directory.space_stats(sid).version

    conflicts.settle(Settlement(record, new.id, (old.id,), "the newer note is right", "lead",
                                AT + timedelta(hours=1), {new.id: 1, old.id: 1}))

    gone = store.reads.get_memory(sid, old.id)
    assert gone is not None and not gone.active
    assert (gone.status, gone.superseded_by) == (MemoryStatus.SUPERSEDED, new.id)
    assert _updates(store, sid, old.id) == [(new.id, old.id)]
    history = marks.marks_of(sid, [new.id, old.id])
    assert {(m.memory_id, m.kind, m.status, m.by) for m in history} == {
        (new.id, "resolved", "current", "lead"), (old.id, "resolved", "superseded", "lead")}
    assert all("the newer note is right" in m.reason and record.id in m.reason for m in history)
    assert conflicts.open_recorded(sid, 10) == []
    assert conflicts.get_recorded(sid, record.id) is None
    assert store.directory.space_stats(sid).version > before


def test_a_stale_settlement_changes_nothing(store: GraphStore) -> None:
    conflicts, marks = store.conflicts, store.marks
    sid = _space(store)
    new, old = _pair(store, sid)
    record = _record(sid, new, old)
    conflicts.record(record)
    marks.mark(sid, old.id, MemoryStatus.DISPUTED, "looks wrong", "agent-b", AT)  # now v2

    with pytest.raises(StaleVersion):
        conflicts.settle(Settlement(record, new.id, (old.id,), "x", "lead", AT,
                                    {new.id: 1, old.id: 1}))
    still = store.reads.get_memory(sid, old.id)
    assert still is not None and still.active and still.status is MemoryStatus.DISPUTED
    assert _updates(store, sid, old.id) == []
    assert [c.id for c in conflicts.open_recorded(sid, 10)] == [record.id]
    assert all(m.kind == "marked" for m in marks.marks_of(sid, [new.id, old.id]))
    with pytest.raises(NotFound):
        conflicts.settle(Settlement(record, new.id, ("no-such-memory",), "x", "lead", AT))


def test_nothing_kept_leaves_it_historical_and_a_dispute_kept_is_current(
        store: GraphStore) -> None:
    conflicts, marks = store.conflicts, store.marks
    sid = _space(store)
    wrong, doubted = _pair(store, sid)
    marks.mark(sid, doubted.id, MemoryStatus.DISPUTED, "is it 10?", "agent-b", AT)
    disputed = RecordedConflict(conflict_id(sid, ConflictKind.DISPUTED, (doubted.id,)), sid,
                                ConflictKind.DISPUTED, (doubted.id,), "marked disputed",
                                "agent-b", AT)
    conflicts.settle(Settlement(disputed, doubted.id, (), "measured: it is 10", "lead", AT,
                                {doubted.id: 2}))
    kept = store.reads.get_memory(sid, doubted.id)
    assert kept is not None and (kept.status, kept.version, kept.active) == (
        MemoryStatus.CURRENT, 3, True)

    lone = _record(sid, wrong, doubted, kind=ConflictKind.CONTRADICTION)
    conflicts.settle(Settlement(lone, None, (wrong.id,), "neither: it was a typo", "lead", AT))
    gone = store.reads.get_memory(sid, wrong.id)
    assert gone is not None and (gone.active, gone.status, gone.superseded_by) == (
        False, MemoryStatus.HISTORICAL, None)


def test_settling_two_heads_adds_no_second_edge_between_them(store: GraphStore) -> None:
    conflicts = store.conflicts
    sid = _space(store)
    old = b.memory(sid, "We ship on Fridays")
    store.writes.write(WriteBatch(sid, [old]))
    new = b.memory(sid, "We ship on Thursdays")
    # An UPDATES whose old end stayed current: a supersession that never finished.
    store.writes.write(WriteBatch(sid, [new], [b.relation(new, old, RelationType.UPDATES)]))
    assert [(r.source_id, r.target_id) for r in store.relations.open_conflicts(sid, 10)] == [
        (new.id, old.id)]
    heads = RecordedConflict(conflict_id(sid, ConflictKind.TWO_HEADS, (new.id, old.id)), sid,
                             ConflictKind.TWO_HEADS, (new.id, old.id), "both current", "a", AT)
    conflicts.settle(Settlement(heads, old.id, (new.id,), "Fridays still", "lead", AT,
                                {new.id: 1, old.id: 1}))
    assert _updates(store, sid, old.id) == [(new.id, old.id)]
    assert store.relations.open_conflicts(sid, 10) == []
    back = store.reads.get_memory(sid, new.id)
    assert back is not None and back.superseded_by == old.id


def test_a_proposal_is_open_until_its_text_is_stored(store: GraphStore) -> None:
    conflicts = store.conflicts
    sid = _space(store)
    existing = replace(b.memory(sid, "Sessions use opaque tokens"), type=MemoryType.DECISION)
    store.writes.write(WriteBatch(sid, [existing]))
    text = "Sessions use JWTs"
    proposal = Proposal(text, MemoryType.DECISION, "agent-b", AT, content_hash(text), "auth")
    record = RecordedConflict(
        conflict_id(sid, ConflictKind.WRITE_CONFLICT, (existing.id,), proposal.content_hash),
        sid, ConflictKind.WRITE_CONFLICT, (existing.id,), "refused", "agent-b", AT, proposal)
    conflicts.record(record)
    assert conflicts.open_recorded(sid, 10) == [record]
    store.writes.write(WriteBatch(sid, [b.memory(sid, text)]))
    assert conflicts.open_recorded(sid, 10) == []
