"""The UPDATES floor (services/memories/reconcile.py) of each local model (its Calibration), with the real
model, on the pairs it was measured on: the genuine change with the lowest similarity is kept,
the unrelated pair with the highest is refused. A floor moved to either side of the gap fails one
of them."""

from __future__ import annotations

import pytest

from memspace.domain.extraction import Extraction
from memspace.domain.models import Memory
from memspace.embeddings.local import E5_SMALL, MINILM, LocalEmbedder
from memspace.services.memories.reconcile import plan_extraction
from tests.support import builders
from tests.support.fakes import fact

pytestmark = pytest.mark.model


@pytest.fixture(scope="module", params=[E5_SMALL, MINILM], ids=lambda m: m.name)
def embedder(request: pytest.FixtureRequest) -> LocalEmbedder:
    model = LocalEmbedder(request.param)
    model.warm_up()
    return model


def plan_update(embedder: LocalEmbedder, old_text: str, new_text: str) -> tuple[dict[str, str], list[str]]:
    old = builders.memory("space-1", old_text)

    def fact_memory(text: str, category: str) -> Memory:
        return builders.memory("space-1", text, category=category)

    made = plan_extraction(Extraction((fact(new_text, a=(0, "updates")),)), [old], fact_memory,
                           embedder.embed, lambda _hash: None, "agent",
                           floor=embedder.calibration.update_floor)
    return made.supersede, made.warnings


def test_the_least_similar_genuine_change_measured_is_kept(embedder: LocalEmbedder) -> None:
    supersede, warnings = plan_update(embedder, "Use ruff for linting", "We switched from flake8 to ruff")
    assert (len(supersede), warnings) == (1, [])


def test_the_most_similar_unrelated_pair_measured_is_refused(embedder: LocalEmbedder) -> None:
    supersede, warnings = plan_update(embedder, "Our standup is at 9:30", "Lunch is at noon")
    assert supersede == {}
    assert len(warnings) == 1 and "look unrelated (similarity" in warnings[0]
    assert f"< {embedder.calibration.update_floor})" in warnings[0]
