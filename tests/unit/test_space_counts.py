"""Space counts move along with the writes this process commits (stores/space_counts.py)."""

from __future__ import annotations

from memspace.domain.models import RelationType, SpaceStats
from memspace.domain.ports import WriteBatch
from memspace.stores.space_counts import SpaceCounts
from tests.support import builders as b


def test_a_write_from_the_counted_version_moves_the_counts_by_what_it_wrote() -> None:
    space = b.space()
    counts = SpaceCounts()
    counts.keep(space.id, SpaceStats(5, 1, 2, 0, version=7))
    old, new, extra = (b.memory(space.id, t) for t in ("a", "b", "c"))
    correction = WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)],
                            supersede={old.id: new.id})
    counts.advance(space.id, 8, [correction, WriteBatch(space.id, [extra])])
    assert counts.get(space.id) == SpaceStats(6, 2, 3, 0, version=8)


def test_a_write_after_one_this_process_did_not_see_leaves_the_counts_to_be_recounted() -> None:
    space = b.space()
    counts = SpaceCounts()
    counts.keep(space.id, SpaceStats(5, 1, 2, 0, version=7))
    counts.advance(space.id, 9, [WriteBatch(space.id, [b.memory(space.id, "x")])])
    assert counts.get(space.id) == SpaceStats(5, 1, 2, 0, version=7)  # the store recounts at 9
    counts.advance("never-counted", 1, [WriteBatch("never-counted", [])])
    assert counts.get("never-counted") is None
