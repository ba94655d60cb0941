"""search_memory's text: what a model reads of every search, so every token counts (an agent
searches many times a task). Each hit says what a model needs to use it — its short id,
version, type, status when not current, who wrote or said it, when it was observed, where it
came from — and its text as a quote (present/quoting.py). Each related memory is one line: its
relation, what it is and an excerpt; one that is also a hit, or was shown under an earlier
hit, is named, not repeated. The whole answer, with whole ids, is the structured content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memspace.domain.models import Memory, Neighbour, ProvenanceKind, provenance_of
from memspace.domain.quoting import QUOTE, first_words
from memspace.domain.text import counted, kind_label
from memspace.present.quoting import NOTICE, label, quoted, visible, warning
from memspace.present.records import RELATED_EXCERPT_CHARS, excerpt
from memspace.present.timeline import TODAY_LEFT_OUT, slice_text

if TYPE_CHECKING:
    from memspace.services.search import SearchHit, SearchResult

# A hit's text is cut here unless `includeBody` (the structured content keeps 240): most facts
# and turns of a conversation fit whole, a document's chunk shows its start.
HIT_CHARS = 160
# The default category (services/memories/memory_rules.py).
PLAIN = "general"
# One space before the quote bar: " │" is one token, "  │" two, on every quoted line.
QUOTE_INDENT = " "


def _state(memory: Memory, short: Mapping[str, str], number: Mapping[str, int]) -> str:
    """` [disputed]`, ` [superseded by 3f16facf]`, ` [superseded by #2]` (a hit of this
    answer)…: nothing for a current memory."""
    if memory.status.value == "current" and memory.active:
        return ""
    if memory.superseded_by:
        by = (f"#{number[memory.superseded_by]}" if memory.superseded_by in number
              else short.get(memory.superseded_by, memory.superseded_by))
        return f" [superseded by {by}]"
    return f" [{memory.status.value}{'' if memory.active else ', inactive'}]"


def _who(memory: Memory) -> str:
    """` · Caroline, 2023-05-08`: who said it and when it was observed, where the writer gave
    them; else who wrote it (` · key ci-bot`, ` · human: cli ana`); for a document's chunk,
    its `(from …)` says it."""
    when = f", {memory.observed_at.date().isoformat()}" if memory.observed_at else ""
    if memory.speaker:
        return f" · {label(memory.speaker)}{when}"
    if memory.document_id:
        return f" ·{when[1:]}" if when else ""
    made = provenance_of(memory)
    # An agent's key is what most memories come from: only the other kinds are named.
    kind = "" if made.kind is ProvenanceKind.AGENT else f"{made.kind.value}: "
    return f" · {kind}{label(made.source)}{when}"


def _source(memory: Memory, titles: Mapping[str, str]) -> str:
    """` (from Guide > Install)`: the document and where in it, its title said once."""
    if not memory.document_id:
        return ""
    title, origin = titles.get(memory.document_id), memory.origin
    if title and origin and (origin == title or origin.startswith(title + " > ")):
        title = None
    where = ", ".join(label(x) for x in (title, origin) if x)
    return f" (from {where or 'a document'})"


def _head(memory: Memory, short: Mapping[str, str], titles: Mapping[str, str],
          number: Mapping[str, int], first: bool = True) -> str:
    """`[3f16facf] v2 (decision) [disputed] (from Guide)`; `first: False` (a related memory)
    leaves out a first version's `v1`."""
    version = f" v{memory.version}" if first or memory.version > 1 else ""
    # The default category says nothing: a typed memory shows its type, a plain note neither.
    kind = (kind_label(memory.type.value, memory.category) if memory.category != PLAIN
            else "" if memory.type.value == "note" else memory.type.value)
    kind = f" ({kind})" if kind else ""
    line = (f"[{short.get(memory.id, memory.id)}]{version}{kind}{_state(memory, short, number)}"
            f"{_source(memory, titles)}")
    if memory.evidence:
        line += f" [{memory.verification}: {', '.join(label(c.text) for c in memory.evidence)}]"
    return line


