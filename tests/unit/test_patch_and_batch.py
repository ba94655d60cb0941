"""patch_memory and getMemories (services/memories/memory_writes.py, memory_reads.py)."""

from __future__ import annotations

import pytest

from memspace.domain.errors import InvalidInput, NotFound, StaleVersion
from memspace.domain.lifecycle import MemoryStatus
from tests.unit.conftest import World


def test_a_patch_makes_the_next_version_and_keeps_the_old_one(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Deploys need two approvals", "acme").memories[0]

    appended = world.app.memories.patch(who, first.id, append="from the on-call team",
                                        expected_version=1)
    new = appended.memories[0]
    assert (appended.status, new.content, new.version) == (
        "updated", "Deploys need two approvals from the on-call team", 2)
    replaced = world.app.memories.patch(who, new.id, replace_old="two", replace_new="three",
                                        expected_version=2).memories[0]
    assert (replaced.content, replaced.version) == (
        "Deploys need three approvals from the on-call team", 3)
    old = world.app.store.reads.get_memory(first.space_id, first.id)
    assert old is not None and (old.status, old.superseded_by) == (MemoryStatus.SUPERSEDED, new.id)
    links = world.app.store.relations.relations_of(first.space_id, new.id)
    assert {r.reason for r in links} == {"patched (append)", "patched (replace)"}


def test_a_replace_whose_text_is_absent_fails_loudly_and_changes_nothing(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Backups run at 02:00 UTC", "acme").memories[0]
    with pytest.raises(InvalidInput, match="does not occur"):
        world.app.memories.patch(who, first.id, replace_old="03:00", replace_new="04:00")
    with pytest.raises(InvalidInput, match="exactly one"):
        world.app.memories.patch(who, first.id, append="a", prepend="b")
    still = world.app.store.reads.get_memory(first.space_id, first.id)
    assert still is not None and still.active and still.version == 1


def test_a_stale_patch_is_refused(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "The API answers in JSON", "acme").memories[0]
    world.app.memories.correct(who, first.id, "The API answers in JSON or CBOR", "acme")
    with pytest.raises(StaleVersion):
        world.app.memories.patch(who, first.id, append="only", expected_version=1)


def test_get_many_reads_in_order_and_reports_foreign_ids_as_missing(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "rw"})
    a = world.app.memories.add(who, "first note", "acme").memories[0]
    b = world.app.memories.add(who, "second note", "acme").memories[0]
    foreign = world.app.memories.add(who, "not here", "other").memories[0]
    slug, found, missing = world.app.memories.get_many(who, [b.id, foreign.id, a.id, "nope"],
                                                       "acme")
    assert (slug, [m.id for m in found], missing) == ("acme", [b.id, a.id], [foreign.id, "nope"])
    with pytest.raises(InvalidInput, match="at most 50"):
        world.app.memories.get_many(who, [f"id{i}" for i in range(51)], "acme")


def test_revisions_list_every_version_with_who_when_why_and_marks(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Logs are kept 7 days", "acme").memories[0]
    second = world.app.memories.correct(who, first.id, "Logs are kept 30 days", "acme",
                                        reason="compliance asked").memories[0]
    world.app.lifecycle.mark(who, second.id, "disputed", "legal says 90", "acme")
    third = world.app.memories.patch(who, second.id, append="in cold storage").memories[0]

    for any_id in (first.id, second.id, third.id):
        slug, line = world.app.lifecycle.revisions(who, any_id, "acme")
        assert slug == "acme"
        assert [(v.memory.id, v.why) for v in line] == [
            (first.id, None), (second.id, "compliance asked"), (third.id, "patched (append)")]
    assert [(r.status, r.reason) for r in line[1].marks] == [("disputed", "legal says 90")]


def test_rename_category_moves_every_current_memory_in_one_write(world: World) -> None:
    from memspace.services.search.search import SearchRequest

    who = world.principal({"acme": "rw", "other": "rw"})
    a = world.app.memories.add(who, "Terraform state lives in S3", "acme", category="infra")
    b = world.app.memories.add(who, "Nodes run Ubuntu 24.04", "acme", category="infra")
    world.app.memories.add(who, "Other team infra note", "other", category="infra")
    version = world.app.store.directory.space_stats(a.memories[0].space_id).version

    slug, renamed = world.app.memories.rename_category(who, "acme", "Infra", "platform")

    assert slug == "acme" and {m.content for m in renamed} == {
        "Terraform state lives in S3", "Nodes run Ubuntu 24.04"}
    assert world.app.store.directory.space_stats(a.memories[0].space_id).version == version + 1  # one write
    hits = world.app.search.search(who, SearchRequest("where is terraform state?",
                                                      category="platform", space="acme")).hits
    assert hits and hits[0].memory.content == "Terraform state lives in S3"
    assert world.app.search.search(who, SearchRequest("terraform", category="infra",
                                                      space="acme")).hits == ()
    old = world.app.store.reads.get_memory(a.memories[0].space_id, b.memories[0].id)
    assert old is not None and old.superseded_by in {m.id for m in renamed}
    _, kept = world.app.memories.list(who, "other", category="infra")
    assert len(kept.items) == 1
    with pytest.raises(NotFound):
        world.app.memories.rename_category(who, "acme", "infra", "x")
