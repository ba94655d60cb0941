"""Handoffs in the embedded store: one row each, the four lists as one JSON column."""

from __future__ import annotations

import json
import sqlite3

from memspace.domain.errors import NotFound
from memspace.domain.models import Handoff
from memspace.domain.ports import PageAfter
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import req_ts, ts


def _where(space_id: str, agent: str | None, topic: str | None) -> tuple[str, list[object]]:
    sql = "space_id = ?"
    args: list[object] = [space_id]
    if agent is not None:
        sql += " AND agent_key = ?"
        args.append(agent.casefold())
    if topic is not None:
        sql += " AND topic_key = ?"
        args.append(topic.casefold())
    return sql, args


def _from_row(row: sqlite3.Row) -> Handoff:
    lists = json.loads(row["lists"])
    return Handoff(
        id=row["id"], space_id=row["space_id"], agent=row["agent"], topic=row["topic"],
        summary=row["summary"], done=tuple(lists["done"]), next_steps=tuple(lists["nextSteps"]),
        open_questions=tuple(lists["openQuestions"]), links=tuple(lists["links"]),
        created_at=req_ts(row["created_at"]), created_by=row["created_by"],
        evidence=tuple(lists.get("evidence", ())),
    )


class SqliteHandoffs:
    """The HandoffStore role over the store's kit (sqlite/kit.py)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def add_handoff(self, handoff: Handoff) -> None:
        with self._db.tx() as conn:
            if conn.execute("SELECT 1 FROM spaces WHERE id = ?",
                            (handoff.space_id,)).fetchone() is None:
                raise NotFound(f"no space '{handoff.space_id}'")
            lists = {"done": handoff.done, "nextSteps": handoff.next_steps,
                     "openQuestions": handoff.open_questions, "links": handoff.links,
                     **({"evidence": handoff.evidence} if handoff.evidence else {})}
            conn.execute(
                "INSERT INTO handoffs (id, space_id, agent, agent_key, topic, topic_key, summary, "
                "lists, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (handoff.id, handoff.space_id, handoff.agent, handoff.agent.casefold(),
                 handoff.topic, handoff.topic.casefold(), handoff.summary,
                 json.dumps(lists, ensure_ascii=False), ts(handoff.created_at),
                 handoff.created_by),
            )

    def latest_handoff(self, space_id: str, agent: str | None = None,
                       topic: str | None = None) -> Handoff | None:
        sql, args = _where(space_id, agent, topic)
        row = self._db.conn().execute(
            f"SELECT * FROM handoffs WHERE {sql} ORDER BY created_at DESC, id DESC LIMIT 1", args
        ).fetchone()
        return _from_row(row) if row else None

    def list_handoffs(self, space_id: str, limit: int, after: PageAfter | None = None,
                      agent: str | None = None) -> list[Handoff]:
        sql, args = _where(space_id, agent, None)
        if after is not None:
            sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
            args += [ts(after.created_at), ts(after.created_at), after.id]
        rows = self._db.conn().execute(
            f"SELECT * FROM handoffs WHERE {sql} ORDER BY created_at DESC, id DESC LIMIT ?",
            [*args, limit],
        ).fetchall()
        return [_from_row(r) for r in rows]
