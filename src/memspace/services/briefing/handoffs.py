"""Handoffs: what an agent or session leaves for the next one working in the same space."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memspace.domain.errors import InvalidInput
from memspace.domain.evidence import parse_citation
from memspace.domain.models import Handoff
from memspace.domain.ports import Clock, HandoffStore, PageAfter
from memspace.services.access import AccessService, Principal
from memspace.services.evidence import EvidenceService
from memspace.services.security import ContentGuard
from memspace.services.shared import Page, clamp_limit, decode_cursor, encode_cursor, fingerprint, new_id

MAX_SUMMARY_CHARS = 4_000
MAX_ITEMS = 50
MAX_ITEM_CHARS = 1_000
MAX_NAME_CHARS = 100
DEFAULT_TOPIC = "general"
MAX_PAGE = 50


def _name(value: str | None, what: str, default: str) -> str:
    text = " ".join((value or "").split()) or default
    if len(text) > MAX_NAME_CHARS:
        raise InvalidInput(f"{what} is longer than {MAX_NAME_CHARS} characters; use a short label")
    return text


def _items(values: Sequence[str] | None, what: str) -> tuple[str, ...]:
    items = tuple(t for t in ((v or "").strip() for v in values or ()) if t)
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"{what} has {len(items)} items; at most {MAX_ITEMS}. Group them")
    for item in items:
        if len(item) > MAX_ITEM_CHARS:
            raise InvalidInput(f"an item of {what} is {len(item):,} characters; at most "
                               f"{MAX_ITEM_CHARS:,}. Save long findings with add_memory")
    return items


class HandoffService:
    def __init__(self, store: HandoffStore, access: AccessService, clock: Clock,
                 evidence: EvidenceService | None = None,
                 guard: ContentGuard | None = None) -> None:
        self._evidence = evidence  # citations checked under the space's policy
        self._store = store
        self._access = access
        self._clock = clock
        self._guard = guard  # the security step before the write (services/security/guard.py)

    def save(self, principal: Principal, summary: str | None, agent: str | None = None,
             topic: str | None = None, done: Sequence[str] | None = None,
             next_steps: Sequence[str] | None = None, open_questions: Sequence[str] | None = None,
             links: Sequence[str] | None = None, space: str | None = None,
             evidence: Sequence[str] | None = None,
             dry_run: bool = False) -> tuple[str, Handoff]:
        """Store a handoff in a space the caller may write; `agent` defaults to the key's name.
        With `dry_run` everything is checked and the handoff returned, but not stored."""
        target = self._access.resolve(principal, space, write=True)
        text = (summary or "").strip()
        if not text:
            raise InvalidInput("summary is empty; say in a few sentences where the work stands")
        if len(text) > MAX_SUMMARY_CHARS:
            raise InvalidInput(f"summary is {len(text):,} characters; at most "
                               f"{MAX_SUMMARY_CHARS:,}. Put details in done / nextSteps")
        cited = (self._evidence.check(target.space, evidence).citations if self._evidence
                 else tuple(parse_citation(e) for e in evidence or ()))
        handoff = Handoff(
            id=new_id(), space_id=target.space.id, agent=_name(agent, "agent", principal.name),
            topic=_name(topic, "topic", DEFAULT_TOPIC), summary=text,
            done=_items(done, "done"), next_steps=_items(next_steps, "nextSteps"),
            open_questions=_items(open_questions, "openQuestions"),
            links=_items(links, "links"), created_at=self._clock.now(),
            created_by=principal.actor, evidence=tuple(c.text for c in cited),
        )
        handoff = self._screened(handoff, principal)
        if not dry_run:
            self._store.add_handoff(handoff)
        return target.space.slug, handoff

    def _screened(self, handoff: Handoff, principal: Principal) -> Handoff:
        """Every text field through the guard step (credentials refused or redacted)."""
        if self._guard is None:
            return handoff
        lists = {"done": handoff.done, "nextSteps": handoff.next_steps,
                 "openQuestions": handoff.open_questions, "links": handoff.links}
        fields = {"summary": handoff.summary, "agent": handoff.agent, "topic": handoff.topic,
                  **{f"{name}[{i}]": item for name, items in lists.items()
                     for i, item in enumerate(items)}}
        out = self._guard.screen(handoff.space_id, fields, principal.actor, target=handoff.id).fields

        def items(name: str) -> tuple[str, ...]:
            return tuple(out[f"{name}[{i}]"] for i in range(len(lists[name])))

        return replace(handoff, summary=out["summary"], agent=out["agent"], topic=out["topic"],
                       done=items("done"), next_steps=items("nextSteps"),
                       open_questions=items("openQuestions"), links=items("links"))

    def latest(self, principal: Principal, agent: str | None = None, topic: str | None = None,
               space: str | None = None) -> tuple[str, Handoff | None]:
        """The newest handoff of a readable space, optionally by one agent and/or on one topic."""
        target = self._access.resolve(principal, space)
        who = " ".join((agent or "").split()) or None
        about = " ".join((topic or "").split()) or None
        return target.space.slug, self._store.latest_handoff(target.space.id, who, about)

    def list(self, principal: Principal, agent: str | None = None, limit: int = 10,
             cursor: str | None = None, space: str | None = None) -> tuple[str, Page[Handoff]]:
        """Newest first, a page at a time (the cursor is tied to this space and agent)."""
        target = self._access.resolve(principal, space)
        who = " ".join((agent or "").split()) or None
        size = clamp_limit(limit, MAX_PAGE)
        query = fingerprint("handoffs", target.space.id, agent=(who or "").casefold())
        after: PageAfter | None = decode_cursor(cursor, query) if cursor else None
        rows = self._store.list_handoffs(target.space.id, size + 1, after, who)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor)
