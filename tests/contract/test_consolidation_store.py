"""The consolidation pass's store role on every store (ConsolidationStore, docs/consolidation.md):
one lease per space, a cursor that only moves forwards, pass records kept whole and only in their
space, links written only where nothing joins two current memories yet, and the undo of a pass
that puts back what a settlement retired; with the settlement's valid_to that as-of reads use."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.conflicts import ConflictKind, RecordedConflict, Settlement, conflict_id
from memspace.domain.consolidation import (
    CONSOLIDATOR,
    ChangeKind,
    PassChange,
    PassCost,
    PassCursor,
    PassRecord,
)
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Memory, MemoryFilter, Relation, RelationType
from memspace.domain.ports import ChangeAfter, WriteBatch
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
EMBED = HashEmbedder()


def _space(store: GraphStore) -> str:
    space = b.space()
    store.directory.create_space(space)
    return space.id


def _memories(store: GraphStore, sid: str, *texts: str) -> list[Memory]:
    made = [b.memory(sid, t, embedding=EMBED.embed([t])[0]) for t in texts]
    store.writes.write(WriteBatch(sid, made))
    return made


def _record(sid: str, pass_id: str, started: datetime, until: int,
            finished: datetime | None = None, after: str = "") -> PassRecord:
    return PassRecord(pass_id, sid, started, since=0, until=until, finished_at=finished,
                      until_after=after)


def _fold(store: GraphStore, sid: str, keep: Memory, old: Memory,
          valid_to: datetime | None = None,
          kind: ConflictKind = ConflictKind.RESTATEMENT) -> RecordedConflict:
    """A pass's fold: `old` superseded by `keep` through the queue's settlement."""
    record = RecordedConflict(conflict_id(sid, kind, (keep.id, old.id)), sid, kind,
                              (keep.id, old.id), "they say the same", CONSOLIDATOR, AT)
    store.conflicts.settle(Settlement(record, keep.id, (old.id,), "folded", CONSOLIDATOR, AT,
                                      {keep.id: keep.version, old.id: old.version},
                                      valid_to=valid_to))
    return record


def _edges(store: GraphStore, sid: str, memory_id: str) -> set[tuple[str, str, RelationType]]:
    return {(r.source_id, r.target_id, r.type)
            for r in store.relations.relations_of(sid, memory_id)}


def test_the_lease_is_one_holder_s_until_it_lapses_or_is_given_back(store: GraphStore) -> None:
    leases = store.consolidation
    sid, other = _space(store), _space(store)
    t = AT

    assert leases.take_lease(sid, "a", t, t + timedelta(minutes=10)) is True
    assert leases.take_lease(sid, "b", t + timedelta(minutes=5), t + timedelta(minutes=15)) is False
    assert leases.take_lease(other, "b", t, t + timedelta(minutes=10)) is True  # its own space
    # Renewed by its holder: still held past the first until.
    assert leases.take_lease(sid, "a", t + timedelta(minutes=5), t + timedelta(minutes=20)) is True
    assert leases.take_lease(sid, "b", t + timedelta(minutes=15), t + timedelta(minutes=25)) is False
    # Lapsed (its until <= now): anyone takes it.
    assert leases.take_lease(sid, "b", t + timedelta(minutes=20), t + timedelta(minutes=30)) is True
    leases.release_lease(sid, "a")  # not a's any more: nothing changes
    assert leases.take_lease(sid, "c", t + timedelta(minutes=21), t + timedelta(minutes=30)) is False
    leases.release_lease(sid, "b")
    assert leases.take_lease(sid, "c", t + timedelta(minutes=21), t + timedelta(minutes=30)) is True
    assert leases.take_lease(other, "c", t + timedelta(minutes=1), t + timedelta(minutes=9)) is False


def test_the_cursor_moves_with_finished_passes_only_and_never_backwards(
        store: GraphStore) -> None:
    passes = store.consolidation
    sid, other = _space(store), _space(store)
    assert passes.cursor(sid) == PassCursor()

    passes.save_pass(_record(sid, f"p1-{sid}", AT, until=5))  # still running
    assert passes.cursor(sid) == PassCursor()
    passes.save_pass(_record(sid, f"p1-{sid}", AT, until=7, finished=AT + timedelta(minutes=1)))
    assert passes.cursor(sid) == PassCursor(7)
    passes.save_pass(_record(sid, f"p0-{sid}", AT - timedelta(hours=1), until=3,
                             finished=AT - timedelta(minutes=30)))  # saved late
    assert passes.cursor(sid) == PassCursor(7)
    passes.save_pass(_record(sid, f"p2-{sid}", AT + timedelta(hours=1), until=12,
                             finished=AT + timedelta(hours=2)))
    assert passes.cursor(sid) == PassCursor(12)
    assert passes.cursor(other) == PassCursor()


def test_the_cursor_can_stop_inside_one_write_and_still_never_moves_back(
        store: GraphStore) -> None:
    passes = store.consolidation
    sid = _space(store)
    at = AT

    def finish(until: int, after: str = "") -> PassCursor:
        nonlocal at
        at += timedelta(minutes=1)
        passes.save_pass(_record(sid, f"p-{at.isoformat()}-{sid}", at, until, at, after))
        return passes.cursor(sid)

    assert finish(7, "m-b") == PassCursor(7, "m-b")  # write 7 read up to memory m-b
    assert finish(7, "m-a") == PassCursor(7, "m-b")  # an earlier memory of it: behind
    assert finish(6) == PassCursor(7, "m-b")  # all of write 6: behind
    assert finish(7, "m-c") == PassCursor(7, "m-c")
    assert finish(7) == PassCursor(7)  # all of write 7
    assert finish(7, "m-z") == PassCursor(7)  # part of it after all of it: behind
    assert finish(8, "m-a") == PassCursor(8, "m-a")
    [last] = passes.list_passes(sid, 1)
    assert (last.start, last.end) == (PassCursor(), PassCursor(8, "m-a"))


def test_a_pass_record_round_trips_is_replaced_by_its_id_and_stays_in_its_space(
        store: GraphStore) -> None:
    passes = store.consolidation
    sid, other = _space(store), _space(store)
    a, c = b.memory(sid, "a"), b.memory(sid, "c")
    changes = (
        PassChange(ChangeKind.RESTATEMENT, "same fact twice", kept="m1", retired=("m2", "m3"),
                   left_at=(2, 4), conflict_id="cf_1"),
        PassChange(ChangeKind.LINK, "extends it", kept=a.id,
                   relation=Relation(a.id, c.id, RelationType.EXTENDS, AT, CONSOLIDATOR,
                                     "same topic")),
        PassChange(ChangeKind.QUEUED, "cannot tell", conflict_id="cf_2", sides=("m4", "m5")),
    )
    cost = PassCost(memories_read=40, groups=3, model_calls=2, prompt_tokens=900,
                    completion_tokens=120, seconds=1.25)
    running = PassRecord(f"pass-a-{sid}", sid, AT, since=3, until=9, changes=changes[:1])
    passes.save_pass(running)
    assert passes.get_pass(sid, running.id) == running

    done = replace(running, changes=changes, cost=cost, finished_at=AT + timedelta(seconds=2))
    passes.save_pass(done)
    assert passes.get_pass(sid, running.id) == done
    later = PassRecord(f"pass-b-{sid}", sid, AT + timedelta(hours=1), since=9, until=11)
    passes.save_pass(later)

    assert passes.list_passes(sid, 10) == [later, done]  # newest started first
    assert passes.list_passes(sid, 1) == [later]
    assert passes.get_pass(other, done.id) is None
    assert passes.list_passes(other, 10) == []
    assert passes.get_pass(sid, "no-such-pass") is None


def test_decided_sees_the_space_s_conflict_records_open_or_settled(store: GraphStore) -> None:
    sid, other = _space(store), _space(store)
    new, old, third = _memories(store, sid, "Deploys run at 10", "Deploys run at ten",
                                "The office opens at 8")
    there = _memories(store, other, "Lunch is at noon", "Lunch is at 12")
    queued = RecordedConflict(
        conflict_id(sid, ConflictKind.REPLACEMENT, (third.id, old.id)), sid,
        ConflictKind.REPLACEMENT, (third.id, old.id), "which holds?", CONSOLIDATOR, AT)
    assert store.conflicts.record(queued) is True
    # The new kinds are kept and listed as they were recorded.
    assert store.conflicts.open_recorded(sid, 10) == [queued]
    elsewhere = RecordedConflict(
        conflict_id(other, ConflictKind.RESTATEMENT, (there[0].id, there[1].id)), other,
        ConflictKind.RESTATEMENT, (there[0].id, there[1].id), "same", CONSOLIDATOR, AT)
    store.conflicts.record(elsewhere)
    folded = _fold(store, sid, new, old)  # settled without being recorded first

    asked = [queued.id, folded.id, elsewhere.id, "cf_unknown"]
    assert store.consolidation.decided(sid, asked) == {queued.id, folded.id}
    assert store.consolidation.decided(other, asked) == {elsewhere.id}
    assert store.consolidation.decided(sid, []) == set()


def test_link_writes_only_between_current_memories_of_the_space_not_yet_joined(
        store: GraphStore) -> None:
    sid, other = _space(store), _space(store)
    a, bb, c, d = _memories(store, sid, "The API runs on port 8080", "The API is written in Go",
                            "The API has a health check", "The API used port 9090")
    (x,) = _memories(store, other, "The API lives elsewhere")
    store.writes.write(WriteBatch(sid, [], [b.relation(bb, a)]))
    store.writes.forget(sid, d.id, "wrong", "test", AT)
    before = store.directory.space_stats(sid)
    other_version = store.directory.space_stats(other).version

    def rel(s: Memory, t: Memory, kind: RelationType = RelationType.EXTENDS) -> Relation:
        return Relation(s.id, t.id, kind, AT, CONSOLIDATOR, "missed by the write")

    asked = [
        rel(a, bb, RelationType.DERIVES),  # joined already, the other way
        rel(c, a),  # written
        rel(a, c, RelationType.DERIVES),  # joined by the one just written
        rel(c, d),  # d is not current
        rel(c, x),  # x is another space's
        rel(x, c),
        rel(c, c),
    ]
    assert store.consolidation.link(sid, asked) == [rel(c, a)]

    assert _edges(store, sid, c.id) == {(c.id, a.id, RelationType.EXTENDS)}
    assert _edges(store, sid, a.id) == {(bb.id, a.id, RelationType.EXTENDS),
                                        (c.id, a.id, RelationType.EXTENDS)}
    assert _edges(store, sid, d.id) == set()
    assert _edges(store, other, x.id) == set()
    after = store.directory.space_stats(sid)
    assert after.version > before.version
    assert after.relations == before.relations + 1
    assert store.directory.space_stats(other).version == other_version


def test_undo_puts_back_what_a_fold_retired_and_removes_what_the_pass_linked(
        store: GraphStore) -> None:
    sid, other = _space(store), _space(store)
    keep, old, moved, topic = _memories(
        store, sid, "Backups run nightly at 02:00", "Backups run every night at 2am",
        "Backups are kept for 30 days", "Backups go to the eu-west bucket")
    probe = EMBED.embed([old.content])[0]
    # The space is held in the cache before the pass, as a serving process holds it.
    assert store.search.vector_search(MemoryFilter(sid), probe, 1)[0].memory.id == old.id
    _fold(store, sid, keep, old, valid_to=keep.created_at)
    _fold(store, sid, keep, moved, kind=ConflictKind.REPLACEMENT)
    linked = store.consolidation.link(
        sid, [Relation(topic.id, keep.id, RelationType.EXTENDS, AT, CONSOLIDATOR, "same topic")])
    assert len(linked) == 1
    folded_old = store.reads.get_memory(sid, old.id)
    assert folded_old is not None and folded_old.version == 2
    assert store.search.vector_search(MemoryFilter(sid), probe, 1)[0].memory.id != old.id
    record = PassRecord(f"pass-{sid}", sid, AT, since=0, until=7, finished_at=AT)
    store.consolidation.save_pass(record)
    before = store.directory.space_stats(sid)
    updates = Relation(keep.id, old.id, RelationType.UPDATES, AT, CONSOLIDATOR)
    at = AT + timedelta(hours=1)

    restored = store.consolidation.undo(
        sid, record.id, {old.id: 2, moved.id: 1}, [*linked, updates], "lead", at,
        "the fold was wrong")

    assert restored == [old.id]  # moved is at version 2, not the 1 the pass left it at
    back = store.reads.get_memory(sid, old.id)
    assert back is not None
    assert (back.active, back.status, back.version) == (True, MemoryStatus.CURRENT, 3)
    assert (back.invalidated_at, back.superseded_by, back.valid_to) == (None, None, None)
    still = store.reads.get_memory(sid, moved.id)
    assert still is not None and (still.active, still.version) == (False, 2)
    changes = store.reads.list_changes(MemoryFilter(sid), 50, ChangeAfter(before.version, ""))
    assert [c.memory.id for c in changes] == [old.id]
    assert changes[0].stamp > before.version
    mark = store.marks.marks_of(sid, [old.id])[-1]
    assert (mark.kind, mark.status, mark.version, mark.by, mark.reason, mark.at) == (
        "restored", "current", 3, "lead", "the fold was wrong", at)
    assert _edges(store, sid, topic.id) == set()
    assert _edges(store, sid, old.id) == set()
    assert _edges(store, sid, moved.id) == {(keep.id, moved.id, RelationType.UPDATES)}
    # What the store keeps in step with the current memories follows: the held vectors, the
    # counts.
    assert store.search.vector_search(MemoryFilter(sid), probe, 1)[0].memory.id == old.id
    stats = store.directory.space_stats(sid)
    assert (stats.active_memories, stats.inactive_memories, stats.relations) == (
        before.active_memories + 1, before.inactive_memories - 1, before.relations - 2)
    undone = store.consolidation.get_pass(sid, record.id)
    assert undone is not None and (undone.undone_at, undone.undone_by) == (at, "lead")

    with pytest.raises(Conflict):
        store.consolidation.undo(sid, record.id, {}, [], "lead", at, "again")
    with pytest.raises(NotFound):
        store.consolidation.undo(sid, "no-such-pass", {}, [], "lead", at, "x")
    with pytest.raises(NotFound):
        store.consolidation.undo(other, record.id, {}, [], "lead", at, "x")


def test_undo_leaves_a_memory_whose_text_came_back_meanwhile(store: GraphStore) -> None:
    sid = _space(store)
    keep, old = _memories(store, sid, "Releases are tagged vX.Y", "Releases get a vX.Y tag")
    _fold(store, sid, keep, old)
    record = PassRecord(f"pass-{sid}", sid, AT, since=0, until=3, finished_at=AT)
    store.consolidation.save_pass(record)
    again = _memories(store, sid, old.content)[0]  # saved again after the fold

    assert store.consolidation.undo(sid, record.id, {old.id: 2}, [], "lead", AT, "undo") == []
    left = store.reads.get_memory(sid, old.id)
    assert left is not None and not left.active
    assert store.reads.find_active_by_hash(sid, old.content_hash) == \
        store.reads.get_memory(sid, again.id)


def test_a_settlement_s_valid_to_ends_what_as_of_reads_show(store: GraphStore) -> None:
    sid = _space(store)
    keep, old, other_keep, other_old = _memories(
        store, sid, "The team uses Postgres 16", "The team uses Postgres 15",
        "Standup is at 9:30", "Standup is at 9:00")
    ends = AT + timedelta(days=1)
    _fold(store, sid, keep, old, valid_to=ends, kind=ConflictKind.REPLACEMENT)
    _fold(store, sid, other_keep, other_old)  # no valid_to: left as it was

    gone = store.reads.get_memory(sid, old.id)
    assert gone is not None and gone.valid_to == ends
    untouched = store.reads.get_memory(sid, other_old.id)
    assert untouched is not None and untouched.valid_to is None

    def as_of(at: datetime) -> set[str]:
        where = MemoryFilter(sid, at=TimeSlice(as_of=at))
        return {m.id for m in store.reads.list_memories(where, 50)}

    assert old.id in as_of(ends - timedelta(hours=1))
    assert old.id not in as_of(ends + timedelta(hours=1))
    assert keep.id in as_of(ends + timedelta(hours=1))
