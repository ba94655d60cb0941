"""Every Cypher statement and Lucene query string the Neo4j store sends, in one place.

Each memory query names the space (`$space`): a space is a property in the one database, so a
statement that forgot it would read across spaces.
"""

from __future__ import annotations

import re

from memspace.domain.models import MemoryFilter
from memspace.stores.neo4j.schema import TEXT_INDEX

EDGE_TYPES = "UPDATES|EXTENDS|DERIVES"


def memory_fields(var: str) -> str:
    """A map projection of a memory without its embedding (no read path needs it back)."""
    return (
        f"{var} {{.id, .spaceId, .content, .category, .active, .createdAt, .createdBy, "
        ".contentHash, .documentId, .origin, .invalidatedAt, .invalidatedBy, .forgetReason, "
        ".forgottenBy, .version, .speaker, .observedAt, .context}"
    )


def memory_filter(where: MemoryFilter, var: str = "m") -> tuple[str, dict[str, object]]:
    """The WHERE condition (and its parameters) that scopes memories to a filter."""
    condition = f"{var}.spaceId = $space"
    params: dict[str, object] = {"space": where.space_id}
    if not where.include_inactive:
        condition += f" AND {var}.active = true"
    if where.category is not None:
        condition += f" AND {var}.category = $category"
        params["category"] = where.category
    return condition, params


# -- spaces -----------------------------------------------------------------------------------

SPACE_FIELDS = "s {.id, .slug, .name, .description, .createdAt, .lastActiveAt}"
CREATE_SPACE = "CREATE (s:Space) SET s = $props"
GET_SPACE = f"MATCH (s:Space {{id: $id}}) RETURN {SPACE_FIELDS} AS space"
GET_SPACE_BY_SLUG = f"MATCH (s:Space {{slug: $slug}}) RETURN {SPACE_FIELDS} AS space"
LIST_SPACES = f"MATCH (s:Space) RETURN {SPACE_FIELDS} AS space ORDER BY s.slug"
# Memories and relations are counted only when the space's version is not `$known` (every
# write bumps it; the store keeps the counts of the version it last saw): counting 100,000
# memories and their edges on each search's profile cost more than the rest of the search.
SPACE_STATS = f"""
OPTIONAL MATCH (s:Space {{id: $space}})
WITH coalesce(s.version, 0) AS version
RETURN version,
       CASE WHEN version = $known THEN null ELSE
         COUNT {{ MATCH (m:Memory {{spaceId: $space}}) WHERE m.active = true }} END AS active,
       CASE WHEN version = $known THEN null ELSE
         COUNT {{ MATCH (m:Memory {{spaceId: $space}}) WHERE m.active = false }} END AS inactive,
       CASE WHEN version = $known THEN null ELSE
         COUNT {{ MATCH (:Memory {{spaceId: $space}})-[:{EDGE_TYPES}]->(:Memory {{spaceId: $space}}) }}
       END AS relations,
       COUNT {{ MATCH (d:Document {{spaceId: $space}}) }} AS documents
"""
# Every memory write starts here: it locks the space node (so writes to one space serialise),
# bumps the version the vector cache watches, reserves `$count` sequence numbers, and moves
# last activity to `$at` (only forward, whatever order writers commit in). One statement, not
# two: writers of a space queue on this lock, so each round trip inside it counts 16 times
# with 16 writers.
BEGIN_SPACE_WRITE = """
MATCH (s:Space {id: $space})
SET s.version = coalesce(s.version, 0) + 1, s.seq = coalesce(s.seq, 0) + $count,
    s.lastActiveAt = CASE WHEN $at > s.lastActiveAt THEN $at ELSE s.lastActiveAt END
RETURN s.seq - $count AS base, s.version AS version
"""

# -- keys -------------------------------------------------------------------------------------

