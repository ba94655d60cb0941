"""The grounding guard (llm/grounding.py, llm/polarity.py): a fact the new content does not say
is dropped and reported, on scripted model answers that regurgitate a candidate, flip the
content's meaning or merge a candidate in; with nothing left the content is stored as given.

The add tests go through the real litellm path (LitellmExtractor) to a scripted
OpenAI-compatible server, the service and an SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from memspace.domain.extraction import Candidate, ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.models import Access, MemoryFilter, RelationType
from memspace.domain.notes import NoteState
from memspace.llm.grounding import ground, judge
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder
from tests.support.scripted_llm import Reply, ScriptedLLM


def answer(*facts: str | tuple[str, int, str]) -> Reply:
    items = []
    for item in facts:
        text, relations = (item, []) if isinstance(item, str) else (
            item[0], [{"candidate": item[1], "type": item[2], "reason": "scripted"}])
        items.append({"text": text, "type": "fact", "category": "fact", "relations": relations})
    return Reply({"facts": items})


# -- the judgement on one fact -------------------------------------------------------------

@pytest.mark.parametrize("fact, content, candidates, why", [
    # regurgitated: the candidate comes back although the content never mentions it
    ("Receipts are stored in S3.", "Invoices are now sent by Stripe instead of our mailer.",
     ["Invoices are emailed by the in-house mailer.", "Receipts are stored in S3."], "restates"),
    # the old claim kept, the new one lost: the content ended it
    ("Builds run on Jenkins.", "We retired Jenkins; builds run on Buildkite.",
     ["Builds run on Jenkins."], "ended"),
    ("The team will adopt Kotlin Multiplatform for the mobile apps.",
     "The mobile team will not adopt Kotlin Multiplatform.", [], "negation"),
    ("Refunds over 500 EUR need a second approval.",
     "Refunds over 500 EUR no longer need a second approval.", [], "negation"),
    ("The office Wi-Fi uses WPA2.", "The office Wi-Fi moved to WPA3, not WPA2.", [], "negation"),
    # a reversed direction
    ("The ticket queue moved from Zendesk to Freshdesk.",
     "Support moved the ticket queue from Freshdesk to Zendesk.", [], "reverses"),
    # a negation the content never had
    ("The API gateway is not written in Go.", "The API gateway is written in Go.", [], "negates"),
    # an existing memory merged into the new fact
    ("Design reviews happen on Tuesdays, and the design team uses Figma for all mockups.",
     "Design reviews now happen on Tuesdays.",
     ["Design reviews happen on Mondays.", "The design team uses Figma for all mockups."], "merges"),
    # nothing of it in the content, no candidate either
    ("The quarterly offsite is in Porto.", "Laptop refresh requests go through the IT portal.",
     [], "does not say"),
])
def test_a_fact_the_content_does_not_say_is_judged_unsupported(
        fact: str, content: str, candidates: list[str], why: str) -> None:
    reason = judge(fact, content, candidates)
    assert reason is not None and why in reason


@pytest.mark.parametrize("fact, content, candidates, speaker, observed_at", [
    # the speaker resolved, a relative date computed from the observation time
    ("Lea moved the launch review to 2026-06-08.", "I moved the launch review to next Monday.",
     ["The launch review is on 2026-06-05."], "Lea", datetime(2026, 6, 3, tzinfo=UTC)),
    # the content restates a candidate in its own words; the model used the candidate's
    ("Pull requests to the docs repository must be reviewed by a technical writer.",
     "PRs on the docs repo need a review from a tech writer.",
     ["Pull requests to the docs repository must be reviewed by a technical writer."], None, None),
    # a change stated with its negation and its direction kept
    ("Builds no longer run on Jenkins; they run on Buildkite.",
     "We retired Jenkins; builds run on Buildkite.", ["Builds run on Jenkins."], None, None),
    ("The ticket queue moved from Freshdesk to Zendesk.",
     "Support moved the ticket queue from Freshdesk to Zendesk.", [], None, None),
    ("Maintenance can start only after 22:00.", "Maintenance can't start before 22:00.",
     [], None, None),
    # a conclusion: the content states it, the candidates are its reasons
    ("The 3.2 release cannot ship before 2026-05-11.",
     "So the 3.2 release can't ship before the 11th.",
     ["Only Ravi can sign release builds.", "Ravi is away until 2026-05-11."], None, None),
    # the old value named beside the change, in the content's new words
    ("Builds ran on Jenkins; they were moved to Buildkite.",
     "We retired Jenkins; builds run on Buildkite.", ["Builds run on Jenkins."], None, None),
    # "it" resolved from a candidate
    ("The search cluster is upgraded to OpenSearch 2.13.", "It was upgraded to 2.13 today.",
     ["The search cluster runs OpenSearch 2.11."], None, datetime(2026, 4, 2, tzinfo=UTC)),
])
def test_a_fact_the_content_says_is_kept(fact: str, content: str, candidates: list[str],
                                         speaker: str | None, observed_at: datetime | None) -> None:
    assert judge(fact, content, candidates, speaker, observed_at) is None


def test_ground_keeps_the_facts_it_supports_with_their_relations_and_lists_the_rest() -> None:
    candidates = [Candidate(0, "Builds run on Jenkins.", "fact", datetime(2026, 1, 5, tzinfo=UTC))]
    good = ExtractedFact("Builds run on Buildkite instead of Jenkins.", "fact")
    extraction = Extraction((ExtractedFact("Builds run on Jenkins.", "fact"), good), 1, 900, 40)

    grounded = ground(extraction, "We retired Jenkins; builds run on Buildkite.", candidates)

    # The dropped fact was the memory the content retires: the kept fact replaces it.
    assert [f.text for f in grounded.facts] == [good.text]
    assert [(r.candidate, r.type) for r in grounded.facts[0].relations] == [(0, RelationType.UPDATES)]
    assert [d.text for d in grounded.dropped] == ["Builds run on Jenkins."]
    assert (grounded.llm_calls, grounded.prompt_tokens, grounded.completion_tokens) == (1, 900, 40)
    assert ground(grounded, "We retired Jenkins; builds run on Buildkite.", candidates) is grounded


def test_an_updates_to_a_candidate_sharing_no_word_with_the_fact_is_cut_the_fact_kept() -> None:
    at = datetime(2026, 1, 5, tzinfo=UTC)
    candidates = [Candidate(0, "Kim owns the payroll export.", "ownership", at),
                  Candidate(1, "Payroll exports run on Fridays.", "fact", at)]
    fact = ExtractedFact("Kim moved to the finance team.", "person", (
        ExtractedRelation(0, RelationType.UPDATES, "scripted"),
        ExtractedRelation(1, RelationType.UPDATES, "scripted")))

    grounded = ground(Extraction((fact,)), "Kim moved to the finance team.", candidates)

    assert [f.text for f in grounded.facts] == ["Kim moved to the finance team."]
    assert [(r.candidate, r.type) for r in grounded.facts[0].relations] == [(0, RelationType.UPDATES)]
    assert grounded.dropped == ()


@pytest.mark.parametrize("content, candidate, kept", [
    # nothing in the content says anything changed: another subject is not replaced ...
    ("Lina owns the payroll export.", "Kim owns the expense export.", False),
    ("Contractors are paid on the 15th.", "Employees are paid on the last day of the month.", False),
    # ... but one value swapped on the same statement is a new value
    ("Lina owns the payroll export.", "Kim owns the payroll export.", True),
    ("The coffee budget is 300 EUR a month.", "The coffee budget is 200 EUR a month.", True),
    # the same statement again is no new value, with or without a word of change
    ("Expense reports go to Lina.", "Expense reports go to Lina.", False),
    ("Expense reports now go to Lina.", "Expense reports go to Lina.", False),
    # a word of change lets the model decide (the similarity floor still checks it)
    ("Lina took over the expense export from Kim.", "Kim owns the expense export.", True),
])
def test_without_a_word_of_change_an_updates_must_swap_one_value(
        content: str, candidate: str, kept: bool) -> None:
    at = datetime(2026, 1, 5, tzinfo=UTC)
    fact = ExtractedFact(content, "fact", (ExtractedRelation(0, RelationType.UPDATES, "scripted"),))

    [grounded] = ground(Extraction((fact,)), content, [Candidate(0, candidate, "fact", at)]).facts

    assert grounded.text == content
    assert [r.type for r in grounded.relations] == ([RelationType.UPDATES] if kept else [])


# -- a memory said again that the content changes -----------------------------------------

AT = datetime(2026, 1, 5, tzinfo=UTC)


def relations_of(grounded: Extraction) -> list[list[tuple[int, RelationType]]]:
    return [[(r.candidate, r.type) for r in f.relations] for f in grounded.facts]


@pytest.mark.parametrize("content, old, new, speaker", [
    # the new value beside the old one said again, the relation left out
    ("The canteen switched its coffee from Lavazza to Illy.", "The canteen serves Lavazza coffee.",
     "The canteen serves Illy coffee.", None),
    ("The night bus now leaves at 23:40.", "The night bus leaves at 23:10.",
     "The night bus leaves at 23:40.", None),
    # the speaker's name counts as said ("I" is Wen)
    ("I'm handing the release checklist over to Oda.", "Wen keeps the release checklist.",
     "Oda keeps the release checklist.", "Wen"),
    # a negation ends the old claim
    ("The gym no longer opens on Sundays.", "The gym opens on Sundays.",
     "The gym is closed on Sundays.", None),
])
def test_a_dropped_repeat_of_a_memory_the_content_changes_becomes_the_kept_facts_update(
        content: str, old: str, new: str, speaker: str | None) -> None:
    candidates = [Candidate(0, old, "fact", AT), Candidate(1, "Parking permits renew in May.", "fact", AT)]
    extraction = Extraction((ExtractedFact(old, "fact"), ExtractedFact(new, "fact")))

    grounded = ground(extraction, content, candidates, speaker)

    assert [d.text for d in grounded.dropped] == [old]
    assert [f.text for f in grounded.facts] == [new]
    assert relations_of(grounded) == [[(0, RelationType.UPDATES)]]


def test_an_extends_to_the_changed_memory_becomes_the_update_and_other_relations_stay() -> None:
    candidates = [Candidate(0, "Interns are mentored by Femi.", "person", AT),
                  Candidate(1, "Interns start in September.", "plan", AT)]
    new = ExtractedFact("Interns are mentored by Gala.", "person", (
        ExtractedRelation(0, RelationType.EXTENDS, "scripted"),
        ExtractedRelation(1, RelationType.EXTENDS, "scripted")))
    extraction = Extraction((ExtractedFact("Interns are mentored by Femi.", "person"), new))

    grounded = ground(extraction, "Interns are now mentored by Gala instead of Femi.", candidates)

    assert relations_of(grounded) == [[(1, RelationType.EXTENDS), (0, RelationType.UPDATES)]]


def test_with_no_fact_left_the_content_as_given_updates_the_memory_it_changes() -> None:
    candidates = [Candidate(0, "Ines prefers standups at 9:00.", "preference", AT)]
    extraction = Extraction((ExtractedFact("Ines prefers standups at 9:00.", "preference"),))

    grounded = ground(extraction, "I've moved my standups to 11:00 now.", candidates, "Ines")

    assert [(f.text, f.category) for f in grounded.facts] == [
        ("I've moved my standups to 11:00 now.", "preference")]
    assert relations_of(grounded) == [[(0, RelationType.UPDATES)]]


@pytest.mark.parametrize("content, old, new", [
    # the memory said again in other words: dropped as a restatement, nothing changed
    ("Parcel pickup stays at 12:00.", "Parcels are collected at noon.", "Parcel pickup is at 12:00."),
    # the content changes something else and shares one word with the memory: not about it
    ("The finance team replaced its spreadsheet with a budgeting tool.",
     "The finance wiki lists the cost centres.", "The finance team uses a budgeting tool."),
])
def test_a_memory_the_content_does_not_change_gets_no_update_from_a_dropped_repeat(
        content: str, old: str, new: str) -> None:
    candidates = [Candidate(0, old, "fact", AT)]
    extraction = Extraction((ExtractedFact(old, "fact"), ExtractedFact(new, "fact")))

    grounded = ground(extraction, content, candidates)

    assert [d.text for d in grounded.dropped] == [old]
    assert [f.text for f in grounded.facts] == [new]
    assert relations_of(grounded) == [[]]


def test_a_range_of_dates_is_no_change_so_another_persons_leave_replaces_nothing() -> None:
    content = "Lior is on leave from 2026-08-03 to 2026-08-21."
    old = "Maya is on leave from 2026-08-03 to 2026-08-07."
    extraction = Extraction((ExtractedFact(old, "plan"), ExtractedFact(content, "plan")))

    grounded = ground(extraction, content, [Candidate(0, old, "plan", AT)])

    assert relations_of(grounded) == [[], []]
    assert grounded.dropped == ()


# -- through an add ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def app(llm: ScriptedLLM) -> Iterator[Container]:
    settings = Settings(_env_file=None, llm_model="openai/scripted",  # type: ignore[call-arg]
                        llm_api_base=llm.url, llm_api_key="test", llm_timeout_s=5)
    made = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder())
    made.admin.create_space("acme")
    yield made
    made.close()


def agent(app: Container) -> Principal:
    return app.access.authenticate(app.admin.create_key("agent", {"acme": Access.READWRITE}).raw)


def active(app: Container) -> list[str]:
    space = app.store.directory.get_space_by_slug("acme")
    assert space is not None
    return sorted(m.content for m in app.store.reads.list_memories(MemoryFilter(space.id), 50))


def test_a_regurgitated_candidate_is_dropped_from_the_add_and_counted_in_warnings(
        app: Container, llm: ScriptedLLM) -> None:
    who = agent(app)
    llm.script(Reply({"facts": [{"text": "Receipts are stored in S3.", "category": "fact"}]}))
    app.memories.add(who, "Receipts are stored in S3.", "acme")
    llm.script(answer(("Invoices are sent by Stripe instead of the in-house mailer.", 0, "updates"),
                      "Receipts are stored in S3."))

    result = app.memories.add(who, "Invoices are now sent by Stripe instead of our mailer.", "acme")

    assert result.mode == "extracted"
    assert [m.content for m in result.memories] == [
        "Invoices are sent by Stripe instead of the in-house mailer."]
    assert [w for w in result.warnings if w.startswith("dropped the extracted fact")] == [
        "dropped the extracted fact 'Receipts are stored in S3.': it restates existing memory [0] "
        "('Receipts are stored in S3.'), which the new content does not say (0% of its words are "
        "in the content)"]
    assert active(app) == ["Invoices are sent by Stripe instead of the in-house mailer.",
                           "Receipts are stored in S3."]


def test_a_flipped_fact_is_dropped_and_with_nothing_left_the_content_is_stored_flat(
        app: Container, llm: ScriptedLLM) -> None:
    content = "The mobile team will not adopt Kotlin Multiplatform."
    llm.script(answer("The mobile team will adopt Kotlin Multiplatform."))

    result = app.memories.add(agent(app), content, "acme")

    assert (result.status, result.mode) == ("created", "flat")
    assert [m.content for m in result.memories] == [content]
    assert result.warnings[0].startswith(
        "dropped the extracted fact 'The mobile team will adopt Kotlin Multiplatform.': "
        "it drops a negation")
    assert result.warnings[-1] == ("no fact the model gave is said by the content; stored the "
                                   "content as given")
    assert result.usage.llm_calls == 1
    assert active(app) == [content]


def test_a_merged_fact_does_not_update_the_memory_it_was_merged_with(
        app: Container, llm: ScriptedLLM) -> None:
    who = agent(app)
    for text in ("Design reviews happen on Mondays.", "The design team uses Figma for all mockups."):
        llm.script(answer(text))
        app.memories.add(who, text, "acme")
    llm.script(answer(("Design reviews happen on Tuesdays, and the design team uses Figma for all "
                       "mockups.", 0, "updates")))

    result = app.memories.add(who, "Design reviews now happen on Tuesdays.", "acme")

    assert (result.mode, result.superseded, result.relations) == ("flat", [], [])
    assert "it merges words of existing memories" in result.warnings[0]
    assert active(app) == ["Design reviews happen on Mondays.",
                           "Design reviews now happen on Tuesdays.",
                           "The design team uses Figma for all mockups."]


def test_a_pending_note_whose_facts_are_all_ungrounded_is_kept_as_saved(
        app: Container, llm: ScriptedLLM) -> None:
    content = "Support moved the ticket queue from Freshdesk to Zendesk."
    llm.script(answer("The ticket queue moved from Zendesk to Freshdesk."))
    saved = app.memories.add(agent(app), content, "acme", wait=False)
    assert app.notes is not None

    [job] = [app.notes.process(job) for job in app.notes.pending()]

    assert job.state is NoteState.FLAT
    assert job.reason == "the one fact the model gave is not said by the note; kept as saved"
    assert active(app) == [content] and saved.memories[0].content == content


def test_a_pending_note_keeps_its_grounded_facts_and_says_how_many_were_dropped(
        app: Container, llm: ScriptedLLM) -> None:
    who = agent(app)
    llm.script(answer("Builds run on Jenkins."))
    app.memories.add(who, "Builds run on Jenkins.", "acme")
    llm.script(answer(("Builds run on Buildkite instead of Jenkins.", 0, "updates"),
                      "Builds run on Jenkins."))
    app.memories.add(who, "We retired Jenkins; builds run on Buildkite.", "acme", wait=False)
    assert app.notes is not None

    [job] = [app.notes.process(job) for job in app.notes.pending()]

    assert job.state is NoteState.EXTRACTED
    assert job.reason == ("replaced by 1 fact, superseding 1 earlier memory; dropped 1 the note "
                          "does not say")
    assert active(app) == ["Builds run on Buildkite instead of Jenkins."]
    space = app.store.directory.get_space_by_slug("acme")
    assert space is not None
    [fact] = app.store.reads.list_memories(MemoryFilter(space.id), 10)
    assert any(r.type is RelationType.UPDATES for r in app.store.relations.relations_of(space.id, fact.id))
