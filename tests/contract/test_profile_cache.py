"""A space's profile (services/context.py) reads its conflicts and newest memories again only
after a write to the space; until then it answers from what it read."""

from __future__ import annotations

from typing import Any

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import RelationType
from memspace.domain.ports import WriteBatch
from memspace.services.access import AccessService
from memspace.services.clock import SystemClock
from memspace.services.context import ProfileService
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

EMBED = HashEmbedder()


class Counting:
    """The store, counting the reads a profile would skip."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.reads = 0

    def open_conflicts(self, space_id: str, limit: int) -> Any:
        self.reads += 1
        return self.store.open_conflicts(space_id, limit)

    def list_memories(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return self.store.list_memories(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_the_profile_is_reread_only_after_a_write_and_then_shows_it(store: GraphStore) -> None:
    space = b.space()
    store.create_space(space)
    old = b.memory(space.id, "Deploys happen on Fridays", EMBED.embed(["f"])[0])
    store.write(WriteBatch(space.id, [old]))
    counting = Counting(store)
    profiles = ProfileService(counting, AccessService(store, SystemClock()))  # type: ignore[arg-type]

    first = profiles.profile(space)
    reads = counting.reads
    assert [m.id for m in first.recent] == [old.id] and reads == 2
    again = profiles.profile(space)
    assert counting.reads == reads  # nothing changed: nothing read again
    assert again.recent == first.recent and again.open_conflicts == first.open_conflicts

    new = b.memory(space.id, "Deploys happen on Thursdays", EMBED.embed(["t"])[0])
    store.write(WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)]))
    after = profiles.profile(space)
    assert counting.reads > reads
    assert [m.id for m in after.recent][:2] == [new.id, old.id]
    assert [(r.source_id, r.target_id) for r in after.open_conflicts] == [(new.id, old.id)]
    assert after.stats.active_memories == 2 and after.stats.version > first.stats.version
