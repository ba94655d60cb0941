"""Repositories, the code index and evidence state (stores/neo4j/repos.py, evidence.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import memory_fields

# -- repositories: Repo, CodeFile, CodeChunk and MinedCommit nodes, each naming its repo by id --
REPO_ADD = """
OPTIONAL MATCH (taken:Repo {name: $props.name})
WITH taken WHERE taken IS NULL
CREATE (r:Repo) SET r = $props
RETURN r.id AS id
"""
REPOS_ALL = "MATCH (r:Repo) RETURN r {.*} AS repo ORDER BY r.name"
REPOS_OF_SPACE = "MATCH (r:Repo {spaceId: $space}) RETURN r {.*} AS repo ORDER BY r.name"
REPO_BY_NAME = "MATCH (r:Repo {name: $name}) RETURN r {.*} AS repo"
REPO_REMOVE = """
MATCH (r:Repo {id: $id})
CALL (r) { MATCH (c:CodeChunk {repoId: r.id}) DETACH DELETE c }
CALL (r) { MATCH (f:CodeFile {repoId: r.id}) DETACH DELETE f }
CALL (r) { MATCH (k:MinedCommit {repoId: r.id}) DETACH DELETE k }
DETACH DELETE r
"""
FILE_HASHES = "MATCH (f:CodeFile {repoId: $repo}) RETURN f.path AS path, f.sha256 AS sha256"
FILES_DROP = """
UNWIND $paths AS path
CALL (path) { MATCH (c:CodeChunk {repoId: $repo, path: path}) DELETE c }
CALL (path) { MATCH (f:CodeFile {repoId: $repo, path: path}) DELETE f }
"""
FILES_ADD = "UNWIND $files AS props CREATE (f:CodeFile) SET f = props"
CHUNKS_ADD = "UNWIND $chunks AS props CREATE (c:CodeChunk) SET c = props"
REPO_SYNCED = """
MATCH (r:Repo {id: $id})
SET r.syncedAt = $at, r.head = $head, r.generation = coalesce(r.generation, 0) + $bump
"""
CHUNKS_OF_SPACE = """
MATCH (c:CodeChunk {spaceId: $space}) RETURN c {.*} AS chunk
ORDER BY c.repoId, c.path, c.startLine
"""
CHUNK_BY_ID = "MATCH (c:CodeChunk {id: $id, spaceId: $space}) RETURN c {.*} AS chunk"
# The chunks whose id starts with each prefix, read from the id constraint's index (hinted, as
# memories' IDS_WITH_PREFIX: else the planner may read the whole space for each prefix).
CHUNK_IDS_WITH_PREFIX = """
UNWIND $prefixes AS prefix
CALL (prefix) {
  MATCH (c:CodeChunk) USING INDEX c:CodeChunk(id) WHERE c.id STARTS WITH prefix AND c.spaceId = $space
  RETURN c.id AS id ORDER BY id LIMIT $limit
}
RETURN collect(id) AS ids
"""
MINED = "MATCH (k:MinedCommit {repoId: $repo}) RETURN k.sha AS sha"
MARK_MINED = "UNWIND $shas AS sha MERGE (:MinedCommit {repoId: $repo, sha: sha})"

REPO_SCHEMA = (
    "CREATE CONSTRAINT repo_id IF NOT EXISTS FOR (r:Repo) REQUIRE r.id IS UNIQUE",
    "CREATE CONSTRAINT repo_name IF NOT EXISTS FOR (r:Repo) REQUIRE r.name IS UNIQUE",
    "CREATE INDEX code_file_repo IF NOT EXISTS FOR (f:CodeFile) ON (f.repoId, f.path)",
    "CREATE INDEX code_chunk_file IF NOT EXISTS FOR (c:CodeChunk) ON (c.repoId, c.path)",
    "CREATE INDEX code_chunk_space IF NOT EXISTS FOR (c:CodeChunk) ON (c.spaceId)",
    "CREATE CONSTRAINT code_chunk_id IF NOT EXISTS FOR (c:CodeChunk) REQUIRE c.id IS UNIQUE",
    "CREATE INDEX mined_commit_repo IF NOT EXISTS FOR (k:MinedCommit) ON (k.repoId, k.sha)",
    "CREATE INDEX memory_verification IF NOT EXISTS FOR (m:Memory) ON (m.spaceId, m.verification)",
)
REPO_LABELS = ("Repo", "CodeFile", "CodeChunk", "MinedCommit")
REPO_PROPERTY_KEYS = ("name", "path", "syncedAt", "head", "generation", "repoId", "sha256",
                      "language", "startLine", "endLine", "symbol", "body", "sha",
                      "evidencePolicy", "evidence", "verification", "verifiedAt")

# -- evidence: the space's policy, cited memories and their verification state ---------------
POLICY = "MATCH (s:Space {id: $space}) RETURN s.evidencePolicy AS policy"
SET_POLICY = "MATCH (s:Space {id: $space}) SET s.evidencePolicy = $policy"
ANCHORED = f"""
MATCH (m:Memory {{spaceId: $space}}) WHERE m.active = true AND m.evidence IS NOT NULL
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt, m.id
"""
SET_VERIFICATION = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, spaceId: $space})
SET m.evidence = row.evidence, m.verification = row.state, m.verifiedAt = $at
"""


def in_state(paged: bool) -> str:
    after = " AND (m.createdAt < $at OR (m.createdAt = $at AND m.id < $id))" if paged else ""
    return f"""
MATCH (m:Memory {{spaceId: $space}})
WHERE m.active = true AND m.verification = $state{after}
RETURN {memory_fields("m")} AS memory ORDER BY m.createdAt DESC, m.id DESC LIMIT $limit
"""
