"""Migrations 1-8 of the embedded store, in order (stores/sqlite/migrations.py's MIGRATIONS
lists them in place). Their text never changes: a store is numbered by the ones it applied."""

from __future__ import annotations

# Timestamps are ISO-8601 UTC text with microseconds, so they sort as they compare.
MIGRATIONS_1_TO_8: list[str] = [
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
]
