"""Every string a writer supplies passes the one write guard, not only a memory's text: a
credential in a category, a speaker, a citation or a reason (of a correction, a forget, a mark, a
conflict's settlement) is refused under `refuse` with nothing written, and stored redacted under
`redact`, so no reader of the space is shown it. On each store."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memspace.domain.errors import ContainsSecret
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, DocumentStatus, MemoryFilter
from memspace.present.json import memory_detail_json
from memspace.services.access.access import Principal
from memspace.services.memories.add_types import AddRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.corpus import pdf
from tests.support.fakes import HashEmbedder, MemoryBlobStore

SECRET = "ghp_" + "Zq7Lm2Xv9Rt4Wb8Nc1Ks6Jd3Hf5Gy0Pa2UeQ"  # a fake GitHub token in the real format


@pytest.fixture
def app(store: GraphStore, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    made = build(settings, store=store, embedder=HashEmbedder(), blobs=MemoryBlobStore())
    yield made
    made.search.close()


def writer(app: Container, policy: str) -> tuple[str, Principal]:
    slug = f"fields-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    app.security.set_policy(slug, policy)
    key = app.admin.create_key(f"agent-{slug}", {slug: Access.READWRITE})
    return slug, app.access.authenticate(key.raw)


def everything(app: Container, slug: str) -> str:
    """All a reader can be shown of the space: every memory with its history and relations."""
    space_id = app.admin.space(slug).id
    operator = app.access.operator()
    shown = [memory_detail_json(app.memories.get(operator, m.id, slug))
             for m in app.store.reads.list_memories(MemoryFilter(space_id, include_inactive=True),
                                                    500)]
    marks = app.lifecycle.marks(space_id, [m["memory"]["id"] for m in shown])
    return json.dumps(shown, default=str) + repr(marks)


def seeded(app: Container, slug: str, who: Principal) -> str:
    return app.memories.add(who, "Releases are cut from main every Tuesday", slug, "process").memories[0].id


WRITES: dict[str, Callable[[Container, str, Principal], Any]] = {
    "category": lambda app, slug, who: app.memories.submit(who, AddRequest(
        "The build cache lives in the ops bucket", slug, category=f"ops {SECRET}")),
    "speaker": lambda app, slug, who: app.memories.submit(who, AddRequest(
        "I own the build cache", slug, speaker=f"dana {SECRET}")),
    "evidence": lambda app, slug, who: app.memories.submit(who, AddRequest(
        "The smoke test gates every deploy", slug, evidence=(f"cmd:GH_TOKEN={SECRET} make smoke",))),
    "correction reason": lambda app, slug, who: app.memories.correct(
        who, seeded(app, slug, who), "Releases are cut from main every Friday", slug,
        reason=f"moved, token {SECRET}"),
    "forget reason": lambda app, slug, who: app.memories.forget(
        who, seeded(app, slug, who), reason=f"gone, token {SECRET}", space=slug),
    "mark reason": lambda app, slug, who: app.lifecycle.mark(
        who, seeded(app, slug, who), "disputed", f"see {SECRET}", slug),
}


@pytest.mark.parametrize("field", list(WRITES))
def test_refuse_writes_nothing_and_names_the_field(app: Container, field: str) -> None:
    slug, who = writer(app, "refuse")
    before = everything(app, slug)
    with pytest.raises(ContainsSecret) as refused:
        WRITES[field](app, slug, who)
    assert SECRET not in refused.value.message and SECRET not in json.dumps(refused.value.without)
    assert [kind for _, kind, _ in refused.value.findings] == ["github-token"]
    after = everything(app, slug)
    assert SECRET not in after
    if field in ("category", "speaker", "evidence"):  # the write itself: nothing stored
        assert after == before


@pytest.mark.parametrize("field", list(WRITES))
def test_redact_stores_the_field_without_the_credential(app: Container, field: str) -> None:
    slug, who = writer(app, "redact")
    WRITES[field](app, slug, who)
    shown = everything(app, slug)
    assert SECRET not in shown and "[redacted:github-token]" in shown


def test_a_refused_citation_comes_back_as_a_list_in_the_example(app: Container) -> None:
    slug, who = writer(app, "refuse")
    with pytest.raises(ContainsSecret) as refused:
        WRITES["evidence"](app, slug, who)
    assert refused.value.without["evidence"] == ["cmd:GH_TOKEN=[redacted:github-token] make smoke"]


AWS = "AKIAZ7Q3XK4MPLW2RT5V"  # a fake AWS access key id in the real format


@pytest.mark.parametrize("policy", ["refuse", "redact"])
def test_a_pdf_keeps_no_byte_of_a_credential_a_reader_could_fetch(app: Container,
                                                                    policy: str) -> None:
    slug, who = writer(app, policy)
    reader_key = app.admin.create_key(f"reader-{slug}", {slug: Access.READ}).raw
    reader = app.access.authenticate(reader_key)
    data = pdf([f"The deploy user's access key is {AWS} in eu-west-1.\n\nRollbacks need one "
                "approval from the on-call engineer."])
    uploaded = app.ingestion.upload(who, "keys.pdf", data, space=slug)
    done = app.ingestion.process(uploaded.document)
    blobs = app.ingestion._files._blobs  # type: ignore[attr-defined]  # the test's MemoryBlobStore
    kept = b"".join(v for k, v in blobs.blobs.items() if k.startswith(app.admin.space(slug).id))
    assert AWS.encode() not in kept
    assert not [k for k in blobs.blobs if k.endswith(f"{done.id}/original")]  # cannot be redacted
    if policy == "refuse":
        assert done.status is DocumentStatus.FAILED and done.error is not None
        assert "aws-access-key" in done.error and AWS not in done.error
        assert everything(app, slug) == everything(app, slug) and AWS not in everything(app, slug)
        return
    assert done.status is DocumentStatus.DONE
    page = app.documents.content(reader, done.id, slug)
    shown = json.dumps([c.text for c in page.chunks])
    assert AWS not in shown and "[redacted:aws-access-key]" in shown
    assert AWS not in everything(app, slug)


def test_an_upload_title_or_file_name_holding_a_credential_is_refused(app: Container) -> None:
    slug, who = writer(app, "refuse")
    with pytest.raises(ContainsSecret) as refused:
        app.ingestion.upload(who, "notes.md", b"Deploys are on Fridays.", space=slug,
                             title=f"keys {SECRET}")
    assert [f for f, _, _ in refused.value.findings] == ["title"]
    with pytest.raises(ContainsSecret):
        app.ingestion.upload(who, f"{SECRET}.md", b"Deploys are on Fridays.", space=slug)


def test_the_audit_log_records_forgets_marks_settlements_and_refused_secrets(
        app: Container) -> None:
    slug, who = writer(app, "refuse")
    since = datetime.now(UTC) - timedelta(seconds=5)
    marked = seeded(app, slug, who)
    app.lifecycle.mark(who, marked, "disputed", "the load test disagrees", slug)
    [conflict] = app.conflicts.listing(who, slug).page.items
    app.conflicts.resolve(who, conflict.id, marked, None, "the load test was wrong", None, slug)
    gone = app.memories.add(who, "The old pager number is on the wiki", slug).memories[0].id
    app.memories.forget(who, gone, reason="the wiki page is gone", space=slug)
    with pytest.raises(ContainsSecret):
        WRITES["category"](app, slug, who)
    space_id = app.admin.space(slug).id
    entries = [e for e in app.security.audit_since(since) if e.space_id == space_id]
    by_action = {e.action: e for e in entries}
    assert {"memory.mark", "conflict.resolve", "memory.forget", "secret.refused"} <= set(by_action)
    assert by_action["memory.forget"].target == gone and by_action["memory.mark"].target == marked
    assert "github-token in category" in by_action["secret.refused"].detail
    assert SECRET not in repr(entries)
    assert {by_action[a].actor for a in ("memory.mark", "conflict.resolve", "memory.forget",
                                         "secret.refused")} == {who.actor}


def test_scan_reads_every_field_handoffs_and_documents_and_redacts_documents(
        app: Container) -> None:
    slug, who = writer(app, "allow")
    WRITES["category"](app, slug, who)
    app.handoffs.save(who, "Pushed the fix", "coder", "release", [], [f"rotate {SECRET}"], [], [],
                      slug)
    uploaded = app.ingestion.upload(who, "keys.md", f"# Keys\n\nThe token is {SECRET}.\n".encode(),
                                    space=slug)
    app.ingestion.process(uploaded.document)
    report = app.security.scan(slug)
    fields = {f for hit in report.hits for f, _, _ in hit.findings}
    assert "category" in fields
    others = {(o.what, f) for o in report.others for f, _, _ in o.findings}
    assert ("handoff", "nextSteps[0]") in others
    assert ("document", "chunk 1 (Keys)") in others
    fixed = app.security.scan(slug, fix=True)
    assert [o.redacted for o in fixed.others if o.what == "document"] == [True]
    blobs = app.ingestion._files._blobs  # type: ignore[attr-defined]  # the test's MemoryBlobStore
    document_bytes = b"".join(v for k, v in blobs.blobs.items() if uploaded.document.id in k)
    assert SECRET.encode() not in document_bytes and b"[redacted:github-token]" in document_bytes


def test_scan_redact_rewrites_a_memorys_category_speaker_citations_and_forget_reason(
        app: Container) -> None:
    # Written under `allow`, then redacted in place: nothing a reader is shown of a memory
    # keeps the token, and its id, version and history stay.
    slug, who = writer(app, "allow")
    for field in ("category", "speaker", "evidence", "forget reason"):
        WRITES[field](app, slug, who)
    before = app.security.scan(slug)
    assert {f for hit in before.hits for f, _, _ in hit.findings} >= {
        "category", "speaker", "evidence[0]", "forgetReason"}
    assert SECRET in everything(app, slug)
    space_id = app.admin.space(slug).id
    versions = {m.id: m.version for m in app.store.reads.list_memories(
        MemoryFilter(space_id, include_inactive=True), 50)}
    app.security.scan(slug, fix=True)
    assert app.security.scan(slug).hits == []
    shown = everything(app, slug)
    assert SECRET not in shown and "[redacted:github-token]" in shown
    after = app.store.reads.list_memories(MemoryFilter(space_id, include_inactive=True), 50)
    assert {m.id: m.version for m in after} == versions
    cited = [c for m in after for c in m.evidence]
    assert [c.kind for c in cited] == ["cmd"] and "make smoke" in cited[0].value
