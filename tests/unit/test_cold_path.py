"""A replica's memory budget (MEMSPACE_CACHE_MB): spaces held least recently used out first, a
space too large never held, and a cold space answered from the store while it loads in the
background (docs/scaling.md)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memspace.domain.models import Access
from memspace.services.access.access import Principal
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores import cache_budget, space_reads, vector_cache
from memspace.stores.cache_budget import MIN_ROW_BYTES, CacheBudget
from memspace.stores.space_cache import CacheRole
from memspace.stores.sqlite import SqliteStore
from memspace.stores.vector_cache import VectorCache
from tests.support.fakes import HashEmbedder, MemoryBlobStore, ScriptedExtractor, StepClock, fact


def test_the_budget_drops_the_least_recently_used_space_first() -> None:
    budget = CacheBudget(100)
    assert budget.used("a", 40) == [] and budget.used("b", 40) == []
    assert budget.used("a", 40) == []  # a is now the most recent
    assert budget.used("c", 40) == ["b"]
    assert budget.held_bytes == 80 and not budget.too_large("b")
    assert budget.used("huge", 150) == ["huge"]  # never held, and remembered
    assert budget.too_large("huge") and budget.held_bytes == 80


def test_room_is_made_before_a_load_not_after_it() -> None:
    budget = CacheBudget(100)
    assert budget.used("a", 40) == [] and budget.used("b", 40) == []
    assert budget.make_room(10) == []  # fits beside both
    assert budget.make_room(30) == ["a"]  # the least recently used goes first
    assert budget.held_bytes == 40 and budget.used("c", 30) == []
    assert CacheBudget(None).make_room(10**12) == []


def test_no_budget_holds_everything() -> None:
    budget = CacheBudget(None)
    assert [budget.used(str(n), 10**9) for n in range(5)] == [[]] * 5
    assert not budget.full()


def _app(tmp_path: Path, cache_mb: int) -> Container:
    settings = Settings(_env_file=None, cache_mb=cache_mb)  # type: ignore[call-arg]
    return build(settings, store=SqliteStore(tmp_path / "m.db"), embedder=HashEmbedder(),
                 clock=StepClock(), blobs=MemoryBlobStore())


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Container]:
    made = _app(tmp_path, 64)
    yield made
    made.store.close()


def _who(app: Container, spaces: list[str]) -> Principal:
    key = app.admin.create_key("agent", {slug: Access.READWRITE for slug in spaces})
    return app.access.authenticate(key.raw)


def _warmed(cache: CacheRole, poll_s: float = 10.0) -> None:
    assert cache.idle(poll_s)


def test_a_cold_space_is_answered_by_the_store_then_warms_in_the_background(
        app: Container) -> None:
    app.admin.create_space("acme")
    who = _who(app, ["acme"])
    for text in ("Deploys need two approvals", "The cafeteria opens at eight",
                 "Rollbacks need one approval"):
        app.memories.add(who, text)
    cache = app.search._cache
    assert isinstance(cache, CacheRole)
    space_id = app.store.directory.list_spaces()[0].id
    # the adds read close memories (the restatement check) on the store: nothing held yet
    assert not app.store.vector_cache.holds(space_id)
    ask = SearchRequest(query="how many approvals do deploys need")
    cold = app.search.search(who, ask)
    assert cold.path == "cold"
    _warmed(cache)
    assert app.store.vector_cache.holds(space_id)
    warm = app.search.search(who, ask)
    assert warm.path == "warm"
    assert [(h.memory.id, round(h.score, 6), h.matched_by) for h in cold.hits] == \
        [(h.memory.id, round(h.score, 6), h.matched_by) for h in warm.hits]
    assert all(0.0 <= h.score <= 1.0 for h in cold.hits)
    # a write after warming is found on the next search, warm
    app.memories.add(who, "Hotfixes need three approvals")
    again = app.search.search(who, ask)
    assert again.path == "warm" and "Hotfixes need three approvals" in [
        h.memory.content for h in again.hits]


def test_spaces_past_the_budget_leave_least_recently_used_first(tmp_path: Path) -> None:
    app = _app(tmp_path, 64)
    try:
        slugs = ["one", "two", "three"]
        for slug in slugs:
            app.admin.create_space(slug)
        who = _who(app, slugs)
        for slug in slugs:
            for n in range(20):
                app.memories.add(who, f"{slug} fact number {n} about deploys", space=slug)
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        held = app.store.vector_cache
        ids = {s.slug: s.id for s in app.store.directory.list_spaces()}
        assert not any(held.holds(space_id) for space_id in ids.values())  # adds load nothing
        for slug in slugs:
            assert app.search.search(who, SearchRequest(query="deploys", space=slug)).path == "cold"
            _warmed(cache)
            if slug == "one":  # room for two spaces of this size, not three
                held.budget.budget_bytes = int(held.budget.held_bytes * 2.5)
        # searched as often as the spaces it would push out: not read in
        assert held.holds(ids["one"]) and held.holds(ids["two"]) and not held.holds(ids["three"])
        assert app.search.search(who, SearchRequest(query="deploys", space="three")).path == "cold"
        _warmed(cache)  # searched more often now: in, and the least recently used goes
        assert held.budget.held_bytes <= held.budget.budget_bytes
        assert held.holds(ids["two"])
        assert held.holds(ids["three"]) and not held.holds(ids["one"])
        assert app.search.search(who, SearchRequest(query="deploys", space="one")).path == "cold"
    finally:
        app.store.close()


def test_a_space_larger_than_the_budget_is_never_held(tmp_path: Path) -> None:
    app = _app(tmp_path, 0)
    try:
        app.admin.create_space("acme")
        who = _who(app, ["acme"])
        app.memories.add(who, "Deploys need two approvals")
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        for _ in range(3):
            found = app.search.search(who, SearchRequest(query="deploys"))
            assert found.path == "cold" and found.hits
            _warmed(cache)
        assert app.store.vector_cache.stats()[0] == 0
        assert app.store.vector_cache.budget.too_large(app.store.directory.list_spaces()[0].id)
    finally:
        app.store.close()


def test_a_space_counted_past_the_budget_is_not_read_at_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting a space's memories is enough to know it cannot fit: it is never read whole
    only to be dropped (such a read takes the process far past its budget)."""
    app = _app(tmp_path, 64)
    try:
        for slug in ("small", "large"):
            app.admin.create_space(slug)
        who = _who(app, ["small", "large"])
        for n in range(40):
            app.memories.add(who, f"large fact {n} about deploys", space="large")
        for n in range(5):
            app.memories.add(who, f"small fact {n} about deploys", space="small")
        held = app.store.vector_cache
        held.budget.budget_bytes = 30 * MIN_ROW_BYTES  # 40 memories cannot fit, 5 can
        ids = {s.slug: s.id for s in app.store.directory.list_spaces()}
        read: list[str] = []
        vectors_after = app.store.search.vectors_after

        def recorded(space_id: str, after_seq: int, limit: int | None = None) -> object:
            read.append(space_id)
            return vectors_after(space_id, after_seq, limit)

        monkeypatch.setattr(app.store.search, "vectors_after", recorded)
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        for slug in ("large", "small"):
            assert app.search.search(who, SearchRequest(query="deploys", space=slug)).hits
            _warmed(cache)
        assert held.budget.too_large(ids["large"]) and not held.holds(ids["large"])
        assert ids["large"] not in read
        assert held.holds(ids["small"]) and ids["small"] in read
    finally:
        app.store.close()


