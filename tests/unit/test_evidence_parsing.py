"""Citations as written, and anchors: the cited line, widened only when it cannot stand alone."""

from __future__ import annotations

import pytest

from memspace.domain.errors import InvalidInput, UnresolvableAnchor
from memspace.domain.evidence import (
    Citation,
    Verification,
    anchor_at,
    find_window,
    overall,
    parse_citation,
)


@pytest.mark.parametrize(("raw", "kind", "text"), [
    ("api/src/retry.py:42", "file", "api/src/retry.py:42"),
    (" retry.py:7#Backoff.delay ", "file", "retry.py:7#Backoff.delay"),
    ("commit:ABCDEF1", "commit", "commit:abcdef1"),
    ("cmd: make test ", "cmd", "cmd:make test"),
    ("https://example.test/adr/7", "url", "https://example.test/adr/7"),
])
def test_each_form_parses(raw: str, kind: str, text: str) -> None:
    citation = parse_citation(raw)
    assert (citation.kind, citation.text) == (kind, text)
    assert (citation.state == Verification.NOT_ANCHORED) == (kind != "file")


@pytest.mark.parametrize("raw", ["", "see the code", "retry.py", "retry.py:0", "commit:xyz",
                                 "cmd:", "http://example.test", "https://", "a b.py:3"])
def test_malformed_citations_say_the_grammar(raw: str) -> None:
    with pytest.raises(InvalidInput):
        parse_citation(raw)


@pytest.mark.parametrize("raw", ["../etc/passwd:1", "api/../../x.py:2", "/etc/passwd:1",
                                 "~/x.py:1", "a//b.py:1"])
def test_paths_leaving_the_repository_are_unresolvable(raw: str) -> None:
    with pytest.raises(UnresolvableAnchor):
        parse_citation(raw)


def test_the_anchor_is_the_line_unless_it_cannot_stand_alone() -> None:
    lines = ["def a():", "    return 1", "}", "", "def b():", "    return 1", "x = compute()"]
    assert anchor_at(lines, 6) == (("x = compute()",), 0)
    anchor, offset = anchor_at(lines, 1)  # repeated: widened until unique
    assert anchor[offset] == "return 1" and len(find_window([s.strip() for s in lines], anchor)) == 1
    anchor, offset = anchor_at(lines, 2)  # trivial
    assert anchor[offset] == "}" and len(anchor) > 1


def test_a_memory_shows_its_worst_citation() -> None:
    ok = Citation("file", "a.py", state=Verification.VERIFIED)
    gone = Citation("file", "b.py", state=Verification.BROKEN)
    cmd = Citation("cmd", "make", state=Verification.NOT_ANCHORED)
    assert overall(()) is None
    assert overall((cmd,)) == "not_anchored"
    assert overall((ok, cmd)) == "verified"
    assert overall((ok, gone, cmd)) == "broken"
