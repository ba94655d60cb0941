"""Spaces and API keys (stores/neo4j/directory.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import EDGE_TYPES

# -- the store as a whole (services/embedding_model.py) -----------------------------------------

STORE_INFO = "MATCH (i:StoreInfo {key: $key}) RETURN i.value AS value LIMIT 1"
SET_STORE_INFO = "MERGE (i:StoreInfo {key: $key}) SET i.value = $value"
HOLDS_MEMORIES = "MATCH (m:Memory) RETURN 1 AS found LIMIT 1"

# -- spaces -----------------------------------------------------------------------------------

SPACE_FIELDS = "s {.id, .slug, .name, .description, .createdAt, .lastActiveAt, .instructions}"
CREATE_SPACE = "CREATE (s:Space) SET s = $props"
GET_SPACE = f"MATCH (s:Space {{id: $id}}) RETURN {SPACE_FIELDS} AS space"
GET_SPACE_BY_SLUG = f"MATCH (s:Space {{slug: $slug}}) RETURN {SPACE_FIELDS} AS space"
LIST_SPACES = f"MATCH (s:Space) RETURN {SPACE_FIELDS} AS space ORDER BY s.slug"
# Memories and relations are counted only when the space's version is not `$known` (every
# write bumps it; the store keeps the counts of the version it last saw): counting 100,000
# memories and their edges on each search's profile cost more than the rest of the search.
# Documents are counted on the (spaceId, createdAt) index (every document has createdAt):
# unhinted, the planner scans every document of every space.
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
       COUNT {{ MATCH (d:Document) USING INDEX d:Document(spaceId, createdAt)
               WHERE d.spaceId = $space AND d.createdAt IS NOT NULL }} AS documents
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
_KEY_FIELDS = f"""
k {{.id, .name, .prefix, .sha256, .defaultSpaceId, .activeSpaceId, .createdAt, .revokedAt,
    .toolsets}} AS key,
[(k)-[g:GRANTS]->(s:Space) | [s.id, g.access, {SPACE_FIELDS}]] AS grants
"""
GET_KEY = f"MATCH (k:ApiKey {{id: $id}}) RETURN {_KEY_FIELDS}"
GET_KEY_BY_HASH = f"MATCH (k:ApiKey {{sha256: $sha256}}) RETURN {_KEY_FIELDS}"
LIST_KEYS = f"MATCH (k:ApiKey) RETURN {_KEY_FIELDS} ORDER BY k.createdAt, k.id"
REVOKE_KEY = """
MATCH (k:ApiKey {id: $id}) SET k.revokedAt = coalesce(k.revokedAt, $at) RETURN count(k) AS found
"""
SET_ACTIVE_SPACE = "MATCH (k:ApiKey {id: $id}) SET k.activeSpaceId = $space"

# A space's description and its instructions for agents; a null parameter keeps the value.
SET_SPACE_TEXT = f"""
MATCH (s:Space {{id: $id}})
SET s.description = coalesce($description, s.description),
    s.instructions = coalesce($instructions, s.instructions, '')
RETURN {SPACE_FIELDS} AS space
"""
