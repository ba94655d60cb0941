"""Cases the pinned local model (tools/llm-local) gets right, shared by
tests/integration/test_real_model.py and bench/real_model_cases.py, which measures how often."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from memspace.domain.models import Access, Memory, MemoryFilter
from memspace.services.access.access import Principal
from memspace.startup.container import Container


@dataclass(frozen=True)
class Case:
    name: str
    expect: str  # "superseded", "extracted" or "linked"
    seeded: tuple[str, ...]
    content: str


CASES = [
    Case("postgres-correction", "superseded", ("The staging database runs Postgres 14.",),
         "Correction: the staging database runs Postgres 16, not 14."),
    Case("standup-moved", "superseded", ("The team standup is at 9:30 every morning.",),
         "The team standup is no longer at 9:30: it is at 10:00 every morning."),
    Case("gateway-note", "extracted", (),
         "Bo owns the API gateway and the gateway deploys on Mondays."),
    Case("staging-note", "extracted", (),
         "We moved staging from Postgres 14 to 16 last week; Alice owns the migration and the "
         "deadline is March 3."),
    Case("migration-deadline", "linked", ("Alice owns the Postgres 16 migration of staging.",),
         "The Postgres 16 migration of staging must be finished by March 3."),
    Case("release-testflight", "linked", ("The mobile app ships a release every two weeks.",),
         "Every mobile app release goes through TestFlight review before it ships."),
    Case("review-detail", "linked", ("Pull requests need one approving review before merge.",),
         "PRs need one approval before merging, and the approval has to come from a maintainer "
         "of the repository."),
    Case("backup-detail", "linked", ("The orders database is backed up every night.",),
         "The nightly backup of the orders database is kept for 30 days in the eu-west bucket."),
    Case("deploy-approver", "linked", ("Deploys to production need two approvals.",),
         "One of the two approvals a production deploy needs must come from the on-call engineer."),
    Case("freeze-derives", "linked", ("Only Lena can deploy the payments service.",
                                      "Lena is on vacation from June 2 to June 13."),
         "So nobody can deploy the payments service between June 2 and June 13, because Lena, "
         "the only one who can, is on vacation."),
]


class Space:
    """A fresh space, a writer, and facts seeded flat (bulk import: no model call)."""

    def __init__(self, app: Container, *seeded: str) -> None:
        self.app, self.slug = app, f"real-{uuid.uuid4().hex[:8]}"
        space = app.admin.create_space(self.slug)
        self.id = space.id
        self.agent: Principal = app.access.authenticate(
            app.admin.create_key("agent", {self.slug: Access.READWRITE}).raw)
        if seeded:
            app.memories.add_many(self.agent, list(seeded), self.slug)
        self.seeded = {m.content: m for m in self.memories(active_only=False)}

    def memories(self, active_only: bool = True) -> list[Memory]:
        where = MemoryFilter(self.id, include_inactive=not active_only)
        return self.app.store.reads.list_memories(where, 100)