class _Rows:
    """One space of `n` memories (seq 1..n) with random vectors; records each read's limit."""

    def __init__(self, n: int) -> None:
        rng = np.random.default_rng(3)
        self.matrix = rng.standard_normal((n, 64)).astype(np.float32)
        self.reads: list[tuple[int, int | None]] = []

    def vector_version(self, space_id: str) -> int:
        return 1

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> list[tuple[int, object, str, str, str]]:
        self.reads.append((after_seq, limit))
        return [(i + 1, self.matrix[i].tobytes(), "general", f"term{i % 7}", f"text {i}")
                for i in range(after_seq, len(self.matrix))][:limit]

    def memory_count(self, space_id: str) -> int:
        return len(self.matrix)

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        return []


def test_a_load_reads_a_space_in_bounded_batches_and_stops_once_past_the_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(space_reads, "LOAD_ROWS", 50)
    source = _Rows(230)
    whole = VectorCache()
    whole.load(source, "s")
    assert whole.holds("s") and whole.stats()[1] == 230
    assert source.reads == [(0, 50), (50, 50), (100, 50), (150, 50), (200, 50)]
    first_hundred = VectorCache()
    first_hundred.load(_Rows(100), "s")  # the same first 100 memories, read the same way
    bounded = VectorCache()
    bounded.budget.budget_bytes = first_hundred.budget.held_bytes - 1
    for module in (cache_budget, vector_cache):  # the count alone does not tell
        monkeypatch.setattr(module, "MIN_ROW_BYTES", 1)
    source.reads.clear()
    bounded.load(source, "s")
    assert not bounded.holds("s") and bounded.budget.too_large("s")
    # stopped after the batch that went past (not read to the end)
    assert source.reads == [(0, 50), (50, 50)]
    assert bounded.budget.held_bytes == 0


