"""A briefing's result, and packing its entries into a token budget (services/briefing/briefing.py
builds the entries)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.errors import InvalidInput
from memspace.services.briefing import briefing_sections as sec
from memspace.services.shared import short_ids

SEAM_MARGIN = 8


@dataclass
class Briefing:
    text: str
    included: list[str] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    omitted_sections: dict[str, str] = field(default_factory=dict)  # id -> section key
    tokens: int = 0
    budget: int = 0
    detail: str = "balanced"
    space: str = ""
    handoff: str | None = None  # id of the handoff shown, if any
    notes: list[str] = field(default_factory=list)
    at: TimeSlice | None = None  # the time slice briefed (docs/time.md); None: today
    open_conflicts: int = 0  # the space's conflict queue (docs/conflicts.md)


def shortened(entries: list[sec.Entry], space_of: Callable[[sec.Entry], str],
              find: Callable[[str], Callable[[Sequence[str], int], list[str]]],
              ) -> tuple[list[sec.Entry], dict[str, str]]:
    """The entries with each memory they name shown by its short id, unique in the space it
    belongs to (`space_of`; `find(space_id)` finds ids there by prefix): a whole id is ~20
    tokens, a short one ~5, so more entries fit the budget. Entry ids stay whole (`meta`)."""
    named: dict[str, set[str]] = {}
    for e in entries:
        if e.section != sec.HANDOFF.key:  # a handoff's id is no memory's
            named.setdefault(space_of(e), set()).update(e.id.removeprefix("recent:").split(">"))
    shown: dict[str, str] = {}
    for owner, ids in named.items():
        shown |= short_ids(find(owner), ids)

    def short(text: str, e: sec.Entry) -> str:
        for whole in e.id.removeprefix("recent:").split(">"):
            text = text.replace(f"[{whole}]", f"[{shown.get(whole, whole)}]")
        return text

    return [replace(e, full=short(e.full, e), pointer=short(e.pointer, e)) for e in entries], shown


def pack(head: str, entries: list[sec.Entry], budget: int, count: Callable[[str], int],
         shown: Mapping[str, str] | None = None) -> Briefing:
    """The header is charged first, then the entries in section order (so the conflicts
    come before anything that could crowd them out); an entry that does not fit becomes a
    one-line pointer, then is omitted. The closing list names omitted ids in order, as many
    as the budget holds, and counts the rest — a reserve kept free while packing
    guarantees it fits; `shown` names each id there by its short id."""
    out = Briefing(text=head)
    used = count(head)
    # Room kept for the closing list (at least one id and the count of the rest), with a
    # margin for the seams: pieces counted apart run a few tokens under the whole.
    reserve = count(_footer(["0" * 32], 10_000)) + SEAM_MARGIN
    if used + reserve > budget:
        raise InvalidInput(f"maxTokens={budget} cannot hold even the space header; raise it")
    open_header: str | None = None
    for entry in entries:
        if entry.header is not None:
            open_header = entry.header  # printed with the first entry placed under it
        prefix = f"\n{open_header}" if open_header else ""
        for text, bucket in ((entry.full, out.included), (entry.pointer, out.shortened)):
            # +1: BPE may merge across the seam, so pieces counted apart can undercount.
            cost = count(prefix + text) + 1
            if used + cost + reserve <= budget:
                out.text += prefix + text
                used += cost
                bucket.append(entry.id)
                open_header = None
                break
        else:
            if entry.section == sec.RECENT.key:
                continue  # a one-line repeat of a memory listed (or omitted) above
            out.omitted.append(entry.id)
            out.omitted_sections[entry.id] = entry.section
    if out.omitted:
        named = [">".join((shown or {}).get(i, i) for i in e.split(">")) for e in out.omitted]
        # Counted on the whole text, so the result is exact whatever the seams did above.
        listed = len(named)
        while listed > 0 and count(
                out.text + _footer(named[:listed], len(named) - listed)) > budget:
            listed = listed * 3 // 4  # shrink geometrically: few token counts
        out.text += _footer(named[:listed], len(named) - listed)
    out.tokens = count(out.text)
    return out


def _footer(ids: list[str], unlisted: int) -> str:
    more = f"{', ' if ids else ''}and {unlisted} more (search_memory finds them)" if unlisted else ""
    return (f"\n## Omitted to fit the budget ({len(ids) + unlisted}; fetch with getMemory)\n"
            + ", ".join(ids) + more + "\n")

