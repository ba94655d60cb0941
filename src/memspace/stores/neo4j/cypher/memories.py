"""Writing and reading memories (stores/neo4j/memories.py, stores/neo4j/memory_reads.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import EDGE_TYPES, memory_fields, prefix_seek

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
# The plain adds of a group commit (stores/neo4j/memories.py write_group) in one statement, so
# in one round trip: a group written as BEGIN, the three statements above and COMMIT made five,
# each paid while the space's lock is held.
# - The space's lock first (the SET), then the check: a writer that waited for the lock reads
#   what the one before it committed (the lost-update recipe of Neo4j's operations manual,
#   "Concurrent data access", in one query).
# - `$batches` in order, each {at: its index, hashes: its active contents, props: its memories,
#   and in WRITE_GROUP_INDEXED vectors: their embeddings for the vector index}: a batch is kept
#   when none of its contents is held by an active memory or by a batch kept before it, the way
#   write_group decides each batch's outcome.
# - Returns the sequence base, the version, the active memories already holding a content of
#   the group (`taken`) and the indexes of the batches kept.
# WRITE_GROUP leaves the vector index to the feed (stores/neo4j/vector_index.py); the bulk
# groups of WRITE_GROUP_INDEXED set it themselves. Two texts, so a single add's statement carries
# nothing of the other: with one text for both, single adds read ~2 ms higher at p95 in two A/B
# runs of 200 each (p50 the same), which may be noise, but nothing is gained by carrying it.
_WRITE_GROUP = """
MATCH (s:Space {id: $space})
SET s.version = coalesce(s.version, 0) + 1
WITH s
CALL (s) {
  UNWIND $hashes AS hash
  MATCH (m:Memory {spaceId: $space, contentHash: hash}) WHERE m.active = true
  RETURN collect({hash: hash, id: m.id}) AS taken
}
WITH s, taken, reduce(plan = {kept: [], seen: [t IN taken | t.hash]}, b IN $batches |
       CASE WHEN any(h IN b.hashes WHERE h IN plan.seen) THEN plan
            ELSE {kept: plan.kept + [b.at], seen: plan.seen + b.hashes} END).kept AS kept
WITH s, taken, kept, reduce(rows = [], i IN kept | rows + $batches[i].props) AS props%(vectors)s
SET s.seq = coalesce(s.seq, 0) + size(props),
    s.lastActiveAt = CASE WHEN $at > s.lastActiveAt THEN $at ELSE s.lastActiveAt END
WITH s, taken, kept, props%(carried)s, s.seq - size(props) AS base
CALL (s, props%(carried)s, base) {
  UNWIND range(0, size(props) - 1) AS i
  CREATE (m:Memory)
  SET m = props[i], m.seq = base + i + 1, m.changed = s.version%(index)s
}
RETURN base, s.version AS version, taken, kept
"""
WRITE_GROUP = _WRITE_GROUP % {"vectors": "", "carried": "", "index": ""}
WRITE_GROUP_INDEXED = _WRITE_GROUP % {
    "vectors": ",\n     reduce(rows = [], i IN kept | rows + $batches[i].vectors) AS vectors",
    "carried": ", vectors",
    # a space with its own vector index (space_vectors.py) labels what it indexes
    "index": ", m:$(coalesce(s.vectorLabel, 'Memory'))"
             "\n  WITH m, vectors[i] AS vector WHERE vector IS NOT NULL"
             "\n  CALL db.create.setNodeVectorProperty(m, 'embedding', vector)",
}
# Only the properties cross: the indexed `embedding` is set after the write, by the feed of
# stores/neo4j/vector_index.py (INDEX_EMBEDDINGS). Sent here too, each memory's 384 floats were
# packed, sent and unpacked for nothing.
CREATE_MEMORIES = """
UNWIND $props AS props
CREATE (m:Memory) SET m = props
"""
# Embeddings are stored as float32 arrays (setNodeVectorProperty), not Cypher's float64 lists:
# half the size. A write marks its memories `vectorPending` (records.memory_row); this clears it.
# A space with its own vector index (space_vectors.py) has its memories labelled here too.
INDEX_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
REMOVE m.vectorPending
WITH m, row
OPTIONAL MATCH (s:Space {id: m.spaceId})
SET m:$(coalesce(s.vectorLabel, 'Memory'))
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
"""
# Memories written but not yet in the vector index (the process stopped before its feed ran):
# an index seek (schema.py), not a scan of every memory at each start.
UNINDEXED_VECTORS = """
MATCH (m:Memory) WHERE m.vectorPending = true
RETURN m.id AS id, m.vector AS vector
LIMIT $limit
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
WITH row, s MATCH (t:Memory {{id: row.target}}) WHERE t.spaceId = $space
CREATE (s)-[:{edge_type} {{spaceId: $space, createdAt: row.createdAt, createdBy: row.createdBy,
                          reason: row.reason}}]->(t)
"""


SUPERSEDE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.old}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.invalidatedBy = row.new, m.changed = $version,
    m.status = 'superseded', m.validTo = row.validTo
REMOVE m._lock
"""
FORGET_STATE = "MATCH (m:Memory {id: $id}) WHERE m.spaceId = $space RETURN m.active AS active"
FORGET = f"""
MATCH (m:Memory {{id: $id}}) WHERE m.spaceId = $space
SET m.active = false, m.invalidatedAt = $at, m.forgetReason = $reason, m.forgottenBy = $by,
    m.changed = $version, m.version = coalesce(m.version, 1) + 1, m.status = 'historical'
