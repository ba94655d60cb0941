"""A space as a graph: the newest memories and the relations between them (for the graph view)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.graph_port import WithHandoffs, WithReads, WithRelations
from memspace.domain.models import Handoff, Memory, MemoryFilter, Relation
from memspace.domain.ports import Clock
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.shared import (
    KnownView,
    NoteJobs,
    SystemClock,
    clamp_limit,
    past_record,
    time_slice,
)

# The graph view was measured smooth at 500 nodes; beyond that a picture stops informing.
MAX_NODES = 2_000


@dataclass(frozen=True)
class GraphView:
    space: str  # slug
    nodes: tuple[Memory, ...]  # newest first
    edges: tuple[Relation, ...]  # every relation among the nodes
    truncated: bool  # the space holds more memories than were drawn
    latest_handoff: Handoff | None
    at: TimeSlice | None = None  # the slice drawn (docs/time.md); None: current facts


class GraphViewPorts(WithReads, WithRelations, WithHandoffs, Protocol):
    """The store roles the graph view reads."""


class GraphService:
    def __init__(self, store: GraphViewPorts, access: AccessService,
                 clock: Clock | None = None, marks: LifecycleStore | None = None,
                 notes: NoteJobs | None = None) -> None:
        self._store = store
        self._view = KnownView(marks, notes)  # at knownAt: nodes and edges as they stood then
        self._clock = clock or SystemClock()
        self._access = access

    def graph(self, principal: Principal, space: str | None = None, limit: int = 500,
              include_inactive: bool = True, as_of: str | datetime | None = None,
              known_at: str | datetime | None = None) -> GraphView:
        """Up to `limit` newest memories of the space, every relation among them, and the
        space's latest handoff (shown in the view's detail panel). `as_of` / `known_at` draw
        the memories of that time slice only (docs/time.md); with `known_at`, each node and
        edge as the record stood then, and no handoff."""
        target = self._access.resolve(principal, space)
        size = clamp_limit(limit, MAX_NODES)
        at = time_slice(as_of, known_at, self._clock)
        where = MemoryFilter(target.space.id, include_inactive=include_inactive, at=at)
        memories = self._store.reads.list_memories(where, size + 1)
        truncated = len(memories) > size
        memories = memories[:size]
        memories = self._view.memories(target.space.id, memories, at)
        ids = [m.id for m in memories]
        edges = self._view.relations(
            self._store.relations.relations_among(target.space.id, ids), ids, at)
        # The latest handoff is today's: a read of the past record leaves it out.
        handoff = None if past_record(at) else self._store.handoffs.latest_handoff(
            target.space.id)
        return GraphView(target.space.slug, tuple(memories), tuple(edges), truncated, handoff, at)
