"""The write side of memories (docs/contract.md): add (with its idempotency key), bulk import,
correct and forget. Nothing is erased: a correction supersedes, forgetting deactivates."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime

from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, DuplicateContent, InvalidInput, NotFound
from memspace.domain.models import Memory, Relation, RelationType, Space
from memspace.domain.ports import Clock, WriteBatch
from memspace.domain.text import content_hash
from memspace.services.access import AccessService, Principal
from memspace.services.memories.add_types import AddManyResult, shortened
from memspace.services.memories.adding import AddMode, AddPipeline, AddRequest, AddResult
from memspace.services.memories.memory_parts import CorrectionCheck, NearestMemories, NewMemories, WriteScreen
from memspace.services.memories.memory_rules import (
    MAX_IDEMPOTENCY_KEY,
    AnswerForm,
    Limits,
    WritePorts,
    category_of,
    checked_content,
    expiry_of,
    memory_in,
    provenance_of,
    speaker_of,
)
from memspace.services.memories.patching import patched
from memspace.services.memories.similar import similar_on_save
from memspace.services.security import Screened, written
from memspace.services.shared import after_lost_race, check_version, utc_time


class MemoryWrites:
    """submit (an add), add_many, correct, patch and forget. An add's steps below the
    idempotency check are the `pipeline`'s; `answer_form` is how the idempotency ledger keeps
    an add's answer (present/json.py's add_json, handed in by startup/container.py), so a
    replay is the same bytes as the first call."""

    def __init__(self, store: WritePorts, embedder: Embedder, access: AccessService,
                 clock: Clock, limits: Limits, pipeline: AddPipeline, made: NewMemories,
                 close: NearestMemories, screen: WriteScreen, correction: CorrectionCheck, *,
                 answer_form: AnswerForm) -> None:
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._limits = limits
        self._pipeline = pipeline
        self._made = made
        self._close = close
        self._screen = screen
        self._correction = correction
        self._answer_form = answer_form

    def submit(self, principal: Principal, request: AddRequest, *, wait: bool = True,
               dry_run: bool = False) -> AddResult:
        """Split into facts and reconcile them with the space (with a model), or store one
        flat memory (without one, or when it fails). An exact repeat is a `duplicate`; a
        repeated `idempotency_key` replays the first call's result. `wait=False` with a model
        stores the content at once as a `pending` note whose facts the ingestion worker
        extracts later."""
        target = self._access.resolve(principal, request.space, write=True)
        if request.observed_at is not None:  # kept in its own offset; only checked to be valid
            utc_time(request.observed_at, "observedAt")
        expiry = expiry_of(request.expires_at, request.forget_after, self._clock.now())
        content = checked_content(request.content, self._limits)
        # The guard step: refuse, redact or allow credentials before anything is claimed or
        # written, in every field a reader will see, not only the text.
        given = {"content": content, "category": request.category, "speaker": request.speaker,
                 "evidence": request.evidence}
        screened = self._screen.screen(target.space.id, written(**given), principal, deferred=True)
        content, category, speaker, evidence = screened.values(**given)
        cited = self._screen.evidence(target.space, evidence)
        checked = replace(request, content=content, category=category,
                          speaker=speaker_of(speaker), citations=cited.citations, expiry=expiry)
        warnings = [*screened.warnings, *cited.warnings]
        if dry_run:
            return self._dry_run(principal, target.space, checked, warnings)
        key = (request.idempotency_key or "").strip()
        if not key:
            return self._added(principal, target.space, checked, wait, warnings, screened)
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise InvalidInput(f"idempotencyKey is longer than {MAX_IDEMPOTENCY_KEY} characters")
        scope = principal.key_id or principal.actor
        stored = self._store.ledger.claim_idempotency(target.space.id, scope, key, self._clock.now())
        if stored is not None:
            return AddResult("replayed", None, target.space.slug, [], replay=json.loads(stored))
        try:
            result = self._added(principal, target.space, checked, wait, warnings, screened)
        except BaseException:
            self._store.ledger.release_idempotency(target.space.id, scope, key)
            raise
        self._store.ledger.complete_idempotency(target.space.id, scope, key,
                                                json.dumps(self._answer_form(result)))
        return result

    def _added(self, principal: Principal, space: Space, request: AddRequest, wait: bool,
               warnings: list[str], screened: Screened) -> AddResult:
        """The add, answered with the guard's warnings; its redactions audited by the ids stored."""
        result = self._pipeline.add(principal, space, request, wait)
        self._screen.stored(screened, ", ".join(m.id for m in result.memories) or "nothing stored")
        return shortened(replace(result, warnings=[*warnings, *result.warnings]), self._store, space.id)

    def _dry_run(self, principal: Principal, space: Space, request: AddRequest,
                 warnings: list[str], version: int = 1) -> AddResult:
        """What the write would store and what is already close to it; nothing is written."""
        memory = replace(self._made.of_request(principal, space, request, request.content or "",
                                          request.category), version=version)
        existing = self._store.reads.find_active_by_hash(space.id, memory.content_hash)
        if existing is not None:
            return AddResult("duplicate", "flat", space.slug, [existing], warnings=warnings)
        memory = self._made.embedded(memory)
        near = similar_on_save(self._store.search, space.id, [memory], nearest=self._close.nearest_active,
                               threshold=self._embedder.calibration.similar_on_save)
        mode: AddMode = "extracted" if self._pipeline.extracts else "flat"
        return shortened(AddResult("dry_run", mode, space.slug, [memory], warnings=warnings, similar=near),
                         self._store, space.id)

    def add_many(
        self,
        principal: Principal,
        contents: Sequence[str],
        space: str | None = None,
        category: str | None = None,
        batch_size: int = 512,
    ) -> AddManyResult:
        """Bulk flat import: batched embedding and writes; repeats (in the input or already
        active in the space) are skipped and counted. Each batch is one transaction.

        The next batch is embedded while the last one is written (one write in flight, in a
        worker thread): the model and the store's transaction overlap instead of taking turns.
        Ingestion on Neo4j ran at 0.70-0.72 of the raw embedding rate with the two in turn
        (bench/bench_service.py's bulk-load line)."""
        target = self._access.resolve(principal, space, write=True)
        cat = category_of(category)
        texts = [checked_content(c, self._limits) for c in contents]
        screened = self._screen.screen(target.space.id, {f"contents[{i}]": t for i, t in enumerate(texts)},
                                principal)
        texts = [screened.text(f"contents[{i}]") for i in range(len(texts))]
        seen: set[str] = set()
        result = AddManyResult(target.space.slug)
        space_id = target.space.id

        def settle(written: Future[tuple[int, int]]) -> None:
            created, duplicates = written.result()  # its error, if any, ends the import here
            result.created += created
            result.duplicates += duplicates

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="add-many") as writer:
            pending: Future[tuple[int, int]] | None = None
            for start in range(0, len(texts), batch_size):
                fresh: list[Memory] = []
                chunk = texts[start:start + batch_size]
                known = self._store.reads.existing_hashes(space_id, [content_hash(t) for t in chunk])
                for text in chunk:
                    digest = content_hash(text)
                    if digest in seen or digest in known:
                        result.duplicates += 1
                        continue
                    seen.add(digest)
                    fresh.append(self._made.new(space_id, text, cat, principal.actor,
                                                  provenance=provenance_of(principal)))
                if not fresh:
                    continue
                vectors = self._embedder.embed([m.content for m in fresh])
                batch = [replace(m, embedding=v) for m, v in zip(fresh, vectors, strict=True)]
                if pending is not None:
                    settle(pending)
                pending = writer.submit(self._write_new, space_id, batch)
            if pending is not None:
                settle(pending)
        return result

    def _write_new(self, space_id: str, batch: list[Memory]) -> tuple[int, int]:
        """(created, duplicates) of one batch of add_many."""
        try:
            self._store.writes.write(WriteBatch(space_id, batch, at=batch[-1].created_at))
            return len(batch), 0
        except DuplicateContent as exc:  # a concurrent add saved some of these first
            kept = [m for m in batch if m.content_hash not in exc.existing]
            if kept:
                self._store.writes.write(WriteBatch(space_id, kept, at=kept[-1].created_at))
            return len(kept), len(batch) - len(kept)

    def correct(
        self,
        principal: Principal,
        memory_id: str,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        reason: str | None = None,
        expected_version: int | None = None,
        evidence: Sequence[str] | None = None,
        dry_run: bool = False,
        observed_at: datetime | None = None,
    ) -> AddResult:
        """A new memory that UPDATES the old one; the old one becomes inactive, never erased.
        With `expected_version`, refused (StaleVersion) unless that is still the fact's current
        version. Without `evidence` the correction keeps the old memory's citations."""
        target, old, text = self._correction(principal, memory_id, content, space, expected_version)
        given = {"content": text, "category": category, "reason": reason, "evidence": evidence}
        screened = self._screen.screen(target.space.id, written(**given), principal, deferred=True)
        text, category, reason, evidence = screened.values(**given)
        cited = (self._screen.evidence(target.space, evidence) if evidence is not None
                 else self._screen.evidence(target.space, [c.text for c in old.evidence]))
        warnings = [*screened.warnings, *cited.warnings]
        if dry_run:
            request = AddRequest(text, category=category or old.category, citations=cited.citations)
            return self._dry_run(principal, target.space, request, warnings, old.version + 1)
        if observed_at is not None:  # when the corrected fact began to hold (docs/time.md)
            utc_time(observed_at, "observedAt")
        memory = self._made.embedded(replace(
            self._made.new(target.space.id, text, category_of(category or old.category),
                             principal.actor, evidence=cited.citations,
                             provenance=provenance_of(principal), observed_at=observed_at),
            version=old.version + 1, type=old.type, importance=old.importance,
            canonical=old.canonical))
        relation = Relation(
            memory.id, old.id, RelationType.UPDATES, memory.created_at, principal.actor,
            (reason or "").strip() or "corrected by hand",
        )
        try:
            self._store.writes.write(
                WriteBatch(target.space.id, [memory], [relation], {old.id: memory.id},
                           at=memory.created_at)
            )
        except Conflict as exc:
            if expected_version is None:
                raise
            raise after_lost_race(self._store.reads, target.space.id, old.id,
                                           expected_version, exc) from exc
        self._screen.stored(screened, memory.id)
        return shortened(AddResult("created", "flat", target.space.slug, [memory], [relation],
                                   superseded=[old.id], warnings=warnings), self._store, target.space.id)

    def patch(self, principal: Principal, memory_id: str, append: str | None = None,
              prepend: str | None = None, replace_old: str | None = None,
              replace_new: str | None = None, space: str | None = None,
              expected_version: int | None = None, reason: str | None = None,
              observed_at: datetime | None = None) -> AddResult:
        """The memory's next version with its text edited, as a correction (UPDATES, the old
        version superseded and kept): `append` or `prepend` text, or `replace` the one
        occurrence of `replace_old` with `replace_new`. Refused (StaleVersion) when
        `expected_version` is given and the memory moved on."""
        target = self._access.resolve(principal, space, write=True)
        old = memory_in(self._store.reads, target.space.id, memory_id)
        check_version(self._store.reads, target.space.id, old, expected_version)
        text, what = patched(old, append, prepend, replace_old, replace_new)
        result = self.correct(principal, old.id, text, space, None,
                              (reason or "").strip() or f"patched ({what})", expected_version,
                              observed_at=observed_at)
        result.status = "updated"
        return result

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
            old = memory_in(self._store.reads, target.space.id, memory_id)
        elif content and content.strip():
            found = self._store.reads.find_active_by_hash(target.space.id, content_hash(content))
            if found is None:
                raise NotFound(
                    "no active memory has exactly that content; search_memory to find its id, "
                    "then forget by memoryId"
                )
            old = found
        else:
            raise InvalidInput("to forget, pass memoryId (preferred) or the exact content")
        check_version(self._store.reads, target.space.id, old, expected_version)
        screened = self._screen.screen(target.space.id, written(reason=reason), principal, target=old.id)
        why = (screened.optional("reason", reason) or "").strip() or "forgotten on request"
        try:
            gone = self._store.writes.forget(target.space.id, old.id, why, principal.actor,
                                             self._clock.now())
        except Conflict as exc:
            if expected_version is None:
                raise
            raise after_lost_race(self._store.reads, target.space.id, old.id,
                                           expected_version, exc) from exc
        self._screen.record(principal, "memory.forget", target.space.id, old.id, f"reason: {why}")
        return gone


