"""What a search costs the model that reads it: search_memory's text for the demo's questions,
on the seeded demo and the real embedding model, counted in cl100k tokens as briefings are
(llm/tokens.py). The median stays within 700 (it was 1,621 before the text was made lean), and
the text still carries what a model uses: each hit's short id, version and quoted text, each
related memory once."""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.cli.ingest import PLAN, seed_dir
from memspace.embeddings.local import E5_SMALL, LocalEmbedder
from memspace.llm.tokens import TokenCounter
from memspace.present.json import search_json
from memspace.present.search_lean import search_lean_json
from memspace.present.text import search_text
from memspace.services.access import AccessService
from memspace.services.search import SearchRequest, SearchResult
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings

pytestmark = pytest.mark.model

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
BUDGET = 700
# search_memory's structured content over MCP (compact JSON, as sent), which some clients give
# their model in place of the text: whole ids keep it above the text's budget.
STRUCTURED_BUDGET = 1_500


def readme_question() -> str:
    [asked] = re.findall(r'Then ask: \*\*"Use memspace: (.*?\?)', " ".join(README.split()))
    return asked


# The README's question, the CLI block's, the contract's worked example, the wheel test's, and
# three a support agent asks of the demo's other space.
QUESTIONS = [("acme-rebuild", readme_question()), ("acme-rebuild", "where is staging?"),
             ("acme-rebuild", "how do we deploy to production?"), ("acme-rebuild", "CDN pricing"),
             ("support", "how do refunds work?"), ("support", "who handles escalations?"),
             ("support", "when is support open?")]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("demo"),  # type: ignore[call-arg]
                        llm_model="")
    app = build(settings, embedder=LocalEmbedder(E5_SMALL))
    folder = seed_dir()
    app.seeder.load((folder / PLAN).read_text(encoding="utf-8"),
                    lambda name: (folder / name).read_bytes(), lambda _step: None)
    yield app
    app.close()


def searched(app: Container, space: str, question: str) -> SearchResult:
    return app.search.search(AccessService.operator(), SearchRequest(question, space=space))


def test_the_demo_questions_cost_at_most_700_tokens_at_the_median(demo: Container) -> None:
    counter = TokenCounter()
    assert counter.exact, "cl100k_base is missing from litellm's bundled copy"
    costs = {q: counter.count(search_text(searched(demo, space, q))) for space, q in QUESTIONS}
    assert statistics.median(costs.values()) <= BUDGET, costs


def test_the_structured_content_is_lean_and_well_under_every_field(demo: Container) -> None:
    counter = TokenCounter()
    lean, whole = [], []
    for space, question in QUESTIONS:
        found = searched(demo, space, question)
        lean.append(counter.count(json.dumps(search_lean_json(found), separators=(",", ":"))))
        whole.append(counter.count(json.dumps(search_json(found, lean_profile=True),
                                              separators=(",", ":"))))
    assert statistics.median(lean) <= STRUCTURED_BUDGET, lean
    # about half: whole ids stay, every field the text leaves out goes
    assert all(a <= 0.6 * b for a, b in zip(lean, whole, strict=True)), (lean, whole)


def test_each_hit_shows_its_short_id_version_and_text_and_each_related_memory_once(
        demo: Container) -> None:
    found = searched(demo, "acme-rebuild", readme_question())
    text = search_text(found)
    shown = search_json(found)["results"]
    assert len(shown) == 10
    for n, (hit, result) in enumerate(zip(found.hits, shown, strict=True), start=1):
        assert result["id"] == hit.memory.id and hit.memory.id.startswith(result["shortId"])
        assert 8 <= len(result["shortId"]) < len(hit.memory.id)
        assert f"{n}. [{result['shortId']}] v{hit.memory.version}" in text
        assert hit.memory.id not in text  # whole ids are the structured content's
    # the README's answer: the current fact and the one it corrected, each quoted once
    for fact in ("runs on our own Kubernetes cluster", "hosted on Vercel"):
        assert text.count(fact) == 1, text
    hits = {h.memory.id for h in found.hits}
    for hit in found.hits:
        for near in hit.related:
            if near.memory.id in hits:  # a related memory that is a hit is not quoted again
                assert text.count(near.memory.content[:60]) == 1, text