CREATE_KEY = """
CREATE (k:ApiKey) SET k = $props
WITH k
UNWIND $grants AS grant
MATCH (s:Space {id: grant.space})
CREATE (k)-[:GRANTS {access: grant.access}]->(s)
RETURN count(*) AS granted
"""
_KEY_FIELDS = """
k {.id, .name, .prefix, .sha256, .defaultSpaceId, .activeSpaceId, .createdAt, .revokedAt} AS key,
[(k)-[g:GRANTS]->(s:Space) | [s.id, g.access]] AS grants
"""
GET_KEY = f"MATCH (k:ApiKey {{id: $id}}) RETURN {_KEY_FIELDS}"
GET_KEY_BY_HASH = f"MATCH (k:ApiKey {{sha256: $sha256}}) RETURN {_KEY_FIELDS}"
LIST_KEYS = f"MATCH (k:ApiKey) RETURN {_KEY_FIELDS} ORDER BY k.createdAt, k.id"
REVOKE_KEY = """
MATCH (k:ApiKey {id: $id}) SET k.revokedAt = coalesce(k.revokedAt, $at) RETURN count(k) AS found
"""
SET_ACTIVE_SPACE = "MATCH (k:ApiKey {id: $id}) SET k.activeSpaceId = $space"

# -- writing memories -------------------------------------------------------------------------

# Setting a property takes the node's write lock, held to commit; the check that follows in a
# separate statement then reads what a concurrent writer committed (Neo4j's lost-update recipe).
LOCK_MEMORIES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.spaceId = $space
SET m._lock = true
"""
COUNT_ACTIVE = """
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.spaceId = $space AND m.active = true
RETURN count(m) AS found
"""
# One active memory per content in a space: run after BEGIN_SPACE_WRITE holds the space's lock,
# so no other writer of the space can commit the same content between this check and our write.
# Memories this same write supersedes (`$skip`) do not count: they stop being active with it.
ACTIVE_WITH_HASHES = """
UNWIND $hashes AS hash
MATCH (m:Memory {spaceId: $space, contentHash: hash}) WHERE m.active = true AND NOT m.id IN $skip
RETURN hash, min(m.id) AS id
"""
# Embeddings are stored as float32 arrays (setNodeVectorProperty), not Cypher's float64 lists:
# half the size, and the exact scan reads them ~30% faster (136 vs 195 ms over 10,000).
CREATE_MEMORIES = """
UNWIND $rows AS row
CREATE (m:Memory) SET m = row.props
WITH m, row WHERE row.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
"""
COUNT_MEMORIES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.spaceId = $space
RETURN count(m) AS found
"""
COUNT_DOCUMENTS = """
UNWIND $ids AS id
MATCH (d:Document {id: id}) WHERE d.spaceId = $space
RETURN count(d) AS found
"""
LINK_DOCUMENTS = """
UNWIND $rows AS row
MATCH (d:Document {id: row.document}) WHERE d.spaceId = $space
WITH row, d
MATCH (m:Memory {id: row.memory}) WHERE m.spaceId = $space
CREATE (d)-[:HAS_FACT]->(m)
"""
# Inside the write of a document chunk's memories: the chunk is done and the facts recounted in
# the same transaction, so progress and memories can never disagree after a crash.
ADVANCE_DOCUMENT = """
MATCH (d:Document {id: $document}) WHERE d.spaceId = $space
SET d.chunksDone = CASE WHEN coalesce(d.chunksDone, 0) > $done THEN d.chunksDone ELSE $done END,
    d.factCount = COUNT { (d)-[:HAS_FACT]->(:Memory) }
RETURN count(d) AS found
"""


def create_relations(edge_type: str) -> str:
    """Cypher 5 cannot take a relationship type as a parameter: one statement per type."""
    if edge_type not in EDGE_TYPES.split("|"):
        raise ValueError(f"unknown relation type {edge_type!r}")
    return f"""
UNWIND $rows AS row
MATCH (s:Memory {{id: row.source}}) WHERE s.spaceId = $space
WITH row, s
MATCH (t:Memory {{id: row.target}}) WHERE t.spaceId = $space
CREATE (s)-[:{edge_type} {{createdAt: row.createdAt, createdBy: row.createdBy, reason: row.reason}}]->(t)
"""


