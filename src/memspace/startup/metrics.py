"""Prometheus metrics (`MEMSPACE_METRICS=true`, served at /metrics), hooked in at the edges.

Nothing in domain/ or services/ knows about them: the container wraps the ports (each role of the
store and each role beside it, counting their errors; the fact extractor) and the methods of
the services whose results are counted (`meter_services`), and the MCP server times each
tool call. Labels are closed sets (tool names, modes, statuses, error kinds): no memory
content, no space, no key or actor ever becomes a label or a value.

    memspace_tool_call_duration_seconds{tool,status}  histogram; status "ok" or the error code
    memspace_memory_adds_total{mode,status}           mode extracted | flat | fallback | pending
    memspace_note_extractions_total{outcome}          a pending note settled: extracted | fallback
    memspace_model_calls_total{outcome}               outcome ok | failed
    memspace_model_tokens_total{kind}                 kind prompt | completion
    memspace_ingestion_queue_depth                    documents waiting for the worker
    memspace_documents_processed_total{outcome}       outcome done | failed | interrupted
    memspace_store_errors_total{kind}                 kind: the domain error's class name
    memspace_vector_cache_spaces / _vectors / _bytes  the in-process vector cache of the store
    memspace_consolidation_passes_total{outcome}      a pass over one space: done | busy | dry
    memspace_consolidation_changes_total{kind}        what a pass changed: domain.consolidation.ChangeKind
    memspace_consolidation_memories_read_total        memories a pass read (its window)
    memspace_consolidation_groups_total               groups a pass judged
    memspace_consolidation_model_calls_total          passes' model calls (memspace_model_calls_total too)
    memspace_consolidation_model_tokens_total{kind}   kind prompt | completion
    memspace_consolidation_pass_duration_seconds      histogram of a pass's seconds
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics

from memspace.domain.errors import ExtractionFailed, MemspaceError
from memspace.domain.extraction import Candidate, Extraction, FactExtractor
from memspace.domain.graph_port import ROLES, GraphStore
from memspace.domain.models import Document, DocumentStatus, Usage
from memspace.domain.notes import NoteJob, NoteState
from memspace.services.access import Principal
from memspace.services.consolidation import PassReport
from memspace.services.ingestion import IngestionService
from memspace.services.memories import AddRequest, AddResult, MemoryService, NoteExtraction

# Tool calls take ~5 ms (a listing) to a model's timeout (30 s by default).
# A pass without a model takes well under a second; one with a model, seconds a group.
PASS_BUCKETS = (0.05, 0.25, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0)
TOOL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The instruments of one app, in a registry of its own (several apps may share a process)."""

    def __init__(self) -> None:
        # One `*_created` timestamp series per labelled child doubles the page for nothing a
        # dashboard uses (rate() needs none). The switch is process-wide in prometheus-client.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.tool_seconds = Histogram("memspace_tool_call_duration_seconds",
                                      "MCP tool calls by tool and outcome", ["tool", "status"],
                                      buckets=TOOL_BUCKETS, registry=r)
        self.adds = Counter("memspace_memory_adds", "Memory adds by mode and status",
                            ["mode", "status"], registry=r)
        self.notes = Counter("memspace_note_extractions", "Notes saved without waiting, settled "
                             "in the background", ["outcome"], registry=r)
        self.model_calls = Counter("memspace_model_calls", "Fact-extraction model calls",
                                   ["outcome"], registry=r)
        self.model_tokens = Counter("memspace_model_tokens", "Model tokens spent", ["kind"],
                                    registry=r)
        self.queue_depth = Gauge("memspace_ingestion_queue_depth",
                                 "Documents waiting for the ingestion worker", registry=r)
        self.documents = Counter("memspace_documents_processed", "Documents processed by outcome",
                                 ["outcome"], registry=r)
        self.store_errors = Counter("memspace_store_errors", "Errors raised by the store, by kind",
                                    ["kind"], registry=r)
        self.cache_spaces = Gauge("memspace_vector_cache_spaces", "Spaces in the vector cache",
                                  registry=r)
        self.cache_vectors = Gauge("memspace_vector_cache_vectors", "Vectors in the vector cache",
                                   registry=r)
        self.cache_bytes = Gauge("memspace_vector_cache_bytes",
                                 "Bytes held by the vector cache's matrices", registry=r)
        self.passes = Counter("memspace_consolidation_passes", "Consolidation passes by outcome",
                              ["outcome"], registry=r)
        self.pass_changes = Counter("memspace_consolidation_changes",
                                    "Changes consolidation passes made, by kind", ["kind"],
                                    registry=r)
        self.pass_read = Counter("memspace_consolidation_memories_read",
                                 "Memories consolidation passes read", registry=r)
        self.pass_groups = Counter("memspace_consolidation_groups",
                                   "Groups consolidation passes judged", registry=r)
        self.pass_calls = Counter("memspace_consolidation_model_calls",
                                  "Model calls consolidation passes made", registry=r)
        self.pass_tokens = Counter("memspace_consolidation_model_tokens",
                                   "Model tokens consolidation passes spent", ["kind"], registry=r)
        self.pass_seconds = Histogram("memspace_consolidation_pass_duration_seconds",
                                      "Seconds a consolidation pass took", buckets=PASS_BUCKETS,
                                      registry=r)

    def watch_queue(self, depth: Callable[[], int]) -> None:
        self.queue_depth.set_function(lambda: float(depth()))

    def watch_vector_cache(self, stats: Callable[[], tuple[int, int, int]]) -> None:
        """`stats` gives (spaces, vectors, bytes), read at each scrape."""
        self.cache_spaces.set_function(lambda: float(stats()[0]))
        self.cache_vectors.set_function(lambda: float(stats()[1]))
        self.cache_bytes.set_function(lambda: float(stats()[2]))

    def tool_call(self, tool: str, status: str, seconds: float) -> None:
        self.tool_seconds.labels(tool, status).observe(seconds)

    def added(self, result: AddResult, model_configured: bool) -> None:
        if result.status == "replayed":
            return  # the first call was counted
        mode: str = result.mode or ""
        if mode == "flat" and model_configured and result.status == "created":
            mode = "fallback"  # a model was asked (or meant to be) and the note went in whole
        self.adds.labels(mode, result.status).inc()

    def settled(self, job: NoteJob) -> None:
        if job.state is NoteState.EXTRACTED:
            self.notes.labels("extracted").inc()
        elif job.state is NoteState.FLAT:
            self.notes.labels("fallback").inc()

    def model_spent(self, usage: Usage, failed: bool) -> None:
        """A finished extraction: all its calls count as failed when it failed in the end."""
        self.model_calls.labels("failed" if failed else "ok").inc(usage.llm_calls)
        self.model_tokens.labels("prompt").inc(usage.prompt_tokens)
        self.model_tokens.labels("completion").inc(usage.completion_tokens)

    def processed(self, document: Document) -> None:
        outcome = {DocumentStatus.DONE: "done", DocumentStatus.FAILED: "failed"}.get(
            document.status, "interrupted")
        self.documents.labels(outcome).inc()

    def consolidated(self, report: PassReport) -> None:
        """A finished pass (or one that found the space busy)."""
        self.passes.labels("busy" if report.busy else "dry" if report.dry_run else "done").inc()
        for change in report.changes:
            self.pass_changes.labels(change.kind.value).inc()
        cost = report.cost
        self.pass_read.inc(cost.memories_read)
        self.pass_groups.inc(cost.groups)
        self.pass_calls.inc(cost.model_calls)
        self.pass_tokens.labels("prompt").inc(cost.prompt_tokens)
        self.pass_tokens.labels("completion").inc(cost.completion_tokens)
        if not report.busy:
            self.pass_seconds.observe(cost.seconds)

    def store_error(self, exc: BaseException) -> None:
        self.store_errors.labels(type(exc).__name__ if isinstance(exc, MemspaceError)
                                 else "unexpected").inc()


