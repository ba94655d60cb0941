"""Schema of the embedded store, as numbered migrations applied in order, each in one transaction.
The first fourteen are in migrations_1_8.py and migrations_9_14.py; a new one is appended at the
end of MIGRATIONS here."""

from __future__ import annotations

import sqlite3

from memspace.domain.text import index_terms
from memspace.stores.sqlite.migrations_1_8 import MIGRATIONS_1_TO_8
from memspace.stores.sqlite.migrations_9_14 import MIGRATIONS_9_TO_14

# Timestamps are ISO-8601 UTC text with microseconds, so they sort as they compare.
MIGRATIONS: list[str] = [
    *MIGRATIONS_1_TO_8,  # stores/sqlite/migrations_1_8.py
    *MIGRATIONS_9_TO_14,  # stores/sqlite/migrations_9_14.py
    # 15: each space's security policy (secrets refuse|redact|allow, instruction-like
    # writes flag|quarantine; a space without a row has the defaults) and the operator's audit
    # log of administrative actions, appended to only (services/shared/audit.py); and on each memory
    # where it came from (provenance; NULL for earlier memories: domain.models.provenance_of
    # infers it) and why it reads like instructions to an agent (suspicious; NULL: it does not)
    """
    CREATE TABLE space_policies (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id),
        secrets TEXT NOT NULL,
        injections TEXT NOT NULL
    );
    CREATE TABLE audit_log (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        space_id TEXT,
        target TEXT,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_log_at ON audit_log (at);
    ALTER TABLE memories ADD COLUMN provenance_kind TEXT;
    ALTER TABLE memories ADD COLUMN provenance_source TEXT;
    ALTER TABLE memories ADD COLUMN suspicious TEXT;
    """,
    # 16: a space's instructions for its agents (get_context's header); every memory has a
    # type (what kind of note) and a status (where it stands), an importance 1-5 and a
    # canonical flag (domain/lifecycle.py); status changes set by hand
    # keep who, when and why. Existing memories are notes; their status is what their state
    # means today: active -> current, replaced by a correction -> superseded, forgotten ->
    # historical (domain.lifecycle.status_today says the same for imports).
    """
    ALTER TABLE spaces ADD COLUMN instructions TEXT NOT NULL DEFAULT '';
    ALTER TABLE memories ADD COLUMN type TEXT NOT NULL DEFAULT 'note';
    ALTER TABLE memories ADD COLUMN status TEXT NOT NULL DEFAULT 'current';
    ALTER TABLE memories ADD COLUMN importance INTEGER NOT NULL DEFAULT 3;
    ALTER TABLE memories ADD COLUMN canonical INTEGER NOT NULL DEFAULT 0;
    UPDATE memories SET status = CASE
        WHEN active = 1 THEN 'current'
        WHEN invalidated_by IS NOT NULL AND forget_reason IS NULL THEN 'superseded'
        ELSE 'historical' END;
    CREATE INDEX memories_by_type ON memories (space_id, type, created_at);
    CREATE INDEX memories_by_status ON memories (space_id, status, created_at);
    CREATE TABLE memory_marks (
        id INTEGER PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        memory_id TEXT NOT NULL REFERENCES memories(id),
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT NOT NULL,
        marked_by TEXT NOT NULL,
        marked_at TEXT NOT NULL
    );
    CREATE INDEX memory_marks_by_memory ON memory_marks (space_id, memory_id, id);
    """,
    # 17: valid time (domain/bitemporal.py, docs/time.md). valid_from: the observedAt given, in
    # UTC (strftime reads its offset; '000Z' pads milliseconds to ts()'s microseconds), else
    # created_at; valid_to: the valid_from of the memory that superseded it (forgotten ones stay
    # open: no reading of the past shows them). Record time is created_at / invalidated_at.
    """
    ALTER TABLE memories ADD COLUMN valid_from TEXT;
    ALTER TABLE memories ADD COLUMN valid_to TEXT;
    UPDATE memories SET valid_from = coalesce(
        strftime('%Y-%m-%dT%H:%M:%f', observed_at) || '000Z', created_at);
    UPDATE memories SET valid_to = (
        SELECT n.valid_from FROM memories n WHERE n.id = memories.invalidated_by)
    WHERE invalidated_by IS NOT NULL AND forgotten_by IS NULL;
    """,
    # 18: the conflict queue (docs/conflicts.md): conflicts kept as records (suggested updates,
    # a model's contradictions, writes refused as conflicts) and the settlement of every kind.
    # `memory_ids` and `superseded` are JSON lists; `proposal` the JSON of a claim never stored.
    """
    CREATE TABLE IF NOT EXISTS conflicts (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        kind TEXT NOT NULL,
        memory_ids TEXT NOT NULL,
        why TEXT NOT NULL,
        recorded_by TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        proposal TEXT,
        proposal_hash TEXT,
        resolved_at TEXT,
        resolved_by TEXT,
        resolution TEXT,
        kept TEXT,
        superseded TEXT
    );
    CREATE INDEX IF NOT EXISTS conflicts_open ON conflicts (space_id, resolved_at, recorded_at);
    """,
    # 19: the MCP toolsets a key asked to be shown (comma-separated names; NULL: the server's)
    """
    ALTER TABLE api_keys ADD COLUMN toolsets TEXT;
    """,
    # 20: the consolidation pass (domain/consolidation.py, stores/sqlite/consolidation.py): the
    # lease one pass of a space holds at a time, the space version passes have read up to, and
    # each pass's record (`changes` and `cost` as the JSON text of changes_text / cost_text).
    """
    CREATE TABLE consolidation_leases (
        space_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        until TEXT NOT NULL
    );
    CREATE TABLE consolidation_cursors (
        space_id TEXT PRIMARY KEY,
        cursor INTEGER NOT NULL
    );
    CREATE TABLE consolidation_passes (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        started_at TEXT NOT NULL,
        finished_at TEXT,
        since INTEGER NOT NULL,
        until INTEGER NOT NULL,
        changes TEXT NOT NULL,
        cost TEXT NOT NULL,
        undone_at TEXT,
        undone_by TEXT
    );
    CREATE INDEX consolidation_passes_by_space ON consolidation_passes (space_id, started_at);
    """,
    # 21: when a memory expires (docs/lifecycle.md#expiry; NULL: never), and the active
    # memories of a space that carry one, in the order the consolidation pass retires them
    # (LifecycleStore.expire_due), so it never reads the memories that do not
    """
    ALTER TABLE memories ADD COLUMN expires_at TEXT;
    CREATE INDEX memories_expiring ON memories (space_id, expires_at)
        WHERE active = 1 AND expires_at IS NOT NULL;
    """,
    # 22: the consolidation cursor names the last memory read of its write ('': all of it;
    # domain.consolidation.PassCursor), so a pass stopped inside one write's memories goes on
    # from there; a pass's record keeps both ends the same way
    """
    ALTER TABLE consolidation_cursors ADD COLUMN cursor_after TEXT NOT NULL DEFAULT '';
    ALTER TABLE consolidation_passes ADD COLUMN since_after TEXT NOT NULL DEFAULT '';
    ALTER TABLE consolidation_passes ADD COLUMN until_after TEXT NOT NULL DEFAULT '';
    """,
]


def backfill_terms(conn: sqlite3.Connection) -> int:
    """Give memories stored before migration 9 their index terms (from their content);
    returns how many were filled. A no-op once every row has terms."""
    rows = conn.execute("SELECT rowid, content FROM memories WHERE terms IS NULL").fetchall()
    if not rows:
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("UPDATE memories SET terms = ? WHERE rowid = ?",
                         [(index_terms(r[1]), r[0]) for r in rows])
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(rows)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date; returns the version reached."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)")
    row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
    current = int(row[0])
    for version, script in enumerate(MIGRATIONS, start=1):
        if version <= current:
            continue
        # executescript commits first; wrap the script so it applies whole or not at all.
        try:
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{script}\n"
                f"INSERT INTO schema_migrations (version) VALUES ({version});\nCOMMIT;"
            )
        except sqlite3.OperationalError:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            # Another process may have applied it between our read and our write.
            done = conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone()
            if done is None:
                raise
    return len(MIGRATIONS)
