"""Usage totals and idempotency keys (stores/neo4j/ledger.py)."""

from __future__ import annotations

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
