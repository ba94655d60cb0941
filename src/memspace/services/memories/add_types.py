"""What an add is asked (AddRequest) and what it answers (AddResult): shared by the add
pipeline (adding.py), its versioned steps (versioned_adds.py) and the surfaces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from memspace.domain.chunks import ChunkSource
from memspace.domain.evidence import Citation
from memspace.domain.graph_port import WithReads
from memspace.domain.models import Memory, Relation, Usage
from memspace.services.memories.similar import Similar
from memspace.services.shared import memory_ids, short_ids


@dataclass(frozen=True)
class Clash:
    """A conflict answer: the close memory of the same type the new claim contradicts, and the
    request as it was, so the answer can spell out the two calls that resolve it."""

    memory: Memory
    similarity: float
    content: str
    memory_type: str
    category: str | None


# updated: a restatement became the next version of a close memory; conflict: nothing stored,
# a decision/constraint/architecture contradicts a close one (services/memories/restatement.py).
# dry_run: validated (evidence included) and answered, nothing written.
AddStatus = Literal["created", "updated", "duplicate", "conflict", "replayed", "dry_run"]
# pending: stored now as it was given, its facts extracted in the background
AddMode = Literal["extracted", "flat", "pending"]


@dataclass(frozen=True)
class AddRequest:
    """One add, as MCP, REST, the CLI and document ingestion ask for it (docs/contract.md).

    `source` names the document chunk the content is: the memories written link to it, and the
    write advances the document's progress in the same transaction. The service validates the
    request and passes the checked copy down the pipeline."""

    content: str | None
    space: str | None = None
    category: str | None = None
    speaker: str | None = None
    observed_at: datetime | None = None
    idempotency_key: str | None = None
    source: ChunkSource | None = None
    # What kind of note it is and how much it weighs (domain/lifecycle.py); None: a note of
    # the default importance (with a model, each fact's type is the model's when it gives one).
    memory_type: str | None = None
    importance: int | None = None
    canonical: bool = False
    # The memories this one replaces (each gets an UPDATES from it and becomes superseded), and
    # `force`: store it beside a contradicting decision all the same (both are true).
    supersedes: tuple[str, ...] = ()
    force: bool = False
    # The citations as the caller wrote them (domain/evidence.py); `citations` are the same
    # once checked and anchored by the service.
    evidence: tuple[str, ...] | None = None
    citations: tuple[Citation, ...] = ()
    # When it expires, as the caller gave it: an instant (`expiresAt`, ISO 8601 with an
    # offset) or a duration from now (`forgetAfter`: 90m, 12h, 30d, 2w); `expiry` is that
    # instant once checked by the service (memory_rules.expiry_of), which every memory the add
    # writes carries (docs/lifecycle.md#expiry).
    expires_at: str | datetime | None = None
    forget_after: str | None = None
    expiry: datetime | None = None


@dataclass
class AddResult:
    """The result shape of docs/contract.md."""

    status: AddStatus
    mode: AddMode | None  # None only for a replay, whose stored answer says it
    space: str
    memories: list[Memory]
    relations: list[Relation] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    # The stored answer of an earlier call with the same idempotency key, as it went out (the
    # ledger keeps the wire form, so a replay is the same bytes; present/json.py renders it).
    replay: dict[str, Any] | None = None
    similar: list[Similar] = field(default_factory=list)  # see services/memories/similar.py
    clash: Clash | None = None  # with status conflict: what the new claim contradicts
    # Each memory id the answer names -> its short id (services/shared/id_prefixes.py).
    short: Mapping[str, str] = field(default_factory=dict)


def shortened(result: AddResult, store: WithReads, space_id: str) -> AddResult:
    """`result` with the short id of every memory it names (saved, linked, superseded, similar,
    contradicted), unique among the space's memories: one store read."""
    named = [*(m.id for m in result.memories), *(i for r in result.relations
                                                  for i in (r.source_id, r.target_id)),
             *result.superseded, *(s.memory.id for s in result.similar),
             *([result.clash.memory.id] if result.clash is not None else [])]
    return replace(result, short=short_ids(memory_ids(store.reads, space_id), named)) if named else result


@dataclass
class AddManyResult:
    """What a bulk flat import did: how many memories it created, how many it skipped as
    repeats."""

    space: str
    created: int = 0
    duplicates: int = 0