def test_a_full_cache_admits_a_space_searched_more_often_than_what_it_pushes_out(tmp_path: Path) -> None:
    app = _app(tmp_path, 64)
    try:
        slugs = ["held", "once", "twice"]
        for slug in slugs:
            app.admin.create_space(slug)
        who = _who(app, slugs)
        for slug in slugs:
            for n in range(20):
                app.memories.add(who, f"{slug} fact number {n} about deploys", space=slug)
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        held = app.store.vector_cache
        ids = {s.slug: s.id for s in app.store.directory.list_spaces()}
        ask = SearchRequest(query="deploys", space="held")
        assert app.search.search(who, ask).path == "cold"  # room: loaded on the first
        _warmed(cache)
        assert held.holds(ids["held"])
        held.budget.budget_bytes = held.budget.held_bytes  # full now
        for slug in ("once", "twice"):
            assert app.search.search(who, SearchRequest(query="deploys", space=slug)).path == "cold"
            _warmed(cache)
        assert held.holds(ids["held"])  # nothing searched once pushed it out
        assert not held.holds(ids["once"]) and not held.holds(ids["twice"])
        assert app.search.search(who, SearchRequest(query="deploys", space="twice")).path == "cold"
        _warmed(cache)
        assert held.holds(ids["twice"]) and not held.holds(ids["held"])
    finally:
        app.store.close()


def test_idle_reports_a_load_that_does_not_finish(tmp_path: Path) -> None:
    app = _app(tmp_path, 64)
    try:
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        started = time.monotonic()
        assert cache.idle(0.1)  # nothing queued
        assert time.monotonic() - started < 5
    finally:
        app.store.close()


class _TimedLoads:
    """A cache whose loads take `took` seconds on the role's clock, and say when they ran."""

    def __init__(self) -> None:
        self.budget = CacheBudget(None)
        self.now = 0.0
        self.took = {"a": 0.3, "b": 1_000.0}
        self.ran: list[tuple[str, float, float]] = []  # space, began, ended (monotonic)

    def holds(self, space_id: str) -> bool:
        return False

    def would_admit(self, space_id: str) -> bool:
        return True

    def load(self, source: object, space_id: str) -> None:
        began = time.monotonic()
        self.now += self.took[space_id]
        self.ran.append((space_id, began, time.monotonic()))


