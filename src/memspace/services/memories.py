"""Saving, correcting, forgetting and reading memories (DESIGN §3)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memspace.domain.errors import (
    Conflict,
    DuplicateContent,
    ExtractionFailed,
    InvalidInput,
    MemspaceError,
    NotFound,
)
from memspace.domain.models import ChunkSource, Memory, MemoryFilter, Relation, RelationType, Space
from memspace.domain.ports import (
    Candidate,
    Change,
    ChangeAfter,
    Clock,
    Embedder,
    FactExtractor,
    GraphStore,
    PageAfter,
    WriteBatch,
)
from memspace.domain.text import content_hash, visible
from memspace.services import versions
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.clock import new_id
from memspace.services.conversation import preceding_turn, search_vectors
from memspace.services.documents import document_titles
from memspace.services.extraction_jobs import NoteExtraction
from memspace.services.paging import (
    Page,
    clamp_limit,
    decode_change_cursor,
    decode_cursor,
    encode_change_cursor,
    encode_cursor,
    fingerprint,
    utc_time,
)
from memspace.services.reconcile import MAX_RETARGETS, drop_repeats, plan_extraction, retarget
from memspace.services.similar import similar_on_save
from memspace.services.views import document_json, memory_json, neighbour_json, relation_json

log = logging.getLogger(__name__)

DEFAULT_CATEGORY = "general"
# Existing memories shown to the model per add (DESIGN §3): the 5 most similar active ones.
CANDIDATES = 5
MAX_IDEMPOTENCY_KEY = 200
MAX_CATEGORY_CHARS = 64
MAX_SPEAKER_CHARS = 200


@dataclass(frozen=True)
class Limits:
    max_memory_chars: int = 8_000
    max_page_size: int = 100


@dataclass
class AddResult:
    """The result shape of DESIGN §3."""

    status: str  # "created" | "duplicate"
    mode: str  # "extracted" | "flat" | "pending" (stored now, facts extracted in the background)
    space: str
    memories: list[Memory]
    relations: list[Relation] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    replay: dict[str, Any] | None = None  # the stored answer of an earlier call, same key
    similar: list[dict[str, Any]] = field(default_factory=list)  # see services/similar.py

    def as_json(self) -> dict[str, Any]:
        if self.replay is not None:
            return {**self.replay, "replayed": True}
        return {
            "status": self.status,
            "mode": self.mode,
            "space": self.space,
            "memories": [memory_json(m) | ({"status": "pending"} if self.mode == "pending" else {})
                         for m in self.memories],
            "relations": [relation_json(r) for r in self.relations],
            "superseded": self.superseded,
            "warnings": self.warnings,
            "similar": self.similar,
            "reviewSuggested": bool(self.similar),
            "usage": {
                "llmCalls": self.llm_calls,
                "promptTokens": self.prompt_tokens,
                "completionTokens": self.completion_tokens,
            },
        }


@dataclass
class AddManyResult:
    space: str
    created: int = 0
    duplicates: int = 0


class MemoryService:
    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        access: AccessService,
        clock: Clock,
        limits: Limits | None = None,
        extractor: FactExtractor | None = None,
        notes: NoteExtraction | None = None,
    ) -> None:
        self._extractor = extractor
        # With a model, adds that do not wait store the note and leave its facts to the worker.
        self._notes = notes
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._limits = limits or Limits()

    # -- validation -------------------------------------------------------------------------

    def _content(self, content: str | None, what: str = "content") -> str:
        text = (content or "").strip()
        if not visible(text):
            raise InvalidInput(f"{what} is empty (or only invisible characters such as "
                               "zero-width spaces); pass the fact to remember as text")
        if len(text) > self._limits.max_memory_chars:
            raise InvalidInput(
                f"{what} is {len(text):,} characters; one memory holds at most "
                f"{self._limits.max_memory_chars:,} (MEMSPACE_MAX_MEMORY_CHARS). Split it into "
                "separate facts, or upload it as a document"
            )
        return text

    @staticmethod
    def _category(category: str | None) -> str:
        text = " ".join((category or "").split()).lower()
        if len(text) > MAX_CATEGORY_CHARS:
            raise InvalidInput(f"category is longer than {MAX_CATEGORY_CHARS} characters")
        return text or DEFAULT_CATEGORY

    def _new_memory(self, space_id: str, text: str, category: str, actor: str,
                    source: ChunkSource | None = None, speaker: str | None = None,
                    observed_at: datetime | None = None) -> Memory:
        return Memory(
            id=new_id(), space_id=space_id, content=text, category=category, embedding=None,
            active=True, created_at=self._clock.now(), created_by=actor,
            content_hash=content_hash(text),
            document_id=source.document_id if source else None,
            origin=source.origin if source else None,
            speaker=speaker, observed_at=observed_at,
        )

    def _embedded(self, memory: Memory) -> Memory:
        [vector] = self._embedder.embed([memory.content])
        return replace(memory, embedding=vector)

    def _in_conversation(self, memory: Memory) -> tuple[Memory, Memory]:
        """The memory to write (with its context and search vector, services/conversation.py)
        and the same memory carrying its content vector, which is what similar-on-save
        compares: the context would make every turn look like the one before it."""
        if memory.document_id is None and memory.speaker:
            context = preceding_turn(self._store, memory.space_id, memory.created_by,
                                     memory.created_at, memory.observed_at)
            memory = replace(memory, context=context)
        [(own, searched)] = search_vectors(self._embedder, [memory])
        return replace(memory, embedding=searched), replace(memory, embedding=own)

    @staticmethod
    def _speaker(speaker: str | None) -> str | None:
        name = " ".join((speaker or "").split())
        if len(name) > MAX_SPEAKER_CHARS:
            raise InvalidInput(f"speaker is longer than {MAX_SPEAKER_CHARS} characters; pass "
                               "the name of who said it")
        return name or None

    # -- use cases --------------------------------------------------------------------------

    def add(
        self,
        principal: Principal,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        speaker: str | None = None,
        observed_at: datetime | None = None,
        idempotency_key: str | None = None,
        *,
        source: ChunkSource | None = None,
        wait: bool = True,
    ) -> AddResult:
        """Split into facts and reconcile them with the space (with a model), or store one
        flat memory (without one, or when it fails). An exact repeat is a `duplicate`; a
        repeated `idempotency_key` replays the first call's result. `source` names the
        document chunk the content is: the memories written link to it, and the write advances
        the document's progress in the same transaction. `wait=False` with a model stores the
        content at once as a `pending` note whose facts the ingestion worker extracts later."""
        target = self._access.resolve(principal, space, write=True)
        text = self._content(content)
        speaker = self._speaker(speaker)
        if observed_at is not None:  # kept in its own offset; only checked to be representable
            utc_time(observed_at, "observedAt")
        key = (idempotency_key or "").strip()
        if not key:
            return self._add(principal, target.space, text, category, speaker, observed_at, source,
                             wait)
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise InvalidInput(f"idempotencyKey is longer than {MAX_IDEMPOTENCY_KEY} characters")
        scope = principal.key_id or principal.actor
        stored = self._store.claim_idempotency(target.space.id, scope, key, self._clock.now())
        if stored is not None:
            return AddResult("replayed", "", target.space.slug, [], replay=json.loads(stored))
        try:
            result = self._add(principal, target.space, text, category, speaker, observed_at,
                               source, wait)
        except BaseException:
            self._store.release_idempotency(target.space.id, scope, key)
            raise
        self._store.complete_idempotency(target.space.id, scope, key, json.dumps(result.as_json()))
        return result

    def _add(self, principal: Principal, space: Space, text: str, category: str | None,
             speaker: str | None, observed_at: datetime | None,
             source: ChunkSource | None, wait: bool = True) -> AddResult:
        result = self._add_new(principal, space, text, category, speaker, observed_at, source,
                               wait)
        if result.status == "created" and source is None:
            # Facts the model related to nothing (all of them in flat mode) may still restate
            # or contradict an older memory: list the close ones for the caller to review.
            related = {r.source_id for r in result.relations}
            result.similar = similar_on_save(
                self._store, space.id, [m for m in result.memories if m.id not in related])
        if result.llm_calls:
            self._store.record_usage(space.id, result.llm_calls, result.prompt_tokens,
                                     result.completion_tokens)
        return result

    def _add_new(self, principal: Principal, space: Space, text: str, category: str | None,
                 speaker: str | None, observed_at: datetime | None,
                 source: ChunkSource | None, wait: bool = True) -> AddResult:
        existing = self._store.find_active_by_hash(space.id, content_hash(text))
        if existing is not None:
            return AddResult("duplicate", "flat" if self._extractor is None else "extracted",
                             space.slug, [existing])
        if self._extractor is None:
            return self._add_flat(principal, space, text, category, source,
                                  said=(speaker, observed_at))
        if not wait and source is None and self._notes is not None:
            return self._add_pending(principal, space, text, category, speaker, observed_at)
        return self._add_extracted(principal, space, text, category, speaker, observed_at, source)

    def _add_flat(self, principal: Principal, space: Space, text: str, category: str | None,
                  source: ChunkSource | None, warnings: Sequence[str] = (),
                  spent: tuple[int, int, int] = (0, 0, 0),
                  said: tuple[str | None, datetime | None] = (None, None)) -> AddResult:
        memory, shown = self._in_conversation(self._new_memory(
            space.id, text, self._category(category), principal.actor, source, *said))
        try:
            self._store.write(WriteBatch(space.id, [memory], at=memory.created_at, source=source))
        except DuplicateContent as exc:  # the same text committed first by a concurrent add
            known = self._store.get_memory(space.id, exc.existing[memory.content_hash])
            if known is None:
                raise
            return AddResult("duplicate", "flat", space.slug, [known], warnings=list(warnings),
                             llm_calls=spent[0], prompt_tokens=spent[1],
                             completion_tokens=spent[2])
        return AddResult("created", "flat", space.slug, [shown], warnings=list(warnings),
                         llm_calls=spent[0], prompt_tokens=spent[1], completion_tokens=spent[2])

    def _add_pending(self, principal: Principal, space: Space, text: str, category: str | None,
                     speaker: str | None, observed_at: datetime | None) -> AddResult:
        """The note stored as it is (searchable now) and queued for background extraction."""
        assert self._notes is not None
        result = self._add_flat(principal, space, text, category, None,
                                said=(speaker, observed_at))
        if result.status == "created":
            self._notes.queue(result.memories[0], speaker, observed_at,
                              self._category(category) if category else None)
            result.mode = "pending"
        return result

    def _add_extracted(self, principal: Principal, space: Space, text: str,
                       category: str | None, speaker: str | None,
                       observed_at: datetime | None, source: ChunkSource | None) -> AddResult:
        assert self._extractor is not None
        [probe] = self._embedder.embed([text])
        nearest = self._store.vector_search(MemoryFilter(space.id), probe, CANDIDATES)
        candidates = [n.memory for n in nearest]
        offered = [Candidate(i, m.content, m.category, m.created_at) for i, m in enumerate(candidates)]
        try:
            extraction = self._extractor.extract(text, offered, speaker, observed_at)
        except ExtractionFailed as exc:
            return self._add_flat(
                principal, space, text, category, source,
                [f"stored as one flat memory because fact extraction failed: {exc.message}"],
                (exc.llm_calls, exc.prompt_tokens, exc.completion_tokens),
                said=(speaker, observed_at))
        except MemspaceError:
            raise
        except Exception as exc:  # an extractor's bug must not lose the note: flat, and say so
            log.exception("fact extractor failed unexpectedly; storing the content flat")
            return self._add_flat(
                principal, space, text, category, source,
                [f"stored as one flat memory because fact extraction failed unexpectedly "
                 f"({type(exc).__name__}: {str(exc)[:200]}); the server log has the details"],
                said=(speaker, observed_at))
        spent = (extraction.llm_calls, extraction.prompt_tokens, extraction.completion_tokens)
        if not extraction.facts:
            return self._add_flat(principal, space, text, category, source,
                                  ["the model found no facts; stored the content as given"], spent,
                                  said=(speaker, observed_at))
        plan = plan_extraction(
            extraction, candidates,
            lambda fact, cat: self._new_memory(space.id, fact, self._category(category or cat),
                                               principal.actor, source, speaker, observed_at),
            self._embedder.embed,
            lambda digest: self._store.find_active_by_hash(space.id, digest),
            principal.actor,
        )
        at = plan.memories[-1].created_at if plan.memories else self._clock.now()
        for attempt in range(2 * MAX_RETARGETS + 1):
            if not plan.memories:
                return AddResult("duplicate", "extracted", space.slug, plan.known,
                                 warnings=plan.warnings, llm_calls=spent[0],
                                 prompt_tokens=spent[1], completion_tokens=spent[2])
            try:
                self._store.write(plan.batch(space.id, at, source))
                break
            except DuplicateContent as exc:  # facts a concurrent add committed first
                if attempt == 2 * MAX_RETARGETS:
                    raise
                drop_repeats(plan, exc.existing, space.id, self._store)
            except Conflict:
                if attempt == 2 * MAX_RETARGETS or not retarget(plan, space.id, self._store):
                    raise
        return AddResult("created", "extracted", space.slug, plan.memories, plan.relations,
                         list(plan.supersede), plan.warnings, *spent)

    def add_many(
        self,
        principal: Principal,
        contents: Sequence[str],
        space: str | None = None,
        category: str | None = None,
        batch_size: int = 512,
    ) -> AddManyResult:
        """Bulk flat import: batched embedding and writes; repeats (in the input or already
        active in the space) are skipped and counted. Each batch is one transaction."""
        target = self._access.resolve(principal, space, write=True)
        cat = self._category(category)
        texts = [self._content(c) for c in contents]
        seen: set[str] = set()
        result = AddManyResult(target.space.slug)
        for start in range(0, len(texts), batch_size):
            fresh: list[Memory] = []
            chunk = texts[start:start + batch_size]
            known = self._store.existing_hashes(target.space.id, [content_hash(t) for t in chunk])
            for text in chunk:
                digest = content_hash(text)
                if digest in seen or digest in known:
                    result.duplicates += 1
                    continue
                seen.add(digest)
                fresh.append(self._new_memory(target.space.id, text, cat, principal.actor))
            if not fresh:
                continue
            vectors = self._embedder.embed([m.content for m in fresh])
            batch = [replace(m, embedding=v) for m, v in zip(fresh, vectors, strict=True)]
            try:
                self._store.write(WriteBatch(target.space.id, batch, at=batch[-1].created_at))
            except DuplicateContent as exc:  # a concurrent add saved some of these first
                result.duplicates += sum(m.content_hash in exc.existing for m in batch)
                batch = [m for m in batch if m.content_hash not in exc.existing]
                if batch:
                    self._store.write(WriteBatch(target.space.id, batch, at=batch[-1].created_at))
            result.created += len(batch)
        return result

    def correct(
        self,
        principal: Principal,
        memory_id: str,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> AddResult:
        """A new memory that UPDATES the old one; the old one becomes inactive, never erased.
        With `expected_version`, refused (StaleVersion) unless that is still the fact's current
        version."""
        target, old, text = self._checked_correction(principal, memory_id, content, space,
                                                     expected_version)
        memory = self._embedded(replace(
            self._new_memory(target.space.id, text, self._category(category or old.category),
                             principal.actor), version=old.version + 1))
        relation = Relation(
            memory.id, old.id, RelationType.UPDATES, memory.created_at, principal.actor,
            (reason or "").strip() or "corrected by hand",
        )
        try:
            self._store.write(
                WriteBatch(target.space.id, [memory], [relation], {old.id: memory.id},
                           at=memory.created_at)
            )
        except Conflict as exc:
            if expected_version is None:
                raise
            raise versions.after_lost_race(self._store, target.space.id, old.id,
                                           expected_version, exc) from exc
        return AddResult(
            "created", "flat", target.space.slug, [memory], [relation], superseded=[old.id]
        )

    def preview_correction(
        self,
        principal: Principal,
        memory_id: str,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """What `correct` would write, checked by the same rules, without writing anything:
        the UPDATES edge from the new fact to the old one, which would become inactive."""
        target, old, text = self._checked_correction(principal, memory_id, content, space)
        return {
            "space": target.space.slug,
            "content": text,
            "category": self._category(category or old.category),
            "replaces": memory_json(old),
            "relation": {"from": None, "to": old.id, "type": RelationType.UPDATES.value,
                         "reason": (reason or "").strip() or "corrected by hand"},
            "supersedes": [old.id],
        }

    def _checked_correction(
        self, principal: Principal, memory_id: str, content: str | None, space: str | None,
        expected_version: int | None = None,
    ) -> tuple[SpaceAccess, Memory, str]:
        """The space, the memory to correct and the correction's text, or the reason why not."""
        target = self._access.resolve(principal, space, write=True)
        old = self._memory_in(target.space.id, memory_id)
        versions.check(self._store, target.space.id, old, expected_version)
        if not old.active:
            head = f" by '{old.invalidated_by}'" if old.invalidated_by else ""
            raise Conflict(
                f"memory '{old.id}' was already replaced{head} or forgotten; correct the current "
                "version instead (search_memory shows it)"
            )
        text = self._content(content, "the correction")
        if content_hash(text) == old.content_hash:
            raise InvalidInput("the correction says exactly what the memory already says")
        return target, old, text

    def forget(
        self,
        principal: Principal,
        memory_id: str | None = None,
        content: str | None = None,
        reason: str | None = None,
        space: str | None = None,
        expected_version: int | None = None,
    ) -> Memory:
        """Deactivate a memory, found by id or by its exact content, with the reason recorded.
        With `expected_version`, refused (StaleVersion) unless that is still its version."""
        target = self._access.resolve(principal, space, write=True)
        if memory_id:
            old = self._memory_in(target.space.id, memory_id)
        elif content and content.strip():
            found = self._store.find_active_by_hash(target.space.id, content_hash(content))
            if found is None:
                raise NotFound(
                    "no active memory has exactly that content; search_memory to find its id, "
                    "then forget by memoryId"
                )
            old = found
        else:
            raise InvalidInput("to forget, pass memoryId (preferred) or the exact content")
        versions.check(self._store, target.space.id, old, expected_version)
        why = (reason or "").strip() or "forgotten on request"
        try:
            return self._store.forget(target.space.id, old.id, why, principal.actor,
                                      self._clock.now())
        except Conflict as exc:
            if expected_version is None:
                raise
            raise versions.after_lost_race(self._store, target.space.id, old.id,
                                           expected_version, exc) from exc

    def _memory_in(self, space_id: str, memory_id: str) -> Memory:
        memory = self._store.get_memory(space_id, (memory_id or "").strip())
        if memory is None:
            raise NotFound(
                f"no memory '{memory_id}' in this space; use an id returned by search_memory or "
                "listMemories for the same space"
            )
        return memory

    def get(self, principal: Principal, memory_id: str, space: str | None = None) -> dict[str, Any]:
        """One memory with its direct relations, its neighbourhood (the history chain) and the
        document it came from, if any."""
        target = self._access.resolve(principal, space)
        memory = self._memory_in(target.space.id, memory_id)
        relations = self._store.relations_of(target.space.id, memory.id)
        near = self._store.neighbours(target.space.id, [memory.id], hops=2, per_origin=20)
        source = (self._store.get_document(target.space.id, memory.document_id)
                  if memory.document_id else None)
        titles = document_titles(self._store, target.space.id, [n.memory for n in near])
        if source is not None:
            titles[source.id] = source.title
        return {
            "space": target.space.slug,
            "memory": memory_json(memory, titles) | self._note_status(target.space.id, memory.id),
            "relations": [relation_json(r) for r in relations],
            "relatedMemories": [neighbour_json(n, titles) for n in near],
            "source": document_json(source) if source else None,
        }

    def _note_status(self, space_id: str, memory_id: str) -> dict[str, Any]:
        """`status` (pending | extracted | flat) and `statusReason` of a note saved without waiting."""
        job = self._notes.states(space_id, [memory_id]).get(memory_id) if self._notes else None
        return {"status": job.state.value, "statusReason": job.reason} if job else {}

    def list(
        self,
        principal: Principal,
        space: str | None = None,
        category: str | None = None,
        include_inactive: bool = False,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[str, Page[Memory]]:
        """Newest first, paged by an opaque cursor tied to this space and these filters."""
        target = self._access.resolve(principal, space)
        cat = self._category(category) if category else None
        size = clamp_limit(limit, self._limits.max_page_size)
        query = fingerprint("memories", target.space.id, category=cat, inactive=include_inactive)
        after: PageAfter | None = decode_cursor(cursor, query) if cursor else None
        where = MemoryFilter(target.space.id, cat, include_inactive)
        rows = self._store.list_memories(where, size + 1, after)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor)

    def changes(
        self,
        principal: Principal,
        since: str,
        space: str | None = None,
        category: str | None = None,
        limit: int = 100,
    ) -> tuple[str, Page[Change]]:
        """What changed (created, superseded, forgotten), oldest first, from a time or from the
        cursor an earlier call returned. The cursor is always returned, so a caller can come
        back later for what happened since; it pins the space and filters it was made with."""
        target = self._access.resolve(principal, space)
        cat = self._category(category) if category else None
        size = clamp_limit(limit, self._limits.max_page_size)
        after: ChangeAfter | None = None
        try:
            pinned: datetime | None = datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
        except ValueError:
            made_for, after, pinned = decode_change_cursor(since.strip())
            if made_for != fingerprint("changes", target.space.id, category=cat):
                raise InvalidInput(
                    "this cursor belongs to a different listing (another space or category); "
                    "repeat the call that produced it, or start again from a time"
                ) from None
        if pinned is not None:
            pinned = utc_time(pinned, "since")
        query = fingerprint("changes", target.space.id, category=cat)
        rows = self._store.list_changes(MemoryFilter(target.space.id, cat), size, after, pinned)
        if rows:
            after = ChangeAfter(rows[-1].stamp, rows[-1].memory.id)
        return target.space.slug, Page(rows, encode_change_cursor(query, after, pinned))