REMOVE m._lock
RETURN {memory_fields("m")} AS memory
"""

# -- reading memories -------------------------------------------------------------------------

GET_MEMORY = f"""
MATCH (m:Memory {{id: $id}}) WHERE m.spaceId = $space RETURN {memory_fields("m")} AS memory
"""
# The memories whose id starts with each prefix (fields.prefix_seek: hinted).
IDS_WITH_PREFIX = f"UNWIND $prefixes AS prefix {prefix_seek('prefix')} RETURN collect(id) AS ids"
# Several by id, as one record (bolt costs a message per record): a search's answer.
GET_MEMORIES = f"""
MATCH (m:Memory) WHERE m.id IN $ids AND m.spaceId = $space
RETURN collect({memory_fields("m")}) AS memories
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


def recent_memories(condition: str, outside: str) -> str:
    """The first page of `list_memories`, looked for among the space's last `$window` sequence
    numbers (the (spaceId, seq) index) instead of by sorting every memory of the space: Neo4j
    5.26 plans a full sort for ORDER BY createdAt even with the (spaceId, createdAt) index, which
    took 120-160 ms of every search's profile at 100,000 memories.

    The window's rows are sorted on their two keys alone, and only the page's memories are read
    whole: collected first, or the planner reads every property of all 512 rows before the sort
    (dbHits 8,704 -> 1,176; 4.6 -> 1.6 ms p50 at 100,000 memories, tools/neo4j-local).

    `missed`: is a memory outside the window (`outside`: the filter on `o`) at least as new as the
    page's last one (an import of old memories can push newer ones out of the window)? Then the
    caller asks the full sort instead. Asked in the same round trip."""
    return f"""
MATCH (s:Space {{id: $space}})
WITH coalesce(s.seq, 0) - $window AS cut
MATCH (m:Memory) WHERE m.seq > cut AND {condition}
WITH cut, m ORDER BY m.createdAt DESC, m.id DESC LIMIT $limit
WITH cut, collect(m) AS newest
WITH newest, size(newest) = $limit AND EXISTS {{
  MATCH (o:Memory) USING INDEX o:Memory(spaceId, createdAt)
  WHERE o.createdAt >= newest[-1].createdAt AND o.seq <= cut AND {outside}
}} AS missed
UNWIND newest AS m
RETURN {memory_fields("m")} AS memory, missed
"""


MEMORIES_OF_DOCUMENT = f"""
MATCH (m:Memory {{documentId: $document}}) WHERE m.spaceId = $space
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt, m.id LIMIT $limit
"""

EXISTING_HASHES = """
UNWIND $hashes AS hash
MATCH (m:Memory {spaceId: $space, contentHash: hash}) WHERE m.active = true
RETURN DISTINCT hash
"""

# The newest memory a writer saved in a space since a time, outside documents: the turn a new
# memory may continue (services/memories/conversation.py). Served by memory_space_writer_created
# (schema.py): through (spaceId, createdAt) every add read each memory of the space saved in the
# last TURN_GAP, by any writer: after a bulk load, the whole space (5,601 rows for one add at
# 20,000 memories; docs/scaling.md, "A fresh load"). Hinted: on the test server's statistics
# the planner once took (spaceId, createdAt) again, reading a bulk load of 300 for one add.
LATEST_BY_WRITER = f"""
MATCH (m:Memory {{spaceId: $space, createdBy: $writer}})
USING INDEX m:Memory(spaceId, createdBy, createdAt)
WHERE m.createdAt >= $since AND m.documentId IS NULL
RETURN {memory_fields("m")} AS memory
ORDER BY m.createdAt DESC, m.seq DESC LIMIT 1
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

# Stores written before `follows` existed: is the key known yet, every turn in the order its
# writer saved them, the links found, and the key made known once they are set.
HAS_FOLLOWS_KEY = (
    "CALL db.propertyKeys() YIELD propertyKey WHERE propertyKey = 'follows' RETURN count(*) AS n"
)
TURNS_IN_ORDER = """
MATCH (m:Memory) WHERE m.documentId IS NULL
RETURN m.spaceId AS space, m.createdBy AS writer, m.id AS id, m.content AS content,
       m.context AS context
ORDER BY m.spaceId, m.createdBy, m.createdAt, m.seq
"""
SET_FOLLOWS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) SET m.follows = row.follows
"""
REGISTER_FOLLOWS_KEY = "CALL db.createProperty('follows')"

# Stores written before types and statuses: every memory a note, its status what its state
# means today (domain.lifecycle.status_today), in batches at each start until none is left.
MEMORIES_WITHOUT_STATUS = """
MATCH (m:Memory) WHERE m.status IS NULL AND ($space IS NULL OR m.spaceId = $space)
WITH m LIMIT $limit
SET m.type = coalesce(m.type, 'note'), m.importance = coalesce(m.importance, 3),
    m.canonical = coalesce(m.canonical, false),
    m.status = CASE WHEN m.active THEN 'current'
                    WHEN m.invalidatedBy IS NOT NULL AND m.forgetReason IS NULL THEN 'superseded'
                    ELSE 'historical' END
RETURN count(m) AS done
"""
