"""Every write path x every secrets policy (issue 38), on each store: `refuse` writes nothing
and names the kind and place (never the value), `redact` stores `[redacted:<kind>]`, `allow`
stores the text as given. Also the security role objects: policies, the audit log, scrubbing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memspace.domain.errors import ContainsSecret
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, DocumentStatus, MemoryFilter
from memspace.domain.security import AuditEntry, InjectionPolicy, SecretsPolicy, SpacePolicy
from memspace.services.access.access import AccessService, Principal
from memspace.services.search.search import SearchRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder, MemoryBlobStore

SECRET = "AKIAZ7Q3XK4MPLW2RT5V"  # a fake AWS access key id in the real format
WITH = f"The deploy user's key is {SECRET} in eu-west-1"
REDACTED = "The deploy user's key is [redacted:aws-access-key] in eu-west-1"


@dataclass
class Space:
    app: Container
    slug: str
    who: Principal

    @property
    def id(self) -> str:
        return self.app.admin.space(self.slug).id

    def contents(self) -> list[str]:
        rows = self.app.store.reads.list_memories(MemoryFilter(self.id, include_inactive=True), 500)
        return sorted(m.content for m in rows)


@pytest.fixture
def app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path, chunk_chars=100)  # type: ignore[call-arg]
    made = build(settings, store=store, embedder=HashEmbedder(), blobs=MemoryBlobStore())
    yield made
    made.search.close()  # its background loads read the store, which the fixture closes next


def space(app: Container, policy: SecretsPolicy) -> Space:
    slug = f"guard-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    app.security.set_policy(slug, policy.value)
    key = app.admin.create_key(f"agent-{slug}", {slug: Access.READWRITE})
    return Space(app, slug, app.access.authenticate(key.raw))


def refused(write: Callable[[], object]) -> ContainsSecret:
    with pytest.raises(ContainsSecret) as caught:
        write()
    exc = caught.value
    assert SECRET not in exc.message and SECRET not in json.dumps(exc.without)
    assert {kind for _, kind, _ in exc.findings} == {"aws-access-key"}
    return exc


def redactions(app: Container, space_id: str) -> list[str]:
    return [e.detail for e in redacted(app, space_id)]


def redacted(app: Container, space_id: str) -> list[AuditEntry]:
    """The space's `secret.redacted` entries, oldest first: each names what it was stored in.
    Read from the space's creation on: the audit log is the whole store's, and on a database
    shared by the session the tests before this one (in whatever order) fill the read's limit
    with entries of their own."""
    made = app.store.directory.get_space(space_id)
    assert made is not None
    since = made.created_at - timedelta(seconds=1)
    return [e for e in app.security.audit_since(since)
            if e.action == "secret.redacted" and e.space_id == space_id]


# -- add_memory (MCP, REST, CLI and the views all call MemoryService.submit) ------------------

@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_add(app: Container, policy: SecretsPolicy) -> None:
    s = space(app, policy)
    if policy is SecretsPolicy.REFUSE:
        exc = refused(lambda: app.memories.add(s.who, WITH, s.slug, idempotency_key="k1"))
        assert exc.without == {"content": REDACTED} and "line 1" in exc.findings[0][2]
        assert s.contents() == []
        # The idempotency key was not claimed: the same call without the secret goes through.
        assert app.memories.add(s.who, REDACTED, s.slug, idempotency_key="k1").status == "created"
        return
    added = app.memories.add(s.who, WITH, s.slug)
    if policy is SecretsPolicy.REDACT:
        assert s.contents() == [REDACTED]
        assert any("aws-access-key" in w for w in added.warnings)
        assert redactions(app, s.id) and SECRET not in redactions(app, s.id)[0]
        assert [e.target for e in redacted(app, s.id)] == [added.memories[0].id]
    else:
        assert s.contents() == [WITH] and not added.warnings


@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_correct(app: Container, policy: SecretsPolicy) -> None:
    s = space(app, policy)
    old = app.memories.add(s.who, "The deploy user is svc-deploy", s.slug).memories[0]
    if policy is SecretsPolicy.REFUSE:
        refused(lambda: app.memories.correct(s.who, old.id, WITH, s.slug))
        assert s.contents() == ["The deploy user is svc-deploy"]
        current = app.store.reads.get_memory(s.id, old.id)
        assert current is not None and current.active  # not superseded by a refused correction
        return
    made = app.memories.correct(s.who, old.id, WITH, s.slug)
    expected = REDACTED if policy is SecretsPolicy.REDACT else WITH
    assert s.contents() == sorted(["The deploy user is svc-deploy", expected])
    named = [e.target for e in redacted(app, s.id)]
    assert named == ([made.memories[0].id] if policy is SecretsPolicy.REDACT else [])


@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_bulk_add(app: Container, policy: SecretsPolicy) -> None:
    s = space(app, policy)
    texts = ["Deploys happen on Tuesdays", WITH, "Rollbacks need one approval"]
    if policy is SecretsPolicy.REFUSE:
        exc = refused(lambda: app.memories.add_many(s.who, texts, s.slug))
        assert [f for f, _, _ in exc.findings] == ["contents[1]"]
        assert s.contents() == []  # nothing of the batch, not even the clean lines
        return
    app.memories.add_many(s.who, texts, s.slug)
    expected = REDACTED if policy is SecretsPolicy.REDACT else WITH
    assert s.contents() == sorted([texts[0], expected, texts[2]])


@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_handoff(app: Container, policy: SecretsPolicy) -> None:
    s = space(app, policy)

    def save() -> object:
        return app.handoffs.save(s.who, "Release prepared", next_steps=["tag it", WITH],
                                 links=[f"https://deploy:{'Zq8vLw2pR4tYx'}@ci.acme.io/job/7"],
                                 space=s.slug)

    if policy is SecretsPolicy.REFUSE:
        exc = refused(lambda: app.handoffs.save(s.who, "Release prepared",
                                                next_steps=["tag it", WITH], space=s.slug))
        assert exc.findings[0][0] == "nextSteps[1]"
        assert app.handoffs.latest(s.who, space=s.slug)[1] is None
        return
    save()
    latest = app.handoffs.latest(s.who, space=s.slug)[1]
    assert latest is not None
    if policy is SecretsPolicy.REDACT:
        assert latest.next_steps == ("tag it", REDACTED)
        assert [e.target for e in redacted(app, s.id)] == [latest.id]
        assert "Zq8vLw2pR4tYx" not in latest.links[0] and "[redacted:" in latest.links[0]
    else:
        assert latest.next_steps == ("tag it", WITH)


@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_import(app: Container, policy: SecretsPolicy) -> None:
    source = space(app, SecretsPolicy.ALLOW)
    app.memories.add(source.who, WITH, source.slug)
    app.memories.add(source.who, "Deploys happen on Tuesdays", source.slug)
    app.handoffs.save(source.who, f"Keys rotated; old one was {SECRET}", space=source.slug)
    lines = [json.dumps(r) for r in app.portability.export(AccessService.operator(), source.slug)]
    target = space(app, policy)
    if policy is SecretsPolicy.REFUSE:
        exc = refused(lambda: app.portability.import_space(AccessService.operator(), target.slug,
                                                           lines, new_ids=True))
        assert len(exc.findings) == 2  # the memory and the handoff's summary
        assert target.contents() == []
        assert app.handoffs.latest(AccessService.operator(), space=target.slug)[1] is None
        return
    app.portability.import_space(AccessService.operator(), target.slug, lines, new_ids=True)
    expected = REDACTED if policy is SecretsPolicy.REDACT else WITH
    assert target.contents() == sorted(["Deploys happen on Tuesdays", expected])
    handoff = app.handoffs.latest(AccessService.operator(), space=target.slug)[1]
    assert handoff is not None and (SECRET in handoff.summary) is (policy is SecretsPolicy.ALLOW)


@pytest.mark.parametrize("policy", list(SecretsPolicy))
def test_a_document_under_each_policy(app: Container, policy: SecretsPolicy) -> None:
    """A text file is screened whole as it is uploaded: refused with nothing stored, or stored
    redacted — its original, its text and the memories made from it."""
    s = space(app, policy)
    text = ("Deploys happen on Tuesdays after the standup, once the release notes are written "
            "and reviewed.\n\n" + WITH + ".\n\nRollbacks need one approval from the on-call "
            "engineer, who checks the dashboards for ten minutes after.\n")
    blobs = app.ingestion._files._blobs  # type: ignore[attr-defined]  # the test's MemoryBlobStore
    if policy is SecretsPolicy.REFUSE:
        with pytest.raises(ContainsSecret) as refused:
            app.ingestion.upload(s.who, "runbook.md", text.encode(), space=s.slug)
        assert [(f, k) for f, k, _ in refused.value.findings] == [("file", "aws-access-key")]
        assert "line 3" in refused.value.findings[0][2] and SECRET not in str(refused.value.without)
        assert s.contents() == [] and app.documents.list(s.who, s.slug)[1].items == []
        assert not [k for k in blobs.blobs if k.startswith(s.id)]
        return
    uploaded = app.ingestion.upload(s.who, "runbook.md", text.encode(), space=s.slug)
    done = app.ingestion.process(uploaded.document)
    assert done.status is DocumentStatus.DONE
    stored = " ".join(s.contents())
    assert "Tuesdays" in stored and "Rollbacks" in stored
    kept = b"".join(v for k, v in blobs.blobs.items() if k.startswith(s.id))
    assert (SECRET in stored) is (SECRET.encode() in kept) is (policy is SecretsPolicy.ALLOW)
    if policy is SecretsPolicy.REDACT:
        assert "[redacted:aws-access-key]" in stored and b"[redacted:aws-access-key]" in kept
        assert [e.target for e in redacted(app, s.id)] == [uploaded.document.id]


# -- the role objects ----------------------------------------------------------------------

def test_policies_audit_and_scrub_on_each_store(app: Container, store: GraphStore) -> None:
    roles = store.security
    s = space(app, SecretsPolicy.ALLOW)
    assert roles.get_space_policy(s.id) == SpacePolicy(SecretsPolicy.ALLOW)
    roles.set_space_policy(s.id, SpacePolicy(SecretsPolicy.REDACT, InjectionPolicy.QUARANTINE))
    assert roles.get_space_policy(s.id) == SpacePolicy(SecretsPolicy.REDACT,
                                                        InjectionPolicy.QUARANTINE)
    assert roles.get_space_policy(uuid.uuid4().hex) == SpacePolicy()  # never set: defaults
    since = datetime.now(UTC) - timedelta(seconds=5)
    app.security.set_policy(s.slug, "allow")
    entries = [e for e in roles.audit_since(since, 100) if e.target == s.slug]
    assert [e.action for e in entries][-1] == "space.policy"
    added = app.memories.add(s.who, WITH, s.slug).memories[0]
    report = app.security.scan(s.slug)
    assert [h.memory_id for h in report.hits] == [added.id] and not report.redacted
    fixed = app.security.scan(s.slug, fix=True)
    assert fixed.redacted and s.contents() == [REDACTED]
    assert app.security.scan(s.slug).hits == []
    kept = app.store.reads.get_memory(s.id, added.id)
    assert kept is not None and kept.version == added.version and kept.active
    # The keyword index no longer knows the secret's word: it was rewritten with the text.
    found = app.search.search(s.who, SearchRequest(query=SECRET, keyword=SECRET, space=s.slug))
    assert all(SECRET not in h.memory.content for h in found.hits)
