"""How one memory reads beside its id in the tools' texts (present/text.py): where it came from
said once, its kind without repeating itself."""

from __future__ import annotations

from dataclasses import replace

from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Provenance, ProvenanceKind
from memspace.present.json import memory_json
from memspace.present.text import _line, memory_line
from tests.support.builders import memory


def _both(m, titles):  # type: ignore[no-untyped-def]
    """The line from the record and from its wire form (add results print the latter)."""
    wire = memory_json(m) | {"documentTitle": titles.get(m.document_id)} if m.document_id else \
        memory_json(m)
    return memory_line(m, titles).splitlines()[0], _line(wire).splitlines()[0]


def test_a_document_section_names_its_document_once_and_no_second_source() -> None:
    chunk = replace(memory("s", "The storefront caches pages for five minutes."),
                    document_id="doc-1", origin="Architecture overview > Storefront",
                    provenance=Provenance(ProvenanceKind.DOCUMENT,
                                          "document doc-1 chunk 2 (Architecture overview)"))
    for head in _both(chunk, {"doc-1": "Architecture overview"}):
        assert "(from Architecture overview > Storefront)" in head
        assert head.count("Architecture overview") == 1
        assert "· document:" not in head


def test_a_page_keeps_its_title_and_a_model_fact_keeps_its_source() -> None:
    fact = replace(memory("s", "The Pro plan costs 49 euros a month."), document_id="doc-2",
                   origin="page 3", provenance=Provenance(ProvenanceKind.MODEL, "extraction of doc-2"))
    for head in _both(fact, {"doc-2": "Pricing 2026"}):
        assert "(from Pricing 2026, page 3)" in head
        assert "· model: extraction of doc-2" in head
    untitled = replace(fact, origin=None)
    assert "(from document doc-2)" in memory_line(untitled)


def test_a_typed_memory_says_its_type_once() -> None:
    decision = replace(memory("s", "We deploy on Thursdays.", category="decision"),
                       type=MemoryType.DECISION)
    assert "(decision)" in memory_line(decision)
    assert "(decision, release)" in memory_line(replace(decision, category="release"))
    assert "(release)" in memory_line(replace(decision, category="release", type=MemoryType.NOTE))
