"""asOf / knownAt on every store (docs/time.md): one history whose cases come apart, and a table
of the answers expected, written before the code. Each row is asked three ways: the store's own
filter (listMemories), search_memory (ranked over every version, narrowed in the service), and
the domain rule (domain.bitemporal.holds) over every row the store holds."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memspace.domain.bitemporal import TimeSlice, holds
from memspace.domain.errors import InvalidInput
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, MemoryFilter
from memspace.services.access.access import AccessService, Principal
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sliced_ranking import SLICE_DEPTH
from tests.support.fakes import HashEmbedder, MemoryBlobStore


def day(n: int, hours: int = 0) -> datetime:
    return datetime(2026, 1, n, tzinfo=UTC) + timedelta(hours=hours)


# The history, subject by subject (recorded = when written; valid = observedAt, else recorded):
# - price, a correction that arrives late: P1 "costs 10" valid and recorded day 1; on day 6 we
#   learn it went to 12 on day 3: P2 corrects P1, observedAt day 3, recorded day 6.
# - server, true, then false, then true: S1 "up" day 1; S2 "down" corrects it day 2; S3 "up"
#   corrects S2 day 4.
# - owner, a correction of a correction: O1 "Alice" day 1; O2 "Bob" corrects O1 on day 3 (no
#   observedAt: valid from day 3); on day 5 O3 "Carol" corrects O2, observedAt day 3 (Bob was
#   never right: O2's valid interval [day 3, day 3) is empty).
# - door, forgotten: F1 "code 1234" day 1, forgotten day 3.
# - vpn, a corrected fact whose correction is forgotten: V1 day 1; V2 corrects it day 2; V2
#   forgotten day 4.
HISTORY: list[tuple[str, str, str | None, datetime, datetime | None]] = [
    # (label, content, label it corrects, recorded at, observedAt)
    ("P1", "The widget costs 10 euros", None, day(1), day(1)),
    ("S1", "The staging server is up", None, day(1), None),
    ("O1", "Alice owns the billing service", None, day(1), None),
    ("F1", "The office door code is 1234", None, day(1), None),
    ("V1", "The VPN password rotates every month", None, day(1), None),
    ("S2", "The staging server is down", "S1", day(2), None),
    ("V2", "The VPN password rotates every week", "V1", day(2), None),
    ("O2", "Bob owns the billing service", "O1", day(3), None),
    ("S3", "The staging server is up", "S2", day(4), None),
    ("O3", "Carol owns the billing service", "O2", day(5), day(3)),
    ("P2", "The widget costs 12 euros", "P1", day(6), day(3)),
]
FORGOTTEN = [("F1", day(3)), ("V2", day(4))]

# (asOf, knownAt, the labels a read shows). Intervals are half-open: [from, to).
EXPECTED: list[tuple[datetime | None, datetime | None, set[str]]] = [
    (None, None, {"P2", "S3", "O3"}),  # current facts only, as before
    # valid time, as the space knows it now
    (day(1), None, {"P1", "S1", "O1", "V1"}),  # each from boundary is inside its interval
    (day(2), None, {"P1", "S2", "O1"}),  # V1 ends at day 2 (V2 forgotten: nothing then)
    (day(2, 12), None, {"P1", "S2", "O1"}),
    (day(3), None, {"P2", "S2", "O3"}),  # the late price; O2 never held
    (day(4), None, {"P2", "S3", "O3"}),  # up again
    # record time: what the space held then
    (None, day(1), {"P1", "S1", "O1", "V1"}),
    (None, day(2), {"P1", "S2", "O1"}),  # S1 superseded exactly then
    (None, day(3), {"P1", "S2", "O2"}),
    (None, day(5, 23), {"P1", "S3", "O3"}),  # the price correction not yet made
    (None, day(6), {"P2", "S3", "O3"}),
    # both: valid at asOf as the space knew it at knownAt
    (day(4), day(5), {"P1", "S3", "O3"}),  # late correction: the record-time answer is P1
    (day(4), day(6), {"P2", "S3", "O3"}),
    (day(3, 12), day(4), {"P1", "S2", "O2"}),  # O2's end was not yet known on day 4
    (day(2), day(1), {"P1", "S1", "O1", "V1"}),  # on day 1 nobody knew the server went down
]


@pytest.fixture
def app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    yield from _app(store, Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]


@pytest.fixture
def cold_app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    """No space fits the cache: every search runs on the cold path (docs/scaling.md)."""
    yield from _app(store, Settings(_env_file=None, data_dir=tmp_path,  # type: ignore[call-arg]
                                    cache_mb=0))


def _app(store: GraphStore, settings: Settings) -> Iterator[Container]:
    clock = SetClock(day(1))
    made = build(settings, store=store, embedder=HashEmbedder(), blobs=MemoryBlobStore(),
                 clock=clock)
    made.clock_for_test = clock  # type: ignore[attr-defined]
    yield made
    made.search.close()  # its background loads read the store, which the fixture closes next


class SetClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


def written(app: Container) -> tuple[str, Principal, dict[str, str]]:
    """The history written through the services; label -> memory id."""
    clock: SetClock = app.clock_for_test  # type: ignore[attr-defined]
    slug = f"time-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    who = app.access.authenticate(
        app.admin.create_key(f"auditor-{slug}", {slug: Access.READWRITE}).raw)
    ids: dict[str, str] = {}
    events = [(at, 0, label) for label, _, _, at, _ in HISTORY]
    events += [(at, 1, label) for label, at in FORGOTTEN]
    for at, kind, label in sorted(events, key=lambda e: (e[0], e[1])):
        clock.at = at
        if kind == 1:
            app.memories.forget(who, ids[label], reason="erase it", space=slug)
            continue
        _, content, corrects, _, observed = next(h for h in HISTORY if h[0] == label)
        if corrects is None:
            added = app.memories.add(who, content, slug, observed_at=observed)
        else:
            added = app.memories.correct(who, ids[corrects], content, slug,
                                         reason=f"{label} replaces {corrects}",
                                         observed_at=observed)
        ids[label] = added.memories[0].id
    clock.at = day(9)
    return slug, who, ids


def test_list_search_and_the_rule_agree_with_the_table(app: Container, store: GraphStore) -> None:
    slug, who, ids = written(app)
    label_of = {v: k for k, v in ids.items()}
    space_id = app.access.resolve(who, slug).space.id
    every = [m for m in (store.reads.get_memory(space_id, i) for i in ids.values()) if m is not None]
    for as_of, known_at, expected in EXPECTED:
        case = f"asOf={as_of} knownAt={known_at}"
        _, page = app.memories.list(who, slug, limit=50, as_of=as_of, known_at=known_at)
        assert {label_of[m.id] for m in page.items} == expected, f"listMemories {case}"
        found = app.search.search(who, SearchRequest(
            query="staging server widget billing door VPN", space=slug, limit=50,
            include_profile=False, as_of=as_of, known_at=known_at))
        assert {label_of[h.memory.id] for h in found.hits} == expected, f"search {case}"
        if as_of or known_at:  # nor is erased text shown beside a hit
            assert not {n.memory.id for h in found.hits for n in h.related} & {
                ids["F1"], ids["V2"]}, f"related {case}"
        if as_of or known_at:
            assert {label_of[m.id] for m in every if holds(m, TimeSlice(as_of, known_at))} \
                == expected, f"holds {case}"


def test_get_memory_shows_the_timeline_with_both_intervals(app: Container) -> None:
    slug, who, ids = written(app)
    detail = app.memories.get(who, ids["O2"], slug)  # any version shows the whole line
    line = [(p.memory.id, p.valid_from, p.valid_to, p.recorded_at, p.superseded_at, p.why)
            for p in detail.timeline]
    assert line == [
        (ids["O1"], day(1), day(3), day(1), day(3), None),
        (ids["O2"], day(3), day(3), day(3), day(5), "O2 replaces O1"),
        (ids["O3"], day(3), None, day(5), None, "O3 replaces O2"),
    ]


def test_get_context_and_the_graph_read_the_slice(app: Container) -> None:
    slug, who, ids = written(app)
    brief = app.briefings.brief(who, space=slug, as_of=day(4), known_at=day(5))
    shown = {label for label, i in ids.items() if i in brief.included}
    assert shown == {"P1", "S3", "O3"}
    graph = app.graphs.graph(who, slug, as_of=day(2))
    assert {n.id for n in graph.nodes} == {ids["P1"], ids["S2"], ids["O1"]}


@pytest.mark.parametrize(("as_of", "known_at", "says"), [
    ("yesterday", None, "asOf 'yesterday' is not a time"),
    (None, "2026-13-01", "knownAt '2026-13-01' is not a time"),
    (None, "2027-06-01T00:00:00Z", "is in the future"),
])
def test_bad_times_are_refused_with_an_example(app: Container, as_of: str | None,
                                               known_at: str | None, says: str) -> None:
    slug, who, _ = written(app)
    with pytest.raises(InvalidInput) as refused:
        app.memories.list(who, slug, as_of=as_of, known_at=known_at)
    assert says in refused.value.message and "2026-05-01T09:00:00Z" in refused.value.message



def test_export_carries_both_intervals_and_import_restores_them(app: Container) -> None:
    slug, _, ids = written(app)
    operator = AccessService.operator()
    lines = [json.dumps(r) for r in app.portability.export(operator, slug)]
    exported = {r["id"]: r for r in map(json.loads, lines) if r["type"] == "memory"}
    assert exported[ids["P1"]]["validTo"] == "2026-01-03T00:00:00Z"
    assert exported[ids["P1"]]["supersededAt"] == "2026-01-06T00:00:00Z"
    # An export made before valid time carries none of them (validTo is derived on import).
    legacy = [json.dumps({k: v for k, v in json.loads(line).items()
                          if k not in ("validFrom", "validTo", "recordedAt", "supersededAt")})
              for line in lines]
    label_of = {(content, at): label for label, content, _, at, _ in HISTORY}
    for source in (lines, legacy):
        other = f"time-copy-{uuid.uuid4().hex[:8]}"
        app.admin.create_space(other)
        app.portability.import_space(operator, other, source, new_ids=True)
        for as_of, known_at, expected in EXPECTED:
            _, page = app.memories.list(operator, other, limit=50, as_of=as_of,
                                        known_at=known_at)
            assert {label_of[(m.content, m.created_at)] for m in page.items} == expected, (
                source is legacy, as_of, known_at)


@pytest.mark.parametrize("keyword", [True, False])
def test_a_search_reads_deeper_when_the_versions_it_ranked_first_did_not_hold(
        app: Container, keyword: bool) -> None:
    slug, who, ids = written(app)
    # Three versions say "staging server"; one result asked: the first pass may rank the two
    # that did not hold first, and the search then reads deeper.
    for at, label in ((day(1), "S1"), (day(2), "S2"), (day(3), "S2"), (day(4), "S3")):
        found = app.search.search(who, SearchRequest(
            **({"keyword": "staging"} if keyword else {"query": "staging server"}),
            space=slug, limit=1, include_profile=False, as_of=at))
        assert [h.memory.id for h in found.hits] == [ids[label]], (at, label)


@pytest.mark.parametrize("keyword", [True, False])
def test_a_slice_fills_its_page_however_many_versions_a_space_keeps(
        app: Container, keyword: bool) -> None:
    """Renaming a category writes a new version of each memory in it, with the same content:
    here more versions that a slice does not hold than the first two passes of a ranking read
    (4x FUSION_DEPTH per list). A slice, at the first day or now, still shows every memory it
    holds, up to `limit`, whichever way the store orders versions that tie."""
    clock: SetClock = app.clock_for_test  # type: ignore[attr-defined]
    slug = f"time-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    who = app.access.authenticate(
        app.admin.create_key(f"mover-{slug}", {slug: Access.READWRITE}).raw)
    services = ["billing", "search", "mail", "auth", "queue", "cache", "cron", "proxy", "dns",
                "ledger", "backup", "metrics"]
    first = {app.memories.add(who, f"Runbook: restart the {name} service after a deploy", slug,
                              category="ops").memories[0].id for name in services}
    for n in range(10):  # 12 memories x 20 moves: 240 versions that no longer hold
        clock.at = day(2, hours=n)
        app.memories.rename_category(who, slug, "ops", "runbooks")
        _, now = app.memories.rename_category(who, slug, "runbooks", "ops")
    clock.at = day(9)
    for known_at, expected in ((day(1, hours=12), first), (None, {m.id for m in now})):
        found = app.search.search(who, SearchRequest(
            **({"keyword": "runbook restart"} if keyword else {"query": "restart the service"}),
            space=slug, limit=len(services), include_profile=False, known_at=known_at or day(9)))
        assert {h.memory.id for h in found.hits} == expected, known_at


def test_the_store_keeps_a_slice_in_its_keyword_fetch(app: Container, store: GraphStore) -> None:
    """A keyword search at a point in time is kept by the store itself, in rank order, up to
    `limit` (stores/sliced_ranking.py), reading deeper than SLICE_DEPTH per hit when the
    versions ranked first (ties go to the newest) do not hold."""
    clock: SetClock = app.clock_for_test  # type: ignore[attr-defined]
    slug = f"time-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    who = app.access.authenticate(
        app.admin.create_key(f"auditor-{slug}", {slug: Access.READWRITE}).raw)
    versions: list[str] = []
    for n in range(2 * SLICE_DEPTH + 1):  # one fact, corrected hour by hour
        clock.at = day(1, hours=n)
        added = (app.memories.correct(who, versions[-1], f"The nightly build number is {n}", slug)
                 if versions else app.memories.add(who, "The nightly build number is 0", slug))
        versions.append(added.memories[0].id)
    clock.at = day(9)
    space_id = app.access.resolve(who, slug).space.id
    for n in (0, 1, SLICE_DEPTH, 2 * SLICE_DEPTH):
        at = TimeSlice(day(1, hours=n) + timedelta(minutes=30), None)
        kept = store.search.keyword_search(MemoryFilter(space_id, at=at), "nightly build", 1)
        assert [h.memory.id for h in kept] == [versions[n]], n
        found = app.search.search(who, SearchRequest(keyword="nightly", space=slug, limit=1,
                                                     include_profile=False, as_of=at.as_of))
        assert [h.memory.id for h in found.hits] == [versions[n]], n
    before = TimeSlice(day(1) - timedelta(hours=1), None)
    assert store.search.keyword_search(MemoryFilter(space_id, at=before), "nightly", 5) == []
    every = store.search.keyword_search(MemoryFilter(space_id, at=TimeSlice(None, day(1, hours=3))),
                                 "nightly", 3)
    assert [h.memory.id for h in every] == [versions[3]]  # knownAt: the version current then


def test_the_cold_path_reads_a_slice_as_the_warm_one_does(cold_app: Container) -> None:
    slug, who, ids = written(cold_app)
    label_of = {v: k for k, v in ids.items()}
    for as_of, known_at, expected in EXPECTED:
        found = cold_app.search.search(who, SearchRequest(
            query="staging server widget billing door VPN", space=slug, limit=50,
            include_profile=False, as_of=as_of, known_at=known_at))
        assert found.path == "cold"
        assert {label_of[h.memory.id] for h in found.hits} == expected, (as_of, known_at)
