"""What start-up hands the services' builders beside the store: the store's search paths, the
metrics around its roles, and the model as requests and the consolidation pass each call it."""

from __future__ import annotations

from dataclasses import dataclass, field

from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.graph_port import GraphStore
from memspace.domain.notes import NoteJobStore
from memspace.domain.search_paths import ColdPath, SpaceCache
from memspace.services.consolidation import ModelTurns, RequestModel
from memspace.services.memories import ColdNeighbours
from memspace.services.shared import NoteJobs
from memspace.startup.metrics import Metrics, watched_ports
from memspace.startup.settings import Settings


def build_search_paths(settings: Settings,
                       store: GraphStore) -> tuple[SpaceCache | None, ColdPath | None]:
    """The store's cache under MEMSPACE_CACHE_MB and the store's cold path
    (docs/scaling.md); (None, None) for a store whose reads cannot run beside its writes (an
    in-memory SQLite database: the background load would meet "table is locked"), which
    loads a space on its first search as before."""
    if not store.search.concurrent_reads:
        return None, None
    store.cache.limit(settings.cache_mb * 2**20)
    return store.cache, store.cold


@dataclass
class Ports:
    """The graph store and what the services are handed beside it, as services see them."""

    store: GraphStore
    extractor: FactExtractor | None
    comparer: FactComparer | None  # the model's second look for consolidation passes
    cache: SpaceCache | None
    cold: ColdPath | None
    metrics: Metrics | None
    # Requests' model calls go first; a consolidation pass's calls wait for them (schedule.py).
    turns: ModelTurns = field(default_factory=ModelTurns)

    @property
    def request_model(self) -> FactExtractor | None:
        """The model as requests call it (each call counted while it runs)."""
        return RequestModel(self.extractor, self.turns) if self.extractor is not None else None

    @property
    def note_jobs(self) -> NoteJobStore | None:
        """Notes saved without waiting: only with a model (without one nothing is deferred)."""
        return self.store.note_jobs if self.extractor is not None else None

    @property
    def note_states(self) -> NoteJobs | None:
        """How notes saved without waiting stood, for reads of the past (None without a model)."""
        return self.note_jobs.note_jobs if self.note_jobs is not None else None

    @property
    def cold_reads(self) -> ColdNeighbours | None:
        """The cache with the cold path, where a write reads a space this process does not hold."""
        return (self.cache, self.cold) if self.cache is not None and self.cold is not None else None


def build_ports(settings: Settings, store: GraphStore, extractor: FactExtractor | None,
                comparer: FactComparer | None = None) -> Ports:
    """The store and its search paths; with MEMSPACE_METRICS each role of the store, and the
    extractor, are watched (metrics.py)."""
    cache, cold = build_search_paths(settings, store)
    metrics = Metrics() if settings.metrics else None
    ports = Ports(store=store, extractor=extractor, comparer=comparer, cache=cache, cold=cold,
                  metrics=metrics)
    if metrics is not None:
        ports.store, ports.extractor = watched_ports(metrics, store, extractor)
    return ports