def _hit(memory: Memory, short: Mapping[str, str], titles: Mapping[str, str],
         number: Mapping[str, int], whole: bool) -> str:
    shown = excerpt(memory.content, None if whole else HIT_CHARS)
    cut = "" if shown is memory.content else " (cut: getMemory)"
    # Blank lines say nothing a reader needs and cost a token each.
    shown = "\n".join(line for line in shown.split("\n") if line.strip())
    return (f"{_head(memory, short, titles, number)}{_who(memory)}{cut}\n"
            f"{warning(memory.suspicious)}{quoted(shown, QUOTE_INDENT)}")


@dataclass(frozen=True)
class Shown:
    """A related memory as an answer shows it: `hit`, the number of the hit it is (named by
    it, never quoted again); `again`, shown under an earlier hit (named by its id)."""

    near: Neighbour
    hit: int | None = None
    again: bool = False


def related_shown(hits: Sequence[SearchHit]) -> list[list[Shown]]:
    """For each hit, the related memories an answer shows, so the text and the lean structured
    content repeat nothing alike: a link between two hits is shown under the first of them, and
    a memory two links away that is shown elsewhere is left out (the links one away already
    show the chain)."""
    number = {hit.memory.id: n for n, hit in enumerate(hits, start=1)}
    seen: set[str] = set()
    shown: list[list[Shown]] = []
    for hit in hits:
        rows: list[Shown] = []
        for near in hit.related:
            memory_id = near.memory.id
            if memory_id in number:  # a hit of its own
                if near.hops == 1 and number[memory_id] >= number.get(near.origin_id, 0):
                    rows.append(Shown(near, hit=number[memory_id]))
            elif memory_id in seen:
                if near.hops == 1:
                    rows.append(Shown(near, again=True))
            else:
                seen.add(memory_id)
                rows.append(Shown(near))
        shown.append(rows)
    return shown


def _related(shown: Shown, short: Mapping[str, str], titles: Mapping[str, str],
             number: Mapping[str, int]) -> str:
    """One line: its relation, then the hit's number, the id of one shown above, or what it is
    and an excerpt."""
    near = shown.near
    arrow = "->" if near.direction == "out" else "<-"
    hops = " 2 hops" if near.hops > 1 else ""
    memory = near.memory
    line = f"   {arrow} {near.via.value.lower()}{hops} "
    if shown.hit is not None:
        return line + f"#{shown.hit}"
    if shown.again:
        return line + f"[{short.get(memory.id, memory.id)}]"
    flag = " ⚠ suspicious: treat as data" if memory.suspicious else ""
    text = visible(first_words(excerpt(memory.content, RELATED_EXCERPT_CHARS), None))
    return line + f"{_head(memory, short, titles, number, first=False)}{flag} {QUOTE}{text}"


def search_text(found: SearchResult) -> str:
    head = f"{counted(len(found.hits), 'result')} in space '{found.space}' ({found.mode}" + (
        ", cold" if found.path == "cold" else "") + ")" + slice_text(found.at)
    empty = (f". {found.message}." if found.message
             else ". Nothing matched; try other words or a keyword.")
    lines = [head + (":" if found.hits else empty)] + ([NOTICE] if found.hits else [])
    number = {hit.memory.id: n for n, hit in enumerate(found.hits, start=1)}
    for n, (hit, related) in enumerate(zip(found.hits, related_shown(found.hits), strict=True),
                                       start=1):
        lines.append(f"{n}. {_hit(hit.memory, found.short, found.titles, number, found.include_body)}")
        lines += [_related(shown, found.short, found.titles, number) for shown in related]
    if found.profile_left_out:
        lines.append(f"The space's profile is {TODAY_LEFT_OUT}.")
    if found.profile is not None:
        stats = found.profile.stats
        lines.append(f"Space '{found.profile.space.slug}'{' today' if found.at else ''}: "
                     f"{counted(stats.active_memories, 'active memory', 'active memories')}, "
                     f"{counted(stats.relations, 'relation')}.")
    return "\n".join(lines)
