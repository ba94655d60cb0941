"""The consolidation pass on every store, with the real embedding model and no language model
(docs/consolidation.md): only the same text folds by itself, every other close pair waits in
the queue, each change is a version with history written by `consolidator`, a pass can be
undone, one pass runs per space across servers, a pass cut short keeps what it did whole and
the next carries on, and nothing crosses spaces. The model's own judgements are in
test_consolidation_model.py."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memspace.domain.consolidation import CONSOLIDATOR, ChangeKind, PassCursor
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Access, Memory, MemoryFilter, Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.stores import STORE_PARAMS, make_store

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture(params=STORE_PARAMS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    made = make_store(request.param, request, tmp_path)
    yield made
    made.close()


def app_on(store: GraphStore, embedder: object, tmp_path: Path) -> Container:
    settings = Settings(_env_file=None, data_dir=tmp_path, consolidate_every="0")  # type: ignore[call-arg]
    return build(settings, store=store, embedder=embedder)  # type: ignore[arg-type]


@pytest.fixture
def app(store: GraphStore, embedder: LocalEmbedder, tmp_path: Path) -> Container:
    return app_on(store, embedder, tmp_path)


class Team:
    """A space and three agents with keys on it."""

    def __init__(self, app: Container) -> None:
        self.app, self.slug = app, f"team-{uuid.uuid4().hex[:8]}"
        self.id = app.admin.create_space(self.slug).id
        self.agents: list[Principal] = [
            app.access.authenticate(app.admin.create_key(
                f"agent-{n}", {self.slug: Access.READWRITE}).raw) for n in range(3)]

    def add(self, text: str, agent: int = 0) -> Memory:
        result = self.app.memories.add(self.agents[agent], text, self.slug)
        assert result.status == "created", result
        return result.memories[0]

    def get(self, memory: Memory) -> Memory:
        found = self.app.store.reads.get_memory(self.id, memory.id)
        assert found is not None
        return found

    def current(self) -> set[str]:
        return {m.content for m in self.app.store.reads.list_memories(MemoryFilter(self.id), 500)}

    def queued(self) -> list[tuple[str, frozenset[str]]]:
        return [(c.kind.value, frozenset(m.content for m in c.memories))
                for c in self.app.conflicts.open_of(self.id)]


def test_the_same_text_folds_into_the_newest_with_history_and_nothing_else_is_retired(
        app: Container) -> None:
    team = Team(app)
    first = team.add("Deploys freeze on Fridays after 15:00.", 0)
    again = team.add("deploys freeze on Fridays after 15:00", 1)
    paraphrase = team.add("No deploy goes out on a Friday past 15:00.", 2)
    lookalike = team.add("Deploys freeze on Thursdays after 15:00.", 2)

    report = app.consolidation.consolidate(team.slug)

    assert report.pass_id is not None and not report.busy
    [fold] = [c for c in report.changes if c.kind is ChangeKind.RESTATEMENT]
    assert (fold.kept, fold.retired) == (again.id, (first.id,))
    old = team.get(first)
    assert (old.active, old.status, old.invalidated_by) == (False, MemoryStatus.SUPERSEDED, again.id)
    assert old.version == first.version + 1
    # Who and why: the history names the writer and the pass.
    [mark] = [m for m in app.store.marks.marks_of(team.id, [first.id]) if m.kind == "resolved"]
    assert mark.by == CONSOLIDATOR and report.pass_id in (mark.reason or "")
    assert all(team.get(m).active for m in (again, paraphrase, lookalike))
    # Every other close pair waits for a person, with its sides.
    queued = team.queued()
    assert queued and all(kind in ("restatement", "replacement") for kind, _ in queued)
    assert any(lookalike.content in sides and again.content in sides for _, sides in queued)
    assert report.count(ChangeKind.QUEUED) == len(queued)
    assert report.cost.memories_read == 4 and report.cost.model_calls == 0


def test_a_second_pass_reads_only_what_changed_and_queues_nothing_twice(app: Container) -> None:
    team = Team(app)
    team.add("The staging database is Postgres 16.", 0)
    team.add("Staging runs Postgres 15.", 1)
    first = app.consolidation.consolidate(team.slug)
    assert first.count(ChangeKind.QUEUED) >= 1

    second = app.consolidation.consolidate(team.slug)
    assert second.cost.memories_read == 0 and not second.changes

    team.add("Staging runs on Postgres 17 since Monday.", 2)
    third = app.consolidation.consolidate(team.slug)
    assert third.cost.memories_read == 1
    assert len(team.queued()) == first.count(ChangeKind.QUEUED) + third.count(ChangeKind.QUEUED)


def test_a_replacement_said_as_a_plain_add_waits_in_the_queue_and_a_person_settles_it(
        app: Container) -> None:
    team = Team(app)
    old = team.add("Releases go out every Tuesday.", 0)
    new = team.add("Releases now go out every Thursday.", 1)

    app.consolidation.consolidate(team.slug)

    [entry] = [c for c in app.conflicts.open_of(team.id)]
    assert entry.kind.value == "replacement" and {m.id for m in entry.memories} == {old.id, new.id}
    assert team.get(old).active  # not on similarity alone
    from memspace.services.access import AccessService
    app.conflicts.resolve(AccessService.operator(), entry.id, new.id, [old.id],
                          "Thursday is the new release day", entry.version, team.slug)
    assert team.get(old).superseded_by == new.id
    # The person's decision stands: later passes leave the pair alone.
    assert not app.consolidation.consolidate(team.slug).count(ChangeKind.QUEUED)


def test_a_dry_run_reports_and_writes_nothing(app: Container) -> None:
    team = Team(app)
    a = team.add("Backups run at 02:00 UTC.", 0)
    b = team.add("backups run at 02:00 utc", 1)

    dry = app.consolidation.consolidate(team.slug, dry_run=True)

    assert dry.pass_id is None and dry.count(ChangeKind.RESTATEMENT) == 1
    assert team.get(a).active and team.get(b).active
    assert app.store.consolidation.list_passes(team.id, 5) == []
    assert app.consolidation.consolidate(team.slug).count(ChangeKind.RESTATEMENT) == 1


def test_undo_restores_the_pass_and_a_later_pass_does_not_redo_it(app: Container) -> None:
    team = Team(app)
    a = team.add("The API gateway listens on port 8443.", 0)
    b = team.add("the API gateway listens on port 8443", 1)
    done = app.consolidation.consolidate(team.slug)
    assert not team.get(a).active and done.pass_id is not None

    undone = app.consolidation.undo(team.slug, done.pass_id, "both wanted", by="cli:operator")

    assert undone.restored == (a.id,)
    back = team.get(a)
    assert (back.active, back.status, back.invalidated_by, back.valid_to) == (
        True, MemoryStatus.CURRENT, None, None)
    assert team.get(b).active
    marks = [m.kind for m in app.store.marks.marks_of(team.id, [a.id])]
    assert marks[-1] == "restored"
    with pytest.raises(Conflict):
        app.consolidation.undo(team.slug, done.pass_id)
    assert not app.consolidation.consolidate(team.slug).count(ChangeKind.RESTATEMENT)
    assert team.get(a).active


def test_a_folded_memorys_links_move_to_the_memory_it_kept_and_undo_takes_them_back(
        app: Container) -> None:
    team = Team(app)
    topic = team.add("The ledger publishes balance changes on the Kafka topic ledger.balance.v1.")
    first = team.add("Messages on ledger.balance.v1 are keyed by account id.", 1)
    between = team.add("Consumers of ledger.balance.v1 must be idempotent.", 2)
    at = datetime.now(UTC)
    app.store.consolidation.link(team.id, [
        Relation(first.id, topic.id, RelationType.EXTENDS, at, "agent-1", "adds a detail"),
        Relation(between.id, first.id, RelationType.DERIVES, at, "agent-2", "follows from it")])
    again = team.add("messages on ledger.balance.v1 are keyed by account id", 0)

    done = app.consolidation.consolidate(team.slug)

    [fold] = [c for c in done.changes if c.kind is ChangeKind.RESTATEMENT]
    assert (fold.kept, fold.retired) == (again.id, (first.id,))
    # Both its edges moved to the memory it was folded into, each its own way: its EXTENDS,
    # and the DERIVES from a memory written before the one it was folded into.
    carried = {(c.relation.source_id, c.relation.target_id, c.relation.type, c.relation.created_by)
               for c in done.changes if c.kind is ChangeKind.LINK and c.relation is not None}
    assert carried == {(again.id, topic.id, RelationType.EXTENDS, CONSOLIDATOR),
                       (between.id, again.id, RelationType.DERIVES, CONSOLIDATOR)}
    edges = {(r.source_id, r.target_id) for r in
             app.store.relations.relations_among(team.id, [topic.id, again.id, between.id])}
    assert edges == {(again.id, topic.id), (between.id, again.id)}
    assert {(r.source_id, r.target_id) for r in app.store.relations.relations_of(
        team.id, first.id)} >= {(first.id, topic.id), (between.id, first.id)}

    app.consolidation.undo(team.slug, done.pass_id or "", "keep both")

    assert team.get(first).active
    left = app.store.relations.relations_among(team.id, [topic.id, again.id, between.id])
    assert not [r for r in left if again.id in (r.source_id, r.target_id)]


def test_undo_of_another_spaces_pass_answers_like_a_missing_one(app: Container) -> None:
    team, other = Team(app), Team(app)
    team.add("Lunch is at noon.", 0)
    team.add("lunch is at noon", 1)
    done = app.consolidation.consolidate(team.slug)
    assert done.pass_id is not None
    with pytest.raises(NotFound) as foreign:
        app.consolidation.undo(other.slug, done.pass_id)
    with pytest.raises(NotFound) as missing:
        app.consolidation.undo(other.slug, "cp_" + "0" * 20)
    assert str(foreign.value).replace(done.pass_id, "X") == str(missing.value).replace(
        "cp_" + "0" * 20, "X")


def test_a_pass_never_groups_across_spaces(app: Container) -> None:
    team, other = Team(app), Team(app)
    mine = team.add("The on-call rotation changes on Mondays.", 0)
    theirs = other.add("the on-call rotation changes on mondays", 0)

    report = app.consolidation.consolidate(other.slug)

    assert not report.changes
    assert team.get(mine).active and other.get(theirs).active
    assert team.queued() == [] and other.queued() == []


class GatedEmbedder:
    """The real embedder, whose first `embed` of a pass waits for the test (a pass in progress)."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self._inner = inner
        self.entered, self.release = threading.Event(), threading.Event()
        self.armed = False

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.armed:
            self.armed = False
            self.entered.set()
            assert self.release.wait(120)
        return self._inner.embed(texts)


