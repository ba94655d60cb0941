"""The Neo4j schema: constraints and indexes, created idempotently when a store connects.

Community edition has one user database, so a space is the `spaceId` property and every
memory index leads with it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from neo4j import Driver, NotificationDisabledClassification, Session
from neo4j.exceptions import ClientError

log = logging.getLogger(__name__)

# e5-small-v2 and all-MiniLM-L6-v2, the local embedders, both make 384. Vectors of another size
# are stored but not indexed.
EMBEDDING_DIMENSIONS = 384

# memspace's own searches rank vectors exactly in process (stores/vector_cache.py); the index
# serves ad-hoc Cypher over the whole graph (`db.index.vector.queryNodes`), e.g. from Neo4j
# Browser or Graph Data Science, which is what teams run Neo4j for.
VECTOR_INDEX = "memory_embedding"
# Full text over `content` and `spaceId` (so a query can require the space inside Lucene:
# `+spaceId:"<id>" +content:deploy~1`), for ad-hoc Cypher as the vector index is:
# `db.index.fulltext.queryNodes('memory_content', …)`. memspace's own keyword search runs on the
# in-process index of stores/keyword_index.py. Eventually consistent, so Lucene is brought up
# to date after a commit instead of inside it: a memory's create cost 3.6-4.0 ms p50 with an
# index kept current in the commit, 1.3 ms with this (80 single creates on a 100,000-memory
# store). A query may miss what was committed a moment before.
# `standard-no-stop-words`: "the plan" keeps both words, as memspace's keyword search does.
TEXT_INDEX = "memory_content"
TEXT_ANALYZER = "standard-no-stop-words"
# Kept current inside each commit, which memspace's searches needed while they read it.
RETIRED_TEXT_INDEX = "memory_text"

# Hybrid search ranks full text in process over `m.terms` with each space's own statistics
# (stores/term_index.py); the Lucene index an earlier version kept over them goes.
RETIRED_TERMS_INDEX = "memory_terms"

# The cold path's full text (stores/neo4j/cold.py): Lucene over the same index terms the warm
# ranking reads (`m.terms`: stemmed, the turn before included), split on whitespace, with the
# space required inside the query. Eventually consistent, as TEXT_INDEX is. Lucene's BM25 uses
# the whole database's statistics (docs/scaling.md).
COLD_TERMS_INDEX = "memory_index_terms"

STATEMENTS: tuple[str, ...] = (
    # facts about the store as a whole, one node each (services/embedding_model.py)
    "CREATE CONSTRAINT store_info_key IF NOT EXISTS FOR (i:StoreInfo) REQUIRE i.key IS UNIQUE",
    "CREATE CONSTRAINT space_id IF NOT EXISTS FOR (s:Space) REQUIRE s.id IS UNIQUE",
    "CREATE CONSTRAINT space_slug IF NOT EXISTS FOR (s:Space) REQUIRE s.slug IS UNIQUE",
    "CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE",
    "CREATE CONSTRAINT api_key_sha256 IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.sha256 IS UNIQUE",
    "CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE",
    "CREATE CONSTRAINT idempotency_key IF NOT EXISTS FOR (i:IdempotencyKey) "
    "REQUIRE (i.spaceId, i.scope, i.key) IS UNIQUE",
    "CREATE INDEX memory_space IF NOT EXISTS FOR (m:Memory) ON (m.spaceId)",
    "CREATE INDEX memory_space_created IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.createdAt)",
    "CREATE INDEX memory_space_hash IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.contentHash)",
    "CREATE INDEX memory_space_category IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.category)",
    "CREATE INDEX memory_space_seq IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.seq)",
    "CREATE INDEX memory_space_changed IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.changed)",
    "CREATE INDEX memory_space_active IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.active)",
    "CREATE INDEX document_space_created IF NOT EXISTS FOR (d:Document) ON (d.spaceId, d.createdAt)",
    # One document per file per space: a re-upload of the same bytes finds the first one.
    "CREATE CONSTRAINT document_space_sha256 IF NOT EXISTS FOR (d:Document) "
    "REQUIRE (d.spaceId, d.sha256) IS UNIQUE",
    "CREATE INDEX document_status IF NOT EXISTS FOR (d:Document) ON (d.status)",
    "CREATE CONSTRAINT handoff_id IF NOT EXISTS FOR (h:Handoff) REQUIRE h.id IS UNIQUE",
    "CREATE INDEX handoff_space_created IF NOT EXISTS FOR (h:Handoff) ON (h.spaceId, h.createdAt)",
    f"CREATE VECTOR INDEX {VECTOR_INDEX} IF NOT EXISTS FOR (m:Memory) ON (m.embedding) "
    f"OPTIONS {{indexConfig: {{`vector.dimensions`: {EMBEDDING_DIMENSIONS}, "
    "`vector.similarity_function`: 'cosine'}}",
    f"DROP INDEX {RETIRED_TEXT_INDEX} IF EXISTS",
    f"CREATE FULLTEXT INDEX {TEXT_INDEX} IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.spaceId] "
    f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{TEXT_ANALYZER}', "
    "`fulltext.eventually_consistent`: true}}",
    f"DROP INDEX {RETIRED_TERMS_INDEX} IF EXISTS",
    f"CREATE FULLTEXT INDEX {COLD_TERMS_INDEX} IF NOT EXISTS FOR (m:Memory) "
    "ON EACH [m.terms, m.spaceId] OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', "
    "`fulltext.eventually_consistent`: true}}",
    "CREATE INDEX memory_space_writer IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.createdBy)",
    # A writer's latest memory in a space (cypher/memories.py LATEST_BY_WRITER, on every add).
    "CREATE INDEX memory_space_writer_created IF NOT EXISTS FOR (m:Memory) "
    "ON (m.spaceId, m.createdBy, m.createdAt)",
    # Memories whose vector is not yet in VECTOR_INDEX (stores/neo4j/vector_index.py).
    "CREATE INDEX memory_vector_pending IF NOT EXISTS FOR (m:Memory) ON (m.vectorPending)",
    # A space's UPDATES edges (cypher/relations.py OPEN_CONFLICTS, read by every get_context):
    # each edge between memories carries its space, as each memory does.
    "CREATE INDEX relation_updates_space IF NOT EXISTS FOR ()-[r:UPDATES]-() ON (r.spaceId)",
    # Types and statuses (domain/lifecycle.py), and the status changes set by hand.
    "CREATE INDEX memory_space_type IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.type)",
    "CREATE INDEX memory_space_status IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.status)",
    "CREATE INDEX memory_status IF NOT EXISTS FOR (m:Memory) ON (m.status)",
    "CREATE INDEX status_mark_memory IF NOT EXISTS FOR (k:StatusMark) ON (k.spaceId, k.memoryId)",
    # The memories that expire (LifecycleStore.expire_due): a seek, not a read of the space.
    "CREATE INDEX memory_space_expires IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.expiresAt)",
    "CREATE CONSTRAINT conflict_id IF NOT EXISTS FOR (c:Conflict) REQUIRE c.id IS UNIQUE",
    "CREATE INDEX conflict_space IF NOT EXISTS FOR (c:Conflict) ON (c.spaceId, c.recordedAt)",
)

# Registered up front so that reads on a fresh database, before any node carries one of these,
# do not draw "property key does not exist" notices (warnings under `python -X dev`). `follows`
# is registered by memory_backfill.backfill_follows, which uses its absence to spot an older store.
LABELS = ("Space", "ApiKey", "Memory", "Document", "IdempotencyKey", "Handoff", "StoreInfo",
          "StatusMark")
RELATIONSHIP_TYPES = ("GRANTS", "UPDATES", "EXTENDS", "DERIVES", "HAS_FACT")
PROPERTY_KEYS = (
    "id", "slug", "name", "description", "createdAt", "lastActiveAt", "prefix", "sha256",
    "defaultSpaceId", "activeSpaceId", "revokedAt", "access", "spaceId", "content", "category",
    "embedding", "active", "createdBy", "contentHash", "documentId", "invalidatedAt",
    "invalidatedBy", "forgetReason", "forgottenBy", "reason", "_lock", "title", "kind",
    "sizeBytes", "status", "error", "factCount", "llmCalls", "promptTokens", "completionTokens",
    "scope", "key", "result", "_fresh", "seq", "version", "changed", "origin", "chunksTotal", "chunksDone",
    "uploadedByKey", "leaseOwner", "leaseUntil", "_claim",
    "agent", "agentKey", "topic", "topicKey", "summary", "done", "nextSteps", "openQuestions",
    "links", "speaker", "observedAt", "context", "terms", "vector", "value",
    "evidence", "verification", "verifiedAt",
    "type", "importance", "canonical", "memoryId", "markedBy", "markedAt", "instructions",
    "validFrom", "validTo", "provenanceKind", "provenanceSource", "suspicious",
    "vectorLabel", "vectorIndex", "vectorIndexReady", "vectorIndexClaim",
    "memoryIds", "why", "recordedAt", "recordedBy", "proposal", "proposalHash", "resolvedAt",
    "resolvedBy", "resolution", "kept", "superseded", "expiresAt",
)


# Another process may create the same rule between our check and our create.
_ALREADY_THERE = (
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
)

# A fresh index populates in milliseconds here; a large existing store may take longer.
AWAIT_INDEXES_S = 60


@dataclass(frozen=True)
class SchemaPart:
    """What one part of the graph needs: its constraint and index statements, and the labels,
    relationship types and property keys it names (created up front, so a query on a store
    that has none yet raises no "unknown label" notification)."""

    statements: Sequence[str]
    labels: Sequence[str] = ()
    properties: Sequence[str] = ()
    relationship_types: Sequence[str] = ()
    await_indexes: bool = False  # wait until every index is online


# The memories' graph's part; each role with records of its own (oauth, note jobs, repositories,
# evidence, security) names its own part and makes it as it is built (stores/neo4j/store.py).
GRAPH = SchemaPart(STATEMENTS, LABELS, PROPERTY_KEYS, RELATIONSHIP_TYPES, await_indexes=True)


def ensure_schema(driver: Driver, database: str | None, part: SchemaPart = GRAPH) -> None:
    """Create what is missing of `part` (idempotent; several processes may race on it).

    Raises:
        neo4j.exceptions.GqlError: the caller translates it at the store's edge.
    """
    # "already exists, no effect" is the expected answer on every start but the first.
    quiet = [NotificationDisabledClassification.SCHEMA]
    with driver.session(database=database, notifications_disabled_classifications=quiet) as session:
        for statement in part.statements:
            try:
                session.run(statement).consume()
            except ClientError as exc:
                if exc.code not in _ALREADY_THERE:
                    raise
        for procedure, names in (("db.createLabel", part.labels),
                                 ("db.createRelationshipType", part.relationship_types),
                                 ("db.createProperty", part.properties)):
            if names:
                session.run(f"UNWIND $names AS name CALL {procedure}(name)",
                            names=list(names)).consume()
        if part.await_indexes:
            await_indexes(session)


def await_indexes(session: Session) -> None:
    """Wait up to AWAIT_INDEXES_S for every index to be online. One still populating after that
    (a new index on a large store) goes on in the background: the store is served meanwhile,
    and /readyz, `memspace doctor` and an import's last line report its progress."""
    try:
        session.run(f"CALL db.awaitIndexes({AWAIT_INDEXES_S})").consume()
    except ClientError as exc:
        if exc.code != "Neo.ClientError.Procedure.ProcedureCallFailed":
            raise
        log.warning("indexes still populating after %d s; serving meanwhile (/readyz shows "
                    "their progress)", AWAIT_INDEXES_S)