SUPERSEDE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.old}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.invalidatedBy = row.new, m.changed = $version
REMOVE m._lock
"""
FORGET_STATE = "MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space RETURN m.active AS active"
FORGET = f"""
MATCH (m:Memory {{id: $id}}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.forgetReason = $reason, m.forgottenBy = $by,
    m.changed = $version, m.version = coalesce(m.version, 1) + 1
REMOVE m._lock
RETURN {memory_fields("m")} AS memory
"""

# -- the vector cache's view (stores/vector_cache.py) -----------------------------------------

VECTOR_VERSION = "MATCH (s:Space {id: $space}) RETURN coalesce(s.version, 0) AS version"
VECTORS_AFTER = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq > $after
RETURN m.seq AS seq, m.embedding AS embedding, m.category AS category, m.terms AS terms
ORDER BY m.seq
"""
INACTIVE_SEQS = """
MATCH (m:Memory) WHERE m.spaceId = $space AND m.active = false AND m.seq <= $upto
RETURN m.seq AS seq
"""
MEMORIES_BY_SEQ = f"""
MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN m.seq AS seq, {memory_fields("m")} AS memory
"""
# The same fetch with the space's version, so a search on a cache believed current needs one
# round trip, not two (stores/neo4j/store.py vector_search).
MEMORIES_BY_SEQ_AT_VERSION = f"""
MATCH (s:Space {{id: $space}})
OPTIONAL MATCH (m:Memory) WHERE m.spaceId = $space AND m.seq IN $seqs
RETURN coalesce(s.version, 0) AS version, m.seq AS seq, {memory_fields("m")} AS memory
"""

# -- reading memories -------------------------------------------------------------------------

GET_MEMORY = f"""
MATCH (m:Memory {{id: $id}}) WHERE m.spaceId = $space RETURN {memory_fields("m")} AS memory
"""
FIND_ACTIVE_BY_HASH = f"""
MATCH (m:Memory {{spaceId: $space, contentHash: $hash}}) WHERE m.active = true
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt DESC LIMIT 1
"""


def list_changes(condition: str, paged: bool, since: bool) -> str:
    """The change feed: by the version of the write that last changed each memory, then id."""
    after = (" AND (m.changed > $stamp OR (m.changed = $stamp AND m.id > $id))" if paged else "")
    window = " AND (m.createdAt >= $since OR m.invalidatedAt >= $since)" if since else ""
    return f"""
MATCH (m:Memory) WHERE {condition}{after}{window}
RETURN {memory_fields("m")} AS memory, m.changed AS stamp ORDER BY m.changed, m.id LIMIT $limit
"""


def list_memories(condition: str, paged: bool) -> str:
    after = " AND (m.createdAt < $at OR (m.createdAt = $at AND m.id < $id))" if paged else ""
    return f"""
MATCH (m:Memory) WHERE {condition}{after}
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt DESC, m.id DESC LIMIT $limit
"""


_RELATION_FIELDS = """
RETURN startNode(r).id AS source, endNode(r).id AS target, type(r) AS type,
       r.createdAt AS createdAt, r.createdBy AS createdBy, r.reason AS reason
ORDER BY r.createdAt, source, target, type
"""
MEMORIES_OF_DOCUMENT = f"""
MATCH (m:Memory {{documentId: $document}}) WHERE m.spaceId = $space
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt, m.id LIMIT $limit
"""
RELATIONS_OF = f"""
MATCH (m:Memory {{id: $id}})-[r:{EDGE_TYPES}]-(other:Memory)
WHERE m.spaceId = $space AND other.spaceId = $space
WITH DISTINCT r
{_RELATION_FIELDS}"""
# From the UPDATES edges (few) to their ends, not from every memory of the space to its edges:
# 41-47 -> 2-8 ms at 100,000 memories (tools/neo4j-local, idle).
OPEN_CONFLICTS = """
MATCH ()-[r:UPDATES]->()
WITH r, startNode(r) AS n, endNode(r) AS o
WHERE n:Memory AND o:Memory AND n.spaceId = $space AND o.spaceId = $space AND n.active
  AND o.active
RETURN n.id AS source, o.id AS target, type(r) AS type, r.createdAt AS createdAt,
       r.createdBy AS createdBy, r.reason AS reason
ORDER BY r.createdAt DESC LIMIT $limit
"""
RELATIONS_AMONG = f"""
UNWIND $ids AS id
MATCH (s:Memory {{id: id}})-[r:{EDGE_TYPES}]->(t:Memory)
WHERE s.spaceId = $space AND t.spaceId = $space AND t.id IN $ids
{_RELATION_FIELDS}"""


def neighbours(hops: int) -> str:
    """Shortest walk per (origin, neighbour) over relations in either direction, in ONE query.

    `via` is the type of the walk's last relation; `direction` is "out" when that relation
    points from the node before at the neighbour. A variable-length pattern never reuses a
    relationship and is bounded by `hops`, so cycles cannot loop. Cypher 5 cannot take the
    bound as a parameter, hence the int literal.
    """
    return f"""
UNWIND $ids AS oid
MATCH (o:Memory {{id: oid}}) WHERE o.spaceId = $space
MATCH p = (o)-[:{EDGE_TYPES}*1..{int(hops)}]-(n:Memory)
WHERE n <> o AND all(x IN nodes(p) WHERE x.spaceId = $space)
WITH o, n, p ORDER BY length(p)
WITH o, n, collect(p)[0] AS p
WITH o, n, length(p) AS hops, last(relationships(p)) AS r
ORDER BY hops, n.createdAt DESC, n.id
WITH o, collect({{n: n, hops: hops, via: type(r),
                 direction: CASE WHEN endNode(r) = n THEN 'out' ELSE 'in' END}})[..$per] AS near
UNWIND near AS x
WITH o, x, x.n AS n
RETURN o.id AS origin, x.hops AS hops, x.via AS via, x.direction AS direction,
       {memory_fields("n")} AS memory
ORDER BY origin, hops, n.createdAt DESC, n.id
"""


EXISTING_HASHES = """
UNWIND $hashes AS hash
MATCH (m:Memory {spaceId: $space, contentHash: hash}) WHERE m.active = true
RETURN DISTINCT hash
"""

# -- usage and idempotency --------------------------------------------------------------------

# A SET whose value reads the same node takes the write lock before reading: no lost updates.
RECORD_USAGE = """
MATCH (s:Space {id: $space})
SET s.llmCalls = coalesce(s.llmCalls, 0) + $calls,
    s.promptTokens = coalesce(s.promptTokens, 0) + $prompt,
    s.completionTokens = coalesce(s.completionTokens, 0) + $completion
RETURN count(s) AS found
"""
USAGE_TOTALS = """
MATCH (s:Space {id: $space})
RETURN coalesce(s.llmCalls, 0) AS calls, coalesce(s.promptTokens, 0) AS prompt,
       coalesce(s.completionTokens, 0) AS completion
"""
# MERGE on the (spaceId, scope, key) uniqueness constraint locks that entry, so of two
# concurrent claims exactly one creates the node; `_fresh` tells the creator apart.
CLAIM_IDEMPOTENCY = """
MERGE (i:IdempotencyKey {spaceId: $space, scope: $scope, key: $key})
ON CREATE SET i.createdAt = $at, i._fresh = true
WITH i, coalesce(i._fresh, false) AS fresh
REMOVE i._fresh
RETURN fresh, i.result AS result
"""
COMPLETE_IDEMPOTENCY = """
MATCH (i:IdempotencyKey {spaceId: $space, scope: $scope, key: $key}) SET i.result = $result
"""
RELEASE_IDEMPOTENCY = """
MATCH (i:IdempotencyKey {spaceId: $space, scope: $scope, key: $key}) WHERE i.result IS NULL
DELETE i
"""

# -- handoffs ---------------------------------------------------------------------------------

HANDOFF_FIELDS = (
    "h {.id, .spaceId, .agent, .topic, .summary, .done, .nextSteps, .openQuestions, .links, "
    ".createdAt, .createdBy}"
)
CREATE_HANDOFF = """
MATCH (s:Space {id: $props.spaceId})
CREATE (h:Handoff) SET h = $props
RETURN h.id AS id
"""


def handoffs(agent: bool, topic: bool, paged: bool) -> str:
    """Newest first; `agentKey`/`topicKey` are casefolded copies, so matching ignores case."""
    condition = "h.spaceId = $space"
    condition += " AND h.agentKey = $agent" if agent else ""
    condition += " AND h.topicKey = $topic" if topic else ""
    condition += " AND (h.createdAt < $at OR (h.createdAt = $at AND h.id < $id))" if paged else ""
    return f"""
MATCH (h:Handoff) WHERE {condition}
RETURN {HANDOFF_FIELDS} AS handoff ORDER BY h.createdAt DESC, h.id DESC LIMIT $limit
"""


# -- documents --------------------------------------------------------------------------------

DOCUMENT_FIELDS = (
    "d {.id, .spaceId, .title, .kind, .sizeBytes, .sha256, .status, .error, .factCount, "
    ".createdAt, .createdBy, .chunksTotal, .chunksDone, .uploadedByKey}"
)
CREATE_DOCUMENT = "CREATE (d:Document) SET d = $props"
GET_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space RETURN {DOCUMENT_FIELDS} AS document
"""


FIND_DOCUMENT_BY_SHA256 = f"""
MATCH (d:Document {{spaceId: $space, sha256: $sha256}}) RETURN {DOCUMENT_FIELDS} AS document
"""
DOCUMENTS_WITH_STATUS = f"""
MATCH (d:Document) WHERE d.status IN $statuses
RETURN {DOCUMENT_FIELDS} AS document ORDER BY d.createdAt, d.id
"""
UPDATE_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space
SET d.status = $status, d.error = $error, d.chunksTotal = coalesce($total, d.chunksTotal),
    d.chunksDone = coalesce($done, d.chunksDone), d.uploadedByKey = coalesce($key, d.uploadedByKey)
RETURN {DOCUMENT_FIELDS} AS document
"""
# The processing lease (GraphStore.claim_document). SET on the node takes its write lock before
# the WHERE of the next clause reads it again, so of two claimers one waits and then sees the
# other's lease.
CLAIM_DOCUMENT = f"""
MATCH (d:Document {{id: $id}}) WHERE d.spaceId = $space
SET d._claim = true
WITH d
WHERE d.status = 'queued' OR (d.status = 'processing' AND (d.leaseOwner IS NULL
      OR d.leaseOwner = $owner OR d.leaseUntil IS NULL OR d.leaseUntil < $now))
SET d.status = 'processing', d.leaseOwner = $owner, d.leaseUntil = $until
REMOVE d._claim
RETURN {DOCUMENT_FIELDS} AS document
"""
RELEASE_DOCUMENT = """
MATCH (d:Document {id: $id}) WHERE d.spaceId = $space AND d.leaseOwner = $owner
SET d.leaseOwner = null, d.leaseUntil = null
"""


def list_documents(paged: bool) -> str:
    after = " AND (d.createdAt < $at OR (d.createdAt = $at AND d.id < $id))" if paged else ""
    return f"""
MATCH (d:Document) WHERE d.spaceId = $space{after}
RETURN {DOCUMENT_FIELDS} AS document ORDER BY d.createdAt DESC, d.id DESC LIMIT $limit
"""


# -- search -----------------------------------------------------------------------------------


def text_query(condition: str, index: str = TEXT_INDEX) -> str:
    return f"""
CALL db.index.fulltext.queryNodes('{index}', $lucene, {{limit: $fetch}}) YIELD node AS m, score
WITH m, score WHERE {condition}
RETURN {memory_fields("m")} AS memory, score
ORDER BY score DESC, m.createdAt DESC, m.id LIMIT $limit
"""


# -- Lucene -----------------------------------------------------------------------------------

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_escape(term: str) -> str:
    """Backslash-escape Lucene's query syntax (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /`)."""
    return _LUCENE_SPECIAL.sub(r"\\\1", term)


def lucene_in_space(space_id: str, content_query: str) -> str:
    """Require the space inside Lucene, so another space's matches cannot crowd ours out.

    The space clause is boosted to zero, so scores stay the BM25 of the content alone. The
    analyzer may split an id into several tokens, so the Cypher filter on `spaceId` stays.
    """
    return f'+spaceId:"{lucene_escape(space_id)}"^0 +({content_query})'


# The newest memory a writer saved in a space since a time, outside documents: the turn a new
# memory may continue (services/conversation.py). Served by memory_space_created.
LATEST_BY_WRITER = f"""
MATCH (m:Memory {{spaceId: $space}})
WHERE m.createdAt >= $since AND m.createdBy = $writer AND m.documentId IS NULL
RETURN {memory_fields("m")} AS memory
ORDER BY m.createdAt DESC, m.seq DESC LIMIT 1
"""
# The sequence numbers (vector cache rows) of some memories of a space.
SEQS_OF_MEMORIES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.spaceId = $space
RETURN m.id AS id, m.seq AS seq
"""
# Memories stored before index terms existed: filled in batches when the store connects.
MEMORIES_WITHOUT_TERMS = """
MATCH (m:Memory) WHERE m.terms IS NULL
RETURN m.id AS id, m.content AS content LIMIT $limit
"""
SET_TERMS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) SET m.terms = row.terms
"""


def lucene_fuzzy_all(terms: list[tuple[str, int]]) -> str:
    """Every word, each within its edit budget (0 = exact term)."""
    return " AND ".join(
        f"content:{lucene_escape(t)}~{edits}" if edits else f'content:"{lucene_escape(t)}"'
        for t, edits in terms
    )


# -- OAuth (stores/neo4j/oauth.py; records in domain/oauth.py) --------------------------------

OAUTH_SAVE_CLIENT = "CREATE (c:OAuthClient) SET c = $props"
OAUTH_GET_CLIENT = "MATCH (c:OAuthClient {clientId: $id}) RETURN c {.*} AS client"
OAUTH_LIST_CLIENTS = "MATCH (c:OAuthClient) RETURN c {.*} AS client ORDER BY c.createdAt, c.clientId"
OAUTH_SAVE_LOGIN_LINK = "CREATE (l:OAuthLoginLink) SET l = $props"
# One statement, so two consent pages redeeming the same link race on the node's write lock and
# only the first sees `usedAt IS NULL`.
OAUTH_REDEEM_LOGIN_LINK = """
MATCH (l:OAuthLoginLink {sha256: $sha256})
SET l._lock = true
WITH l WHERE l.usedAt IS NULL AND l.expiresAt > $at
SET l.usedAt = $at
RETURN l {.sha256, .keyId, .createdAt, .expiresAt, .usedAt} AS link
"""
OAUTH_START_FAMILY = """
CREATE (f:OAuthFamily) SET f = $family
CREATE (t:OAuthToken) SET t = $code
"""
OAUTH_GET_TOKEN = """
MATCH (t:OAuthToken {sha256: $sha256})
MATCH (f:OAuthFamily {id: t.familyId})
RETURN t {.*} AS token, f {.*} AS family
"""
# Lock the token first (SET), then test it: a concurrent second use waits for the first to
# commit and then finds `usedAt` set, so exactly one use issues tokens.
OAUTH_USE_TOKEN = """
MATCH (t:OAuthToken {sha256: $sha256})
SET t._lock = true
WITH t
MATCH (f:OAuthFamily {id: t.familyId})
WITH t, f WHERE t.usedAt IS NULL AND f.revokedAt IS NULL
SET t.usedAt = $at
WITH count(t) AS used
FOREACH (props IN CASE WHEN used = 1 THEN $issue ELSE [] END | CREATE (n:OAuthToken) SET n = props)
RETURN used
"""
OAUTH_REVOKE_FAMILY = """
MATCH (f:OAuthFamily {id: $id}) WHERE f.revokedAt IS NULL SET f.revokedAt = $at
"""
OAUTH_REVOKE_CLIENT = """
MATCH (f:OAuthFamily {clientId: $id}) WHERE f.revokedAt IS NULL
SET f.revokedAt = $at
RETURN count(f) AS revoked
"""
OAUTH_PURGE_TOKENS = """
MATCH (t:OAuthToken) WHERE t.expiresAt < $before
DETACH DELETE t
RETURN count(t) AS purged
"""
OAUTH_LIST_FAMILIES = "MATCH (f:OAuthFamily) RETURN f {.*} AS family ORDER BY f.createdAt, f.id"
# Created (idempotently) by Neo4jOAuthStore beside the graph's schema (schema.py).
OAUTH_SCHEMA = (
    "CREATE CONSTRAINT oauth_client_id IF NOT EXISTS FOR (c:OAuthClient) REQUIRE c.clientId IS UNIQUE",
    "CREATE CONSTRAINT oauth_family_id IF NOT EXISTS FOR (f:OAuthFamily) REQUIRE f.id IS UNIQUE",
    "CREATE CONSTRAINT oauth_token_sha256 IF NOT EXISTS FOR (t:OAuthToken) REQUIRE t.sha256 IS UNIQUE",
    "CREATE CONSTRAINT oauth_login_link_sha256 IF NOT EXISTS FOR (l:OAuthLoginLink) "
    "REQUIRE l.sha256 IS UNIQUE",
    "CREATE INDEX oauth_family_client IF NOT EXISTS FOR (f:OAuthFamily) ON (f.clientId)",
    "CREATE INDEX oauth_token_expiry IF NOT EXISTS FOR (t:OAuthToken) ON (t.expiresAt)",
)
OAUTH_LABELS = ("OAuthClient", "OAuthLoginLink", "OAuthFamily", "OAuthToken")
OAUTH_PROPERTY_KEYS = (
    "clientId", "redirectUris", "metadata", "keyId", "expiresAt", "usedAt", "grants", "resource",
    "redirectUri", "codeChallenge", "familyId", "revokedAt", "kind", "_lock",
)

# -- note jobs (domain/notes.py): one NoteJob node per note saved before extraction -----------
NOTE_JOB_ADD = "CREATE (j:NoteJob) SET j = $props"
NOTE_JOB_SETTLE = """
MATCH (j:NoteJob {memoryId: $id, spaceId: $space, state: 'pending'})
SET j.state = $state, j.reason = $reason, j.updatedAt = $at
"""
NOTE_JOBS_OF = """
MATCH (j:NoteJob {spaceId: $space}) WHERE j.memoryId IN $ids RETURN j {.*} AS job
"""
NOTE_JOBS_PENDING = """
MATCH (j:NoteJob {state: 'pending'}) RETURN j {.*} AS job ORDER BY j.createdAt, j.memoryId
"""
NOTE_JOB_SCHEMA = (
    "CREATE CONSTRAINT note_job_memory IF NOT EXISTS FOR (j:NoteJob) REQUIRE j.memoryId IS UNIQUE",
    "CREATE INDEX note_job_state IF NOT EXISTS FOR (j:NoteJob) ON (j.state)",
)
NOTE_JOB_PROPERTY_KEYS = ("memoryId", "spaceId", "state", "speaker", "observedAt", "reason",
                          "updatedAt")