def test_one_pass_per_space_across_two_servers_on_one_store(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path) -> None:
    gated = GatedEmbedder(embedder)
    one, two = app_on(store, gated, tmp_path / "one"), app_on(store, embedder, tmp_path / "two")
    team = Team(one)
    team.add("Invoices are archived after 7 years.", 0)
    team.add("invoices are archived after 7 years", 1)
    gated.armed = True
    reports: list[object] = []
    running = threading.Thread(target=lambda: reports.append(one.consolidation.consolidate(team.slug)))
    running.start()
    try:
        assert gated.entered.wait(120)
        busy = two.consolidation.consolidate(team.slug)
        assert busy.busy and busy.pass_id is None and not busy.changes
    finally:
        gated.release.set()
        running.join(120)
    [done] = reports
    assert not done.busy and done.count(ChangeKind.RESTATEMENT) == 1  # type: ignore[attr-defined]
    # Released: the other server's pass runs now, and finds nothing left to do.
    assert not two.consolidation.consolidate(team.slug).busy


def test_a_lease_left_by_a_dead_server_is_taken_over_once_it_lapses(app: Container) -> None:
    team = Team(app)
    now = datetime.now(UTC)
    assert app.store.consolidation.take_lease(team.id, "cp_dead", now, now + timedelta(seconds=1))
    assert app.consolidation.consolidate(team.slug).busy
    lapsed = now - timedelta(minutes=5)
    assert app.store.consolidation.take_lease(team.id, "cp_dead", lapsed, lapsed)  # renewed, lapsed
    assert not app.consolidation.consolidate(team.slug).busy


