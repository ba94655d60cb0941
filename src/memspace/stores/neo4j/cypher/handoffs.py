"""Handoffs (stores/neo4j/handoffs.py)."""

from __future__ import annotations

# -- handoffs ---------------------------------------------------------------------------------

HANDOFF_FIELDS = (
    "h {.id, .spaceId, .agent, .topic, .summary, .done, .nextSteps, .openQuestions, .links, "
    ".createdAt, .createdBy, .evidence}"
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