def _counted(metrics: Metrics, call: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(call)
    def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except Exception as exc:
            metrics.store_error(exc)
            raise

    return counted


class WatchedRole:
    """One role object of the store (or beside it), counting the errors its calls raise; its
    methods are the real role's, each wrapped on first use."""

    def __init__(self, inner: object, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value
        counted = _counted(self._metrics, value)
        self.__dict__[name] = counted  # later calls skip __getattr__
        return counted


R = TypeVar("R")


def watched(role: R, metrics: Metrics) -> R:
    """`role` as the services should see it when metrics are on."""
    return cast(R, WatchedRole(role, metrics))


class WatchedStore:
    """The store with each of its roles watched (WatchedRole), and its own calls counted too;
    `backend`, `kit` and the search paths (`cache`, `cold`) are the real store's."""

    def __init__(self, inner: GraphStore, metrics: Metrics) -> None:
        self._inner, self._metrics = inner, metrics
        self.backend, self.kit = inner.backend, inner.kit
        self.cache, self.cold = inner.cache, inner.cold
        self.vector_cache = getattr(inner, "vector_cache", None)  # its sizes, on /metrics
        flush = getattr(inner, "flush_vector_index", None)  # Neo4j's: the benches wait on it
        if flush is not None:
            self.flush_vector_index = flush
        states = getattr(inner, "index_states", None)  # Neo4j's: /readyz and doctor read it
        if states is not None:
            self.index_states = states
        for name in ROLES:
            setattr(self, name, watched(getattr(inner, name), metrics))

    def _call(self, name: str, *args: Any) -> Any:
        return _counted(self._metrics, getattr(self._inner, name))(*args)

    def store_info(self, key: str) -> str | None:
        return cast(str | None, self._call("store_info", key))

    def set_store_info(self, key: str, value: str) -> None:
        self._call("set_store_info", key, value)

    def holds_memories(self) -> bool:
        return bool(self._call("holds_memories"))

    def ping(self) -> None:
        self._call("ping")

    def close(self) -> None:
        self._call("close")


class WatchedExtractor:
    """The fact extractor, counting its calls and tokens (failed ones too)."""

    def __init__(self, inner: FactExtractor, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        try:
            extraction = self._inner.extract(content, candidates, speaker, observed_at)
        except ExtractionFailed as exc:
            self._metrics.model_spent(exc.usage, True)
            raise
        self._metrics.model_spent(extraction.usage, False)
        return extraction


def meter_services(metrics: Metrics, memories: MemoryService, ingestion: IngestionService,
                   notes: NoteExtraction | None, model_configured: bool) -> None:
    """Count what the services finish, from outside them: each one's method is wrapped on the
    instance (calls the service makes to itself are counted too), its code left as it is.
    Adds by mode (a dry run is not an add), documents by outcome, notes as they settle."""
    submit, process = memories.submit, ingestion.process

    def counted_submit(principal: Principal, request: AddRequest, *, wait: bool = True,
                       dry_run: bool = False) -> AddResult:
        result = submit(principal, request, wait=wait, dry_run=dry_run)
        if not dry_run:
            metrics.added(result, model_configured)
        return result

    def counted_process(*args: Any, **kwargs: Any) -> Document:
        document = process(*args, **kwargs)
        metrics.processed(document)
        return document

    setattr(memories, "submit", counted_submit)  # noqa: B010 -- the instance's, not the class's
    setattr(ingestion, "process", counted_process)  # noqa: B010
    if notes is not None:
        settle = notes.process

        def counted_settle(job: NoteJob) -> NoteJob:
            before = job.state
            settled = settle(job)
            if before is NoteState.PENDING and settled.state is not NoteState.PENDING:
                metrics.settled(settled)
            return settled

        setattr(notes, "process", counted_settle)  # noqa: B010


def watched_ports(metrics: Metrics, store: GraphStore,
                  extractor: FactExtractor | None) -> tuple[GraphStore, FactExtractor | None]:
    """The store and the extractor as the services should see them when metrics are on."""
    return (cast(GraphStore, WatchedStore(store, metrics)),
            WatchedExtractor(extractor, metrics) if extractor is not None else None)