class Killed(BaseException):
    """Stands for the process dying mid-pass (not an error any code catches)."""


def test_a_pass_killed_midway_keeps_each_group_whole_and_the_next_carries_on(
        app: Container, monkeypatch: pytest.MonkeyPatch) -> None:
    team = Team(app)
    pairs = [(team.add(t, 0), team.add(t.lower().rstrip("."), 1)) for t in (
        "Sprint reviews are on Fridays.", "The cache holds entries for 10 minutes.")]
    settle = app.store.conflicts.settle
    calls = {"n": 0}

    def dies_on_the_second(settlement: object) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise Killed
        settle(settlement)  # type: ignore[arg-type]

    monkeypatch.setattr(app.store.conflicts, "settle", dies_on_the_second)
    with pytest.raises(Killed):
        app.consolidation.consolidate(team.slug)
    monkeypatch.undo()

    retired = [old for old, _ in pairs if not team.get(old).active]
    assert len(retired) == 1  # the first group whole, the second not at all
    [cut] = app.store.consolidation.list_passes(team.id, 5)
    assert cut.finished_at is None and len(cut.changes) == 1
    assert app.store.consolidation.cursor(team.id) == PassCursor()

    carried = app.consolidation.consolidate(team.slug)
    assert carried.count(ChangeKind.RESTATEMENT) == 1
    assert all(not team.get(old).active and team.get(new).active for old, new in pairs)


def test_a_memory_past_its_expiry_leaves_the_current_view_as_of_its_expiry(
        app: Container) -> None:
    team = Team(app)
    kept = team.add("The coffee machine on floor 2 is broken.", 0)
    saved = kept.created_at - timedelta(hours=2)
    expiry = saved + timedelta(hours=1)
    # Written as a memory saved two hours ago that expired an hour ago (an add refuses a past
    # expiry, so it is written directly).
    gone = replace(kept, id=uuid.uuid4().hex, content="The lift on floor 3 is out of order.",
                   content_hash=uuid.uuid4().hex, expires_at=expiry, embedding=None,
                   created_at=saved)
    [vector] = app.embedder.embed([gone.content])
    app.store.writes.write(WriteBatch(team.id, [replace(gone, embedding=vector)]))

    report = app.consolidation.consolidate(team.slug)

    [change] = [c for c in report.changes if c.kind is ChangeKind.EXPIRY]
    assert change.retired == (gone.id,)
    after = team.get(gone)
    assert (after.active, after.status, after.valid_to) == (False, MemoryStatus.HISTORICAL, expiry)
    assert team.get(kept).active
