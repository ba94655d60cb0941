"""search_memory's structured content over MCP, lean: Claude Code, Codex and Copilot CLI give
their model this JSON in place of the text (docs/contract.md), so it says what the text says
and no more. Each hit: its whole `id` (programs keep working) and `shortId`, version, type
(but a plain note's) and category (but the default), status when not current, who said or
wrote it and when as the text shows them, its content cut as the text cuts it, and its score;
each related memory compact, and one the answer shows elsewhere (a hit, or under an earlier
hit) named by its id, never repeated. The profile is the space and its counts. `fullRecords`
asks for every field (present/json.py's search_json), as REST and the CLI answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memspace.domain.models import Memory, ProvenanceKind, provenance_of
from memspace.domain.quoting import NOTICE
from memspace.present.json import profile_json
from memspace.present.records import RELATED_EXCERPT_CHARS, excerpt
from memspace.present.search_text import HIT_CHARS, PLAIN, Shown, related_shown
from memspace.present.timeline import TODAY_LEFT_OUT, slice_json

if TYPE_CHECKING:
    from memspace.services.search import SearchHit, SearchResult


def _state(memory: Memory) -> dict[str, Any]:
    """Nothing for a current memory; else its status when not current, `active: false` when
    it is history, and what replaced it (whole id)."""
    data: dict[str, Any] = {}
    if memory.status.value != "current":
        data["status"] = memory.status.value
    if not memory.active:
        data["active"] = False
    if memory.superseded_by:
        data["supersededBy"] = memory.superseded_by
    return data


def _who(memory: Memory, titles: Mapping[str, str]) -> dict[str, Any]:
    """`who` said it or wrote it and `when` it was observed (a date), as the text says them:
    the speaker where the writer gave one, else the writer (an agent's key by its name, another
    kind as `human: cli ana`); a document's chunk says `from` which document and where."""
    data: dict[str, Any] = {}
    if memory.speaker:
        data["who"] = memory.speaker
    elif memory.document_id:
        title, origin = titles.get(memory.document_id), memory.origin
        if title and origin and (origin == title or origin.startswith(title + " > ")):
            title = None
        data["from"] = ", ".join(x for x in (title, origin) if x) or "a document"
    else:
        made = provenance_of(memory)
        kind = "" if made.kind is ProvenanceKind.AGENT else f"{made.kind.value}: "
        data["who"] = f"{kind}{made.source}"
    if memory.observed_at:
        data["when"] = memory.observed_at.date().isoformat()
    return data


def _content(memory: Memory, chars: int | None) -> dict[str, Any]:
    shown = excerpt(memory.content, chars)
    data: dict[str, Any] = {"content": shown}
    if shown is not memory.content:
        data["bodyChars"] = len(memory.content)  # getMemory reads it whole
    if memory.suspicious:
        data["suspicious"] = memory.suspicious
    return data


def _related(shown: Shown, short: Mapping[str, str]) -> dict[str, Any]:
    """`{id, shortId, relation, direction, hops}`, then `hit` (its number among the results)
    for a hit, nothing more for one shown under an earlier hit, else its state and excerpt."""
    near, memory = shown.near, shown.near.memory
    data: dict[str, Any] = {"id": memory.id, "shortId": short.get(memory.id, memory.id),
                            "relation": near.via.value, "direction": near.direction,
                            "hops": near.hops}
    if shown.hit is not None:
        data["hit"] = shown.hit
    elif not shown.again:
        data |= _state(memory) | _content(memory, RELATED_EXCERPT_CHARS)
    return data


def _hit(hit: SearchHit, related: list[Shown], found: SearchResult) -> dict[str, Any]:
    memory = hit.memory
    data: dict[str, Any] = {"id": memory.id, "shortId": found.short.get(memory.id, memory.id),
                            "version": memory.version}
    # As the text names its kind: a type but a plain note's, a category but the default and
    # one that repeats the type.
    if memory.type.value != "note":
        data["type"] = memory.type.value
    if memory.category not in (PLAIN, memory.type.value):
        data["category"] = memory.category
    data |= _state(memory) | _who(memory, found.titles)
    if memory.evidence:
        data |= {"verification": memory.verification,
                 "evidence": [c.text for c in memory.evidence]}
    data |= _content(memory, None if found.include_body else HIT_CHARS)
    data["score"] = round(hit.score, 3)
    if related:
        data["relatedMemories"] = [_related(shown, found.short) for shown in related]
    return data


def search_lean_json(found: SearchResult) -> dict[str, Any]:
    """search_memory's default structured content over MCP (the module's docstring)."""
    data: dict[str, Any] = {"space": found.space, "searchMode": found.mode}
    if found.path != "warm":  # ranked on the store's indexes while the space loads
        data["searchPath"] = found.path
    data |= slice_json(found.at)
    if found.message:
        data["message"] = found.message
    if found.hits:
        # The model that reads this JSON never sees the text's framing: it comes along.
        data["notice"] = NOTICE
    data["results"] = [_hit(hit, related, found)
                       for hit, related in zip(found.hits, related_shown(found.hits), strict=True)]
    data["total"] = len(found.hits)
    if found.profile is not None:
        whole = profile_json(found.profile)
        data["profile"] = {k: whole[k] for k in ("slug", "counts")}
    elif found.profile_left_out:
        data["profileLeftOut"] = TODAY_LEFT_OUT
    return data
