"""`MEMSPACE_METRICS=true`: Prometheus text at /metrics, read over HTTP after real traffic (MCP
tool calls, adds with a scripted model, a document through the worker), and nothing of the
memories' content or the keys in it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from memspace.domain.errors import NotFound, Unavailable
from memspace.domain.graph_port import ROLES
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Access, DocumentStatus
from memspace.startup.container import Container, build
from memspace.startup.metrics import Metrics, WatchedRole, WatchedStore
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder
from tests.support.scripted_llm import Reply, ScriptedLLM, sentences_as_facts
from tests.support.server import data, error_text, mcp_client, running_server

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).parents[1] / "artifacts"
SECRET_FACT = "The vault combination is 4-8-15-16"


@dataclass
class Served:
    url: str
    app: Container
    llm: ScriptedLLM
    slug: str
    key: str


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with ScriptedLLM() as llm:
        settings = Settings(_env_file=None, metrics=True, data_dir=tmp_path,  # type: ignore[call-arg]
                            llm_model="openai/scripted", llm_api_base=llm.url, llm_api_key="test",
                            # generous: no test here is about a timeout, and a loaded machine
                            # may take seconds to answer even the scripted model
                            llm_timeout_s=120)
        app = build(settings, embedder=HashEmbedder())
        slug = f"ops-{uuid.uuid4().hex[:6]}"
        app.admin.create_space(slug)
        key = app.admin.create_key("agent", {slug: Access.READWRITE}).raw
        with running_server(app) as url:
            yield Served(url, app, llm, slug, key)
        app.close()


def scrape(url: str) -> dict[str, float]:
    """Every sample of /metrics as {'name{label="v",…}': value}."""
    response = httpx2.get(f"{url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}"] = sample.value
    return samples


def wait_for_document(url: str, key: str, document_id: str) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = httpx2.get(f"{url}/v1/documents/{document_id}",
                            headers={"Authorization": f"Bearer {key}"}).json()["status"]
        if status in ("done", "failed"):
            return str(status)
        time.sleep(0.1)
    pytest.fail(f"document {document_id} still {status} after 60 s")


def wait_for_sample(url: str, name: str) -> None:
    """Until the worker has settled what the sample counts (60 s at most)."""
    deadline = time.monotonic() + 60
    while name not in scrape(url):
        if time.monotonic() > deadline:
            pytest.fail(f"{name} did not appear on /metrics within 60 s")
        time.sleep(0.1)


async def test_metrics_count_tool_calls_adds_model_documents_and_the_vector_cache(
        served: Served) -> None:
    who = served.app.access.authenticate(served.key)
    served.llm.script(Reply({"facts": [{"text": SECRET_FACT, "category": "fact", "relations": []}]},
                            prompt_tokens=120, completion_tokens=30))
    assert served.app.memories.add(who, SECRET_FACT, served.slug).mode == "extracted"
    served.llm.script(Reply("not json"), Reply("still not json"))
    fallback = served.app.memories.add(who, "Deploys happen on Tuesdays", served.slug)
    assert fallback.mode == "flat" and fallback.warnings
    async with mcp_client(served.url, served.key) as client:
        found = data(await client.call_tool("search_memory", {"query": "vault", "space": served.slug}))
        assert found["results"]
        assert "invalid_input" in error_text(await client.call_tool("search_memory", {"space": served.slug}))
    served.llm.fallback = sentences_as_facts
    accepted = httpx2.post(f"{served.url}/v1/documents", data={"space": served.slug},
                           headers={"Authorization": f"Bearer {served.key}"},
                           files={"file": ("runbook.md", b"# Runbook\n\nRestart the queue first.\n")})
    assert accepted.status_code == 202
    assert wait_for_document(served.url, served.key, accepted.json()["id"]) == "done"
    async with mcp_client(served.url, served.key) as client:  # an agent's add: no waiting
        note = data(await client.call_tool("add_memory", {"content": "Backups run nightly.",
                                                           "space": served.slug}))
    assert note["mode"] == "pending"
    settled = 'memspace_note_extractions_total{outcome="extracted"}'
    wait_for_sample(served.url, settled)

    samples = scrape(served.url)
    calls = "memspace_tool_call_duration_seconds_count"
    assert samples[f'{calls}{{status="ok",tool="search_memory"}}'] == 1
    assert samples[f'{calls}{{status="ok",tool="add_memory"}}'] == 1
    assert samples[f'{calls}{{status="invalid_input",tool="search_memory"}}'] == 1
    assert samples['memspace_memory_adds_total{mode="extracted",status="created"}'] >= 2  # + the chunk
    assert samples['memspace_memory_adds_total{mode="fallback",status="created"}'] == 1
    assert samples['memspace_memory_adds_total{mode="pending",status="created"}'] == 1
    assert samples[settled] == 1
    assert samples['memspace_model_calls_total{outcome="failed"}'] == 2
    assert samples['memspace_model_calls_total{outcome="ok"}'] >= 3  # add, chunk, note
    assert samples['memspace_model_tokens_total{kind="prompt"}'] >= 120 + 2 * 100
    assert samples['memspace_documents_processed_total{outcome="done"}'] == 1
    assert samples["memspace_ingestion_queue_depth{}"] == 0
    assert samples["memspace_vector_cache_vectors{}"] >= 2  # the two memories the search saw
    assert samples["memspace_vector_cache_bytes{}"] > 0
    body = httpx2.get(f"{served.url}/metrics").text
    assert "vault" not in body and served.key not in body and served.slug not in body
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "metrics-sample.txt").write_text(body, encoding="utf-8")


def test_metrics_are_off_by_default(tmp_path: Path) -> None:
    app = build(Settings(_env_file=None, data_dir=tmp_path), embedder=HashEmbedder())  # type: ignore[call-arg]
    try:
        assert app.metrics is None
        with running_server(app) as url:
            assert httpx2.get(f"{url}/metrics").status_code == 404
    finally:
        app.close()


def test_store_errors_are_counted_by_kind_and_the_store_keeps_its_roles(tmp_path: Path) -> None:
    metrics = Metrics()
    real = SqliteStore(tmp_path / "m.db")
    store = WatchedStore(real, metrics)
    # Every role is watched, the ones the work around the memories uses too; the search paths
    # are the real store's own.
    assert all(isinstance(getattr(store, name), WatchedRole) for name in ROLES)
    assert store.cache is real.cache and store.cold is real.cold

    def outage() -> None:
        raise Unavailable("the store does not answer")

    real.ping = outage  # type: ignore[method-assign]
    with pytest.raises(Unavailable):
        store.ping()
    assert metrics.registry.get_sample_value("memspace_store_errors_total", {"kind": "Unavailable"}) == 1
    with pytest.raises(NotFound):  # each role is watched: an error of a read is counted by kind
        store.documents.update_document("no-space", "no-document", DocumentStatus.DONE)
    assert metrics.registry.get_sample_value("memspace_store_errors_total", {"kind": "NotFound"}) == 1
    assert store.reads.get_memory("no-space", "no-memory") is None  # and answers as the real one
    with pytest.raises(NotFound):  # a role of the work around the memories alike
        store.marks.mark("no-space", "no-memory", MemoryStatus.DISPUTED, "a check", "a test",
                         datetime.now(UTC))
    assert metrics.registry.get_sample_value("memspace_store_errors_total", {"kind": "NotFound"}) == 2
    real.close()
