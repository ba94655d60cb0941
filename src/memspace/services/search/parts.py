"""The search package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memspace.domain.embedder import Embedder
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.domain.search_paths import ColdPath, SpaceCache
from memspace.services.access import AccessService
from memspace.services.memories import TurnFeatures
from memspace.services.search.context import ProfilePorts, ProfileService
from memspace.services.search.search import SearchPorts, SearchService
from memspace.services.shared import NoteJobs


@dataclass(frozen=True)
class SearchParts:
    search: SearchService
    profiles: ProfileService  # the space profile shown with a search


def search_parts(store: GraphStore, embedder: Embedder, access: AccessService, clock: Clock, *,
                 max_query_chars: int, quarantines: Callable[[str], bool],
                 features: TurnFeatures, cache: SpaceCache | None, cold: ColdPath | None,
                 note_states: NoteJobs | None) -> SearchParts:
    """`quarantines`: whether a space keeps suspicious memories out of search (the write
    guard's policy); `features`: the conversation features ranking uses; `cache` and `cold`:
    the spaces held in memory and the store's own indexes for the others (docs/scaling.md);
    `note_states`: how notes saved without waiting stood, for reads at knownAt."""
    profiles = ProfileService(roles_for(ProfilePorts, store), access)
    search = SearchService(roles_for(SearchPorts, store), embedder, access, profiles,
                           max_query_chars, quarantines, features, cache, cold, clock,
                           store.marks, note_states)
    return SearchParts(search, profiles)
