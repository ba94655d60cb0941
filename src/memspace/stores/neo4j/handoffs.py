"""Handoffs in the Neo4j store (the HandoffStore role)."""

from __future__ import annotations

from typing import Any

from neo4j import Transaction

from memspace.domain.errors import NotFound
from memspace.domain.models import Handoff
from memspace.domain.ports import PageAfter
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import handoffs as cypher
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jHandoffs:
    """The HandoffStore role over the store's kit (neo4j/kit.py)."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def add_handoff(self, handoff: Handoff) -> None:
        props = rec.handoff_props(handoff)

        def work(tx: Transaction) -> None:
            if tx.run(cypher.CREATE_HANDOFF, props=props).single() is None:
                raise NotFound(f"no space '{handoff.space_id}'")

        self._db.write(work, conflict=f"a handoff with id '{handoff.id}' already exists")

    def latest_handoff(self, space_id: str, agent: str | None = None,
                       topic: str | None = None) -> Handoff | None:
        found = self._handoffs(space_id, 1, None, agent, topic)
        return found[0] if found else None

    def list_handoffs(self, space_id: str, limit: int, after: PageAfter | None = None,
                      agent: str | None = None) -> list[Handoff]:
        return self._handoffs(space_id, limit, after, agent, None)

    def _handoffs(self, space_id: str, limit: int, after: PageAfter | None,
                  agent: str | None, topic: str | None) -> list[Handoff]:
        params: dict[str, Any] = {"space": space_id, "limit": limit}
        if agent is not None:
            params["agent"] = agent.casefold()
        if topic is not None:
            params["topic"] = topic.casefold()
        if after is not None:
            params |= {"at": rec.utc(after.created_at), "id": after.id}
        query = cypher.handoffs(agent is not None, topic is not None, after is not None)
        return [rec.handoff_from(r["handoff"]) for r in self._db.read(query, **params)]
