"""The consolidation pass with a model, through the real litellm path to a scripted
OpenAI-compatible server, on each store with the real embedding model: the extraction call
judges a group, the relate call takes a second look before anything is retired, a look-alike
is left alone, and a memory saved flat is extracted once a model is configured. What the real
local model does with the same shapes is test_consolidation_model.py."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memspace.domain.consolidation import CONSOLIDATOR, ChangeKind
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Access, Memory, RelationType
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.scripted_llm import Reply, ScriptedLLM, sentences_as_facts
from tests.support.stores import STORE_PARAMS, make_store

pytestmark = pytest.mark.model


def facts(*texts: str, relations: tuple[tuple[int, str], ...] = ()) -> Reply:
    """An extraction answer: each text a fact; the first carries `relations`."""
    return Reply({"facts": [
        {"text": text, "type": "fact", "category": "fact",
         "relations": [{"candidate": n, "type": kind, "reason": "said so"}
                       for n, kind in (relations if i == 0 else ())]}
        for i, text in enumerate(texts)]})


def looked(memory_says: str, fact_says: str, same_subject: bool, still_true: bool,
           relation: str) -> Reply:
    """A relate answer about candidate 0."""
    return Reply({"memories": [{"memory": 0, "memory_says": memory_says, "fact_says": fact_says,
                                "same_subject": same_subject, "still_true": still_true,
                                "relation": relation}]})


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture(params=STORE_PARAMS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    made = make_store(request.param, request, tmp_path)
    yield made
    made.close()


def app(store: GraphStore, embedder: LocalEmbedder, tmp_path: Path,
        llm: ScriptedLLM | None, **more: Any) -> Container:
    model = {} if llm is None else {"llm_model": "openai/scripted", "llm_api_base": llm.url,
                                    "llm_api_key": "test", "llm_timeout_s": 120}
    settings = Settings(_env_file=None, data_dir=tmp_path, consolidate_every="0",  # type: ignore[call-arg]
                        **model, **more)
    return build(settings, store=store, embedder=embedder)


class Team:
    def __init__(self, app: Container) -> None:
        self.app, self.slug = app, f"team-{uuid.uuid4().hex[:8]}"
        self.id = app.admin.create_space(self.slug).id
        self.agent: Principal = app.access.authenticate(
            app.admin.create_key("agent", {self.slug: Access.READWRITE}).raw)

    def add(self, text: str) -> Memory:
        [memory] = self.app.memories.add(self.agent, text, self.slug).memories
        return memory

    def get(self, memory: Memory) -> Memory:
        found = self.app.store.reads.get_memory(self.id, memory.id)
        assert found is not None
        return found


def test_a_replacement_said_as_a_new_fact_is_retired_after_both_looks(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    llm.script(facts("Releases go out every Tuesday."), facts("Releases now go out every Thursday."))
    old, new = team.add("Releases go out every Tuesday."), team.add("Releases now go out every Thursday.")
    llm.script(facts("Releases now go out every Thursday.", relations=((0, "updates"),)),
               looked("Tuesday", "Thursday", True, False, "updates"))

    report = team.app.consolidation.consolidate(team.slug)

    assert llm.remaining == 0 and report.cost.model_calls == 2
    [change] = [c for c in report.changes if c.kind is ChangeKind.REPLACEMENT]
    assert (change.kept, change.retired) == (new.id, (old.id,))
    retired = team.get(old)
    assert (retired.status, retired.invalidated_by) == (MemoryStatus.SUPERSEDED, new.id)
    assert retired.valid_to == team.get(new).valid_from  # as-of reads answer what held then
    updates = [r for r in team.app.store.relations.relations_of(team.id, old.id)
               if r.type is RelationType.UPDATES]
    assert [(r.source_id, r.created_by) for r in updates] == [(new.id, CONSOLIDATOR)]


def test_a_change_the_first_look_did_not_call_an_update_is_asked_again_by_the_second(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    # The add's own call related nothing; the newer says the job moved, so the pass asks the
    # second look, and retires the older only because that look agrees.
    team = Team(app(store, embedder, tmp_path, llm))
    llm.script(facts("The nightly reconciliation job runs at 02:30 UTC."),
               facts("The nightly reconciliation job was moved to 04:00 UTC."))
    old = team.add("The nightly reconciliation job runs at 02:30 UTC.")
    new = team.add("The nightly reconciliation job was moved to 04:00 UTC.")
    assert team.get(old).active
    llm.script(facts("The nightly reconciliation job was moved to 04:00 UTC."),
               looked("02:30 UTC", "04:00 UTC", True, False, "updates"))

    report = team.app.consolidation.consolidate(team.slug)

    assert llm.remaining == 0 and report.cost.model_calls == 2
    [change] = [c for c in report.changes if c.kind is ChangeKind.REPLACEMENT]
    assert (change.kept, change.retired) == (new.id, (old.id,))
    assert team.get(old).invalidated_by == new.id


@pytest.mark.parametrize(("memory_says", "fact_says", "retired"), [
    ("Sentry", "Datadog", True),  # the values the texts differ by
    ("tracked in Sentry", "backend errors", False),  # not the change between them
])
def test_a_change_said_in_words_is_retired_when_the_second_look_names_its_values(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM,
        memory_says: str, fact_says: str, retired: bool) -> None:
    # A small model names both values and still calls the older true: the newer's words, the
    # values code reads and the values the model named agree, or a person decides.
    team = Team(app(store, embedder, tmp_path, llm))
    llm.script(facts("Errors from the backend are tracked in Sentry."),
               facts("Backend errors are now tracked in Datadog."))
    old = team.add("Errors from the backend are tracked in Sentry.")
    new = team.add("Backend errors are now tracked in Datadog.")
    llm.script(facts("Backend errors are now tracked in Datadog."),
               looked(memory_says, fact_says, True, True, "none"))

    report = team.app.consolidation.consolidate(team.slug)

    assert llm.remaining == 0 and report.cost.model_calls == 2
    assert team.get(old).active is not retired
    if retired:
        [change] = [c for c in report.changes if c.kind is ChangeKind.REPLACEMENT]
        assert (change.kept, change.retired) == (new.id, (old.id,))
    else:
        [item] = team.app.conflicts.open_of(team.id)
        assert {m.id for m in item.memories} == {old.id, new.id}


def test_a_bare_different_value_with_no_word_of_change_is_not_retired(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    llm.script(facts("Feature flags are managed in LaunchDarkly."),
               facts("Feature flags are managed in Unleash."))
    old = team.add("Feature flags are managed in LaunchDarkly.")
    team.add("Feature flags are managed in Unleash.")
    llm.script(facts("Feature flags are managed in Unleash."))

    report = team.app.consolidation.consolidate(team.slug)

    # One call, the first look's (nothing related): no second look, nothing retired.
    assert llm.remaining == 0 and report.cost.model_calls == 1
    assert not [c for c in report.changes if c.retired] and team.get(old).active


def test_a_chain_is_read_as_written_the_new_value_replaces_then_its_restatement_folds(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    texts = ("Releases go out every Tuesday.", "Releases now go out every Thursday.",
             "From now on, releases go out every Thursday.")
    llm.script(*(facts(t) for t in texts))
    old, new, again = (team.add(t) for t in texts)
    # The first memory with the new value is judged first: it replaces the old one. Then the
    # restatement of the new value, which the model calls an update, is one fact said twice
    # by code's reading and the second look's: it folds.
    llm.script(facts(texts[1], relations=((0, "updates"),)),
               looked("Tuesday", "Thursday", True, False, "updates"),
               facts(texts[2], relations=((0, "updates"),)),
               looked("Thursday", "Thursday", True, True, "none"))

    report = team.app.consolidation.consolidate(team.slug)

    assert llm.remaining == 0
    [replaced] = [c for c in report.changes if c.kind is ChangeKind.REPLACEMENT]
    assert (replaced.kept, replaced.retired) == (new.id, (old.id,))
    [folded] = [c for c in report.changes if c.kind is ChangeKind.RESTATEMENT]
    assert {folded.kept, *folded.retired} == {new.id, again.id}
    assert team.get(old).status is MemoryStatus.SUPERSEDED
    assert [team.get(m).status for m in (new, again)].count(MemoryStatus.CURRENT) == 1


def test_a_lookalike_is_left_alone_by_code_or_by_the_second_look(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    first, second = ("The nightly reconciliation job runs at 02:30 UTC.",
                     "The nightly analytics export job runs at 02:30 UTC.")
    llm.script(facts(first), facts(second))
    one, two = team.add(first), team.add(second)
    # One sentence with what it is about swapped: code leaves it whatever the first look says,
    # and asks no second.
    llm.script(facts(second))
    assert not team.app.consolidation.consolidate(team.slug).changes
    assert team.get(one).active and team.get(two).active and llm.remaining == 0

    other = Team(team.app)
    first, second = "Customer support works from Zendesk.", "Support tickets are handled in Zendesk."
    llm.script(facts(first), facts(second))
    three, four = other.add(first), other.add(second)
    # Said differently: the first look sees no relation (as for a restatement); the second look
    # names another subject, so nothing is folded.
    llm.script(facts(second), looked("", "", False, True, "none"))
    report = team.app.consolidation.consolidate(other.slug)
    assert other.get(three).active and other.get(four).active
    assert not report.changes and llm.remaining == 0


@pytest.mark.parametrize("one_subject", [True, False])
def test_a_link_is_made_only_where_the_second_look_reads_one_subject(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM,
        one_subject: bool) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    first, second = ("The iOS build signing certificate expires on 2026-03-14.",
                     "The Android upload key certificate expires on 2027-08-02.")
    llm.script(facts(first), facts(second))
    older, newer = team.add(first), team.add(second)
    # The first look calls the look-alike a derivation; the second look decides.
    llm.script(facts(second, relations=((0, "derives"),)),
               looked("2026-03-14", "2027-08-02", one_subject, True, "none"))

    report = team.app.consolidation.consolidate(team.slug)

    assert llm.remaining == 0 and report.cost.model_calls == 2
    links = [(r.source_id, r.target_id, r.type, r.created_by)
             for r in team.app.store.relations.relations_of(team.id, older.id)]
    assert links == ([(newer.id, older.id, RelationType.DERIVES, CONSOLIDATOR)]
                     if one_subject else [])
    assert report.count(ChangeKind.LINK) == len(links)
    assert team.get(older).active and team.get(newer).active
    assert not team.app.conflicts.open_of(team.id)


def test_a_second_look_that_disagrees_sends_the_pair_to_the_queue(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    team = Team(app(store, embedder, tmp_path, llm))
    llm.script(facts("Maria owns the payments service."), facts("Tom owns the payments service."))
    maria, tom = team.add("Maria owns the payments service."), team.add("Tom owns the payments service.")
    llm.script(facts("Tom owns the payments service.", relations=((0, "updates"),)),
               looked("", "", True, True, "none"))  # no change it can name

    report = team.app.consolidation.consolidate(team.slug)

    assert team.get(maria).active and team.get(tom).active
    [queued] = team.app.conflicts.open_of(team.id)
    assert queued.kind.value == "replacement" and queued.by == CONSOLIDATOR
    assert {m.id for m in queued.memories} == {maria.id, tom.id}
    assert report.count(ChangeKind.QUEUED) == 1


def test_a_memory_saved_flat_is_extracted_once_a_model_is_configured(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM) -> None:
    flat = Team(app(store, embedder, tmp_path / "flat", None))
    note = flat.add("Staging moved to Postgres 16 and Alice owns the migration.")
    modelled = app(store, embedder, tmp_path / "model", llm)
    llm.script(facts("Staging runs Postgres 16.", "Alice owns the staging migration."))

    report = modelled.consolidation.consolidate(flat.slug)

    assert llm.remaining == 0 and report.count(ChangeKind.EXTRACTION) == 1
    assert not flat.get(note).active
    derived = [r for r in modelled.store.relations.relations_of(flat.id, note.id)
               if r.type is RelationType.DERIVES]
    assert len(derived) == 2
    # Extracted once: the next pass asks the model nothing about it.
    llm.script()
    assert modelled.consolidation.consolidate(flat.slug).cost.model_calls == 0


def asked_about(request: dict[str, Any]) -> str:
    """The memory an extraction call judged (the note of its prompt)."""
    found = re.search(r"<note>\n(.*?)\n</note>", request["messages"][-1]["content"], re.S)
    assert found is not None
    return found.group(1)


@pytest.fixture
def no_fallback(llm: ScriptedLLM) -> Iterator[None]:
    yield
    llm.fallback = None


def test_a_pass_out_of_calls_inside_one_write_leaves_the_rest_of_it_to_the_next_pass(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM,
        no_fallback: None) -> None:
    # Each pair: one sentence with what it is about swapped, so one call judges it (code
    # leaves it whatever the first look says) and asks no second.
    pairs = [("The nightly reconciliation job runs at 02:30 UTC.",
              "The nightly analytics export job runs at 02:30 UTC."),
             ("The weekly billing report is emailed to finance on Mondays.",
              "The weekly usage report is emailed to finance on Mondays."),
             ("The staging database is backed up every six hours.",
              "The analytics database is backed up every six hours.")]
    team = Team(app(store, embedder, tmp_path, llm, consolidate_max_calls=1))
    llm.script(*(facts(old) for old, _ in pairs))
    for old, _ in pairs:
        team.add(old)
    llm.fallback = lambda request: facts("nothing to relate")  # the older ones' groups, if any
    while team.app.consolidation.consolidate(team.slug).cost.model_calls:
        pass
    llm.script(facts(*(new for _, new in pairs)))
    note = " ".join(new for _, new in pairs)
    written = team.app.memories.add(team.agent, note, team.slug).memories
    assert len(written) == 3  # one write: one stamp for the three

    asked: list[str] = []

    def judged(request: dict[str, Any]) -> Reply:
        asked.append(asked_about(request))
        return facts(asked[-1])

    llm.fallback = judged
    for _ in pairs:
        llm.script()
        assert team.app.consolidation.consolidate(team.slug).cost.model_calls == 1
    # Each memory of the write judged once, in the feed's order: none asked again.
    assert sorted(asked) == sorted(new for _, new in pairs)
    assert team.app.consolidation.consolidate(team.slug).cost.model_calls == 0
    assert all(team.get(m).active for m in written)


def test_memories_saved_flat_past_the_budget_are_extracted_by_a_later_pass(
        store: GraphStore, embedder: LocalEmbedder, tmp_path: Path, llm: ScriptedLLM,
        no_fallback: None) -> None:
    flat = Team(app(store, embedder, tmp_path / "flat", None))
    notes = [flat.add("Staging moved to Postgres 16. Alice owns the migration."),
             flat.add("The mobile app ships every second Friday. Bob signs the builds.")]
    modelled = app(store, embedder, tmp_path / "model", llm, consolidate_max_calls=1)
    llm.script()
    llm.fallback = sentences_as_facts

    passes = 0
    while modelled.consolidation.consolidate(flat.slug).cost.model_calls and passes < 12:
        passes += 1
    # One call a pass: the first note's extraction used the first pass's; the second note was
    # left for a later pass, not passed over.
    assert not any(flat.get(n).active for n in notes)
    assert passes >= 2
