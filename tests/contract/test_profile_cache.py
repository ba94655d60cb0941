"""A space's profile (services/search/context.py) reads its conflicts and newest memories again only
after a write to the space; until then it answers from what it read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import RelationType
from memspace.domain.ports import WriteBatch
from memspace.services.access.access import AccessService
from memspace.services.search.context import ProfileService
from memspace.services.shared.clock import SystemClock
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

EMBED = HashEmbedder()


class Counting:
    """One role of the store, counting the calls of `names` (the reads a profile would skip)."""

    def __init__(self, role: object, names: set[str]) -> None:
        self.role, self.names, self.reads = role, names, 0

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.role, name)
        if name not in self.names:
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.reads += 1
            return value(*args, **kwargs)

        return counted


def test_the_profile_is_reread_only_after_a_write_and_then_shows_it(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    old = b.memory(space.id, "Deploys happen on Fridays", EMBED.embed(["f"])[0])
    store.writes.write(WriteBatch(space.id, [old]))
    reads, relations = Counting(store.reads, {"list_memories"}), Counting(store.relations, {"open_conflicts"})
    roles = SimpleNamespace(directory=store.directory, reads=reads, relations=relations)
    profiles = ProfileService(roles, AccessService(store.directory, SystemClock()))  # type: ignore[arg-type]

    first = profiles.profile(space)
    before = reads.reads + relations.reads
    assert [m.id for m in first.recent] == [old.id] and before == 2
    again = profiles.profile(space)
    assert (reads.reads + relations.reads) == before  # nothing changed: nothing read again
    assert again.recent == first.recent and again.open_conflicts == first.open_conflicts

    new = b.memory(space.id, "Deploys happen on Thursdays", EMBED.embed(["t"])[0])
    store.writes.write(WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)]))
    after = profiles.profile(space)
    assert (reads.reads + relations.reads) > before
    assert [m.id for m in after.recent][:2] == [new.id, old.id]
    assert [(r.source_id, r.target_id) for r in after.open_conflicts] == [(new.id, old.id)]
    assert after.stats.active_memories == 2 and after.stats.version > first.stats.version
