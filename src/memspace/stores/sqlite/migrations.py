"""Schema of the embedded store, as numbered migrations applied in order, each in one transaction."""

from __future__ import annotations

import sqlite3

from memspace.domain.text import index_terms

# Timestamps are ISO-8601 UTC text with microseconds, so they sort as they compare.
MIGRATIONS: list[str] = [
    # 1: the whole first schema
    """
    CREATE TABLE spaces (
        id TEXT PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        last_active_at TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0  -- bumped by every memory write; keys the vector cache
    );
    CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        default_space_id TEXT REFERENCES spaces(id),
        active_space_id TEXT REFERENCES spaces(id),
        created_at TEXT NOT NULL,
        revoked_at TEXT
    );
    CREATE TABLE key_grants (
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        space_id TEXT NOT NULL REFERENCES spaces(id),
        access TEXT NOT NULL CHECK (access IN ('read', 'readwrite')),
        PRIMARY KEY (key_id, space_id)
    );
    CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        title TEXT NOT NULL,
        kind TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        fact_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL
    );
    CREATE INDEX documents_by_space ON documents (space_id, created_at, id);
    CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        content TEXT NOT NULL,
        category TEXT NOT NULL,
        embedding BLOB,                     -- float32, unit length
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        document_id TEXT REFERENCES documents(id),
        invalidated_at TEXT,
        invalidated_by TEXT,
        forget_reason TEXT,
        forgotten_by TEXT
    );
    CREATE INDEX memories_by_space_time ON memories (space_id, created_at, id);
    CREATE INDEX memories_by_hash ON memories (space_id, content_hash) WHERE active = 1;
    CREATE INDEX memories_by_category ON memories (space_id, category, created_at);
    CREATE INDEX memories_by_state ON memories (space_id, active);
    CREATE TABLE relations (
        id INTEGER PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        source_id TEXT NOT NULL REFERENCES memories(id),
        target_id TEXT NOT NULL REFERENCES memories(id),
        type TEXT NOT NULL CHECK (type IN ('UPDATES', 'EXTENDS', 'DERIVES')),
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        reason TEXT
    );
    CREATE INDEX relations_by_source ON relations (source_id);
    CREATE INDEX relations_by_target ON relations (target_id);
    CREATE INDEX relations_by_space ON relations (space_id);
    -- Memory content never changes after insert (corrections are new rows), so an insert
    -- trigger is all the external-content index needs.
    CREATE VIRTUAL TABLE memory_fts USING fts5(
        content, content='memories', content_rowid='rowid',
        tokenize='unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row');
    """,
    # 2: model usage per space, and idempotency keys of add_memory
    """
    CREATE TABLE usage_totals (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id),
        llm_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE idempotency (
        space_id TEXT NOT NULL REFERENCES spaces(id),
        scope TEXT NOT NULL,          -- the key (or operator) that made the call
        key TEXT NOT NULL,
        result TEXT,                  -- NULL while the call is running
        created_at TEXT NOT NULL,
        PRIMARY KEY (space_id, scope, key)
    );
    """,
    # 3: document ingestion — progress, one upload per file per space, where a fact came from
    """
    ALTER TABLE documents ADD COLUMN chunks_total INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE documents ADD COLUMN chunks_done INTEGER NOT NULL DEFAULT 0;
    CREATE UNIQUE INDEX documents_by_hash ON documents (space_id, sha256);
    CREATE INDEX documents_unfinished ON documents (status, created_at)
        WHERE status IN ('queued', 'processing');
    ALTER TABLE memories ADD COLUMN origin TEXT;
    CREATE INDEX memories_by_document ON memories (document_id) WHERE document_id IS NOT NULL;
    """,
    # 4: the change feed — the space version of the write that last changed each memory
    """
    ALTER TABLE memories ADD COLUMN changed_version INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX memories_by_change ON memories (space_id, changed_version, id);
    """,
    # 5: OAuth 2.1 (domain/oauth.py): registered clients, one-time login links, token families
    # and their codes/access/refresh tokens, each stored as a SHA-256 only
    """
    CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,   -- JSON array
        created_at TEXT NOT NULL,
        metadata TEXT NOT NULL         -- the registered metadata, JSON
    );
    CREATE TABLE oauth_login_links (
        sha256 TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
    );
    CREATE TABLE oauth_families (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        grants TEXT NOT NULL,          -- JSON {space id: access}
        resource TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    );
    CREATE INDEX oauth_families_by_client ON oauth_families (client_id);
    CREATE TABLE oauth_tokens (
        sha256 TEXT PRIMARY KEY,
        family_id TEXT NOT NULL REFERENCES oauth_families(id),
        kind TEXT NOT NULL CHECK (kind IN ('code', 'access', 'refresh')),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
    );
    CREATE INDEX oauth_tokens_by_family ON oauth_tokens (family_id);
    """,
    # 6: versions of facts (optimistic concurrency), and handoffs between agents and sessions
    """
    ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    CREATE TABLE handoffs (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        agent TEXT NOT NULL,
        agent_key TEXT NOT NULL,      -- casefolded, so lookups ignore case in any script
        topic TEXT NOT NULL,
        topic_key TEXT NOT NULL,
        summary TEXT NOT NULL,
        lists TEXT NOT NULL,          -- JSON: done, nextSteps, openQuestions, links
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL
    );
    CREATE INDEX handoffs_by_space ON handoffs (space_id, created_at, id);
    CREATE INDEX handoffs_by_agent ON handoffs (space_id, agent_key, created_at);
    """,
    # 7: documents remember the key that uploaded them (revoking it stops their processing),
    # and carry a processing lease (two servers sharing a store never process one at once)
    """
    ALTER TABLE documents ADD COLUMN uploaded_by_key TEXT;
    ALTER TABLE documents ADD COLUMN lease_owner TEXT;
    ALTER TABLE documents ADD COLUMN lease_until TEXT;
    """,
    # 8: notes saved before extraction (domain/notes.py): one job per note, pending until the
    # ingestion worker settles it
    """
    CREATE TABLE note_jobs (
        memory_id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        state TEXT NOT NULL,          -- pending | extracted | flat
        created_at TEXT NOT NULL,
        speaker TEXT,
        observed_at TEXT,             -- ISO 8601 in the caller's own offset
        category TEXT,
        reason TEXT,
        updated_at TEXT
    );
    CREATE INDEX note_jobs_pending ON note_jobs (state, created_at, memory_id);
    """,
    # 9: who said a memory and when (docs/contract.md), the turn it continues (its search context),
    # and the ranked full-text index over terms made in Python (domain.text.index_terms), the
    # same terms the Neo4j store indexes. Rows written before get their terms in
    # backfill_terms() below, which also rebuilds the index.
    """
    ALTER TABLE memories ADD COLUMN speaker TEXT;
    ALTER TABLE memories ADD COLUMN observed_at TEXT;   -- ISO 8601 in the caller's own offset
    ALTER TABLE memories ADD COLUMN context TEXT;
    ALTER TABLE memories ADD COLUMN terms TEXT;
    CREATE INDEX memories_by_writer ON memories (space_id, created_by, created_at)
        WHERE document_id IS NULL;
    CREATE VIRTUAL TABLE memory_terms USING fts5(
        terms, content='memories', content_rowid='rowid', tokenize='unicode61 remove_diacritics 0'
    );
    CREATE TRIGGER memories_terms_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_terms (rowid, terms) VALUES (new.rowid, coalesce(new.terms, ''));
    END;
    """,
    # 10: full text is ranked in process with each space's own statistics
    # (stores/term_index.py, from `memories.terms`): the FTS5 index of migration 9 goes.
    """
    DROP TRIGGER IF EXISTS memories_terms_insert;
    DROP TABLE IF EXISTS memory_terms;
    """,
    # 11: the id of the turn a memory continues (the memory its context was taken from), which
    # search uses to lift a turn whose neighbour matched too (services/ranking.py). Turns saved
    # before get it back the way services/conversation.py found their context: the writer's
    # latest memory before them, kept only if its content is that context.
    """
    ALTER TABLE memories ADD COLUMN follows TEXT;
    UPDATE memories SET follows = (
        SELECT p.id FROM memories AS p INDEXED BY memories_by_writer
        WHERE p.space_id = memories.space_id AND p.created_by = memories.created_by
          AND p.document_id IS NULL AND p.created_at <= memories.created_at
          AND p.rowid < memories.rowid
        ORDER BY p.created_at DESC, p.rowid DESC LIMIT 1
    ) WHERE context IS NOT NULL AND document_id IS NULL;
    UPDATE memories SET follows = NULL WHERE follows IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM memories AS p WHERE p.id = memories.follows
          AND (p.content = memories.context OR memories.context LIKE '…%')
    );
    """,
    # 12: facts about the store as a whole: the embedding model its vectors were made with
    # (services/embedding_model.py)
    """
    CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 13: keyword search runs in process too, over each space's own words
    # (stores/keyword_index.py): the FTS5 index of migration 1 goes, and with it its upkeep on
    # every insert.
    """
    DROP TABLE IF EXISTS memory_vocab;
    DROP TRIGGER IF EXISTS memories_fts_insert;
    DROP TABLE IF EXISTS memory_fts;
    """,
    # 14: evidence (domain/evidence.py): a memory's citations and how well they hold, each
    # space's evidence policy, the git repositories registered per space, their indexed files
    # (hash per file, so an unchanged file is skipped) and code chunks, and the commits mined
    """
    ALTER TABLE memories ADD COLUMN evidence TEXT;          -- JSON (stores/evidence_codec.py)
    ALTER TABLE memories ADD COLUMN verification TEXT;
    ALTER TABLE memories ADD COLUMN verified_at TEXT;
    CREATE INDEX memories_by_verification ON memories (space_id, verification, created_at)
        WHERE verification IS NOT NULL;
    CREATE TABLE evidence_policies (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id),
        policy TEXT NOT NULL CHECK (policy IN ('optional', 'required'))
    );
    CREATE TABLE repos (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        name TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL,
        created_at TEXT NOT NULL,
        synced_at TEXT,
        head TEXT,
        generation INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE code_files (
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        language TEXT NOT NULL,
        PRIMARY KEY (repo_id, path)
    );
    CREATE TABLE code_chunks (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        symbol TEXT,
        language TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX code_chunks_by_file ON code_chunks (repo_id, path, start_line);
    CREATE INDEX code_chunks_by_space ON code_chunks (space_id);
    CREATE TABLE mined_commits (
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        PRIMARY KEY (repo_id, sha)
    );
    """,
    # 15: each space's security policy (secrets refuse|redact|allow, instruction-like
    # writes flag|quarantine; a space without a row has the defaults) and the operator's audit
    # log of administrative actions, appended to only (services/audit.py); and on each memory
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
