"""get_context by sections (services/briefing/briefing.py, briefing_sections.py)."""

from __future__ import annotations

from memspace.llm.tokens import TokenCounter
from memspace.present.json import context_json
from memspace.services.evidence.verification import BrokenNote
from memspace.services.memories.memories import AddRequest
from tests.unit.conftest import World

COUNT = TokenCounter().count
ORDER = ["## Instructions for agents", "## Unresolved conflicts", "## Moved or broken notes",
         "## Latest handoff", "## Active constraints", "## Decisions and architecture",
         "## Failed approaches", "## Current status", "## Relevant notes", "## Open tasks",
         "## Recent changes"]


def _add(world: World, who, text: str, kind: str | None = None, **extra: object) -> str:  # type: ignore[no-untyped-def]
    return world.app.memories.submit(who, AddRequest(text, "acme", memory_type=kind, **extra)).memories[0].id  # type: ignore[arg-type]


def test_sections_come_in_the_fixed_order_and_leave_out_what_no_longer_holds(
        world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.admin.set_space("acme", instructions="Run make check before every commit.")
    _add(world, who, "Secrets never go in the repository", "constraint")
    _add(world, who, "Kafka carries every event between services", "architecture", canonical=True)
    old = _add(world, who, "Payments retry three times", "decision")
    world.app.memories.correct(who, old, "Payments retry five times with jitter", "acme")
    _add(world, who, "Polling the ledger every second overloaded it", "failed_approach")
    _add(world, who, "The migration to v2 is half done", "status")
    _add(world, who, "Write the rollback runbook", "task")
    _add(world, who, "The office wifi is called acme-guest")
    gone = _add(world, who, "The old VPN lives at vpn1.acme.internal", "reference")
    world.app.lifecycle.mark(who, gone, "historical", "replaced by the new VPN", "acme")
    doubted = _add(world, who, "The cache expires after ten minutes", "fact")
    world.app.lifecycle.mark(who, doubted, "disputed", "the metrics show 30 minutes", "acme")
    world.app.handoffs.save(who, "Half way through the v2 migration", space="acme")
    world.app.briefings._broken = lambda space_id: [BrokenNote(doubted, "src/cache.py moved")]

    text = world.app.briefings.brief(who, max_tokens=4000, space="acme").text

    at = [text.index(title) for title in ORDER]
    assert at == sorted(at), text
    assert "Run make check before every commit." in text
    assert "Payments retry three times" not in text  # superseded
    assert "vpn1.acme.internal" not in text  # historical
    assert text.count("The cache expires after ten minutes") == 1  # only among the conflicts
    assert "the metrics show 30 minutes" in text
    assert text.index("Kafka carries every event") < text.index("Payments retry five times")


def test_a_long_constraint_never_pushes_out_the_conflict_warning(world: World) -> None:
    who = world.principal({"acme": "rw"})
    doubted = _add(world, who, "Deploys need one approval", "constraint")
    world.app.lifecycle.mark(who, doubted, "disputed", "security wants two", "acme")
    long_rule = "Every external call goes through the gateway " + " ".join(
        f"k{i}" for i in range(40))  # "k" never appears in a hex id (as "c39" once did)
    constraint = _add(world, who, long_rule, "constraint")

    brief = world.app.briefings.brief(who, max_tokens=200, space="acme")

    assert COUNT(brief.text) <= 200
    assert "## Unresolved conflicts" in brief.text and f"[{doubted[:8]}]" in brief.text  # short id
    assert doubted in brief.included + brief.shortened
    assert "k39" not in brief.text  # the constraint did not fit whole
    meta = context_json(brief)["meta"]
    if constraint in brief.omitted:
        assert {"id": constraint, "section": "constraints"} in meta["omittedEntries"]
    else:
        assert constraint in brief.shortened