def test_the_loader_rests_after_each_load_in_proportion_and_stops_at_once_on_close() -> None:
    """A load of t seconds is followed by a rest of t (1 - LOAD_SHARE) / LOAD_SHARE before
    the next one: loading takes at most that share of the loader's time; closing ends a rest."""
    from memspace.stores import space_cache

    loads = _TimedLoads()
    role = CacheRole(loads, object(), clock=lambda: loads.now)  # type: ignore[arg-type]
    rest = 0.3 * (1 - space_cache.LOAD_SHARE) / space_cache.LOAD_SHARE
    role.warm_later("a")
    role.warm_later("b")
    assert role.idle(30.0)
    assert [space for space, _, _ in loads.ran] == ["a", "b"]
    assert loads.ran[1][1] - loads.ran[0][2] >= rest * 0.95
    # b "took" 1,000 s: its rest would outlast the test, unless close ends it
    role.close()
    assert role._thread is not None and not role._thread.is_alive()


def test_context_and_a_model_add_read_a_cold_space_from_the_store_not_inside_the_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """get_context's relevant notes and a model-mode add's candidates come from the store's
    own indexes while the space is cold; only the background loader reads it into memory."""
    model = ScriptedExtractor()
    settings = Settings(_env_file=None, cache_mb=64)  # type: ignore[call-arg]
    app = build(settings, store=SqliteStore(tmp_path / "m.db"), embedder=HashEmbedder(),
                clock=StepClock(), blobs=MemoryBlobStore(), extractor=model)
    try:
        app.admin.create_space("acme")
        who = _who(app, ["acme"])
        for text in ("Deploys need two approvals", "The cafeteria opens at eight"):
            model.facts(fact(text))
            app.memories.add(who, text)
        space_id = app.store.directory.list_spaces()[0].id
        cache = app.search._cache
        assert isinstance(cache, CacheRole)
        held = app.store.vector_cache
        assert not held.holds(space_id)  # the model-mode adds found their candidates cold
        loads: list[str] = []
        real_fill = held._fill

        def fill(source: object, space: str, entry: Any, *args: object) -> None:
            if entry.version < 0:  # a load (a new entry), not the refresh of a space held
                loads.append(threading.current_thread().name)
            real_fill(source, space, entry, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(held, "_fill", fill)
        briefing = app.briefings.brief(who, query="how many approvals do deploys need")
        assert "Deploys need two approvals" in briefing.text
        model.facts(fact("Deploys need three approvals", updates=(0, "updates")))
        added = app.memories.add(who, "Deploys now need three approvals")
        offered = [c.content for c in model.calls[-1][1]]
        assert "Deploys need two approvals" in offered  # found cold, from the store
        assert added.superseded
        _warmed(cache)  # the context's cold read queued the load
        assert held.holds(space_id)
        assert loads and threading.main_thread().name not in loads  # never inside a request
    finally:
        app.close()


def test_a_space_too_large_at_the_held_spaces_bytes_per_memory_pushes_nothing_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted at what a memory of the spaces held takes, a space past the whole budget is not
    read: it would push every held space out to make room, then be dropped once past it."""
    for module in (cache_budget, vector_cache):  # the floor alone does not tell
        monkeypatch.setattr(module, "MIN_ROW_BYTES", 1)
    cache = VectorCache()
    cache.load(_Rows(100), "held")
    per_row = cache.budget.held_bytes / 100
    cache.budget.budget_bytes = int(150 * per_row)  # 100 fit, 200 do not
    cache.budget._uses["large"] = 10.0  # searched far more often than the held space
    large = _Rows(200)
    cache.load(large, "large")
    assert large.reads == []  # counted, never read
    assert cache.budget.too_large("large") and not cache.holds("large")
    assert cache.holds("held") and cache.budget.held_bytes == int(100 * per_row)
