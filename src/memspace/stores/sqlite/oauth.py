"""OAuthStore on the embedded SQLite file (tables from migration 5), sharing the graph's connection."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from memspace.domain.models import Access
from memspace.domain.oauth import FamilyToken, LoginLink, OAuthClient, TokenFamily, TokenKind
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import parse_ts, req_ts, ts


def _client(row: sqlite3.Row) -> OAuthClient:
    return OAuthClient(row["client_id"], row["name"], tuple(json.loads(row["redirect_uris"])),
                       req_ts(row["created_at"]), row["metadata"])


def _family(row: sqlite3.Row) -> TokenFamily:
    grants = {k: Access(v) for k, v in json.loads(row["grants"]).items()}
    return TokenFamily(row["id"], row["client_id"], row["key_id"], grants, row["resource"],
                       row["redirect_uri"], row["code_challenge"], req_ts(row["created_at"]),
                       parse_ts(row["revoked_at"]))


def _token(row: sqlite3.Row) -> FamilyToken:
    return FamilyToken(row["sha256"], row["family_id"], TokenKind(row["kind"]),
                       req_ts(row["created_at"]), req_ts(row["expires_at"]), parse_ts(row["used_at"]))


def _insert_tokens(conn: sqlite3.Connection, tokens: list[FamilyToken]) -> None:
    conn.executemany(
        "INSERT INTO oauth_tokens (sha256, family_id, kind, created_at, expires_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(t.sha256, t.family_id, t.kind.value, ts(t.created_at), ts(t.expires_at)) for t in tokens],
    )


class SqliteOAuthStore:
    """OAuth records in the same SQLite file as the graph, through the graph store's connection."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def save_client(self, client: OAuthClient) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at, metadata) "
                "VALUES (?, ?, ?, ?, ?)",
                (client.client_id, client.name, json.dumps(list(client.redirect_uris)),
                 ts(client.created_at), client.metadata),
            )

    def get_client(self, client_id: str) -> OAuthClient | None:
        row = self._db.conn().execute(
            "SELECT * FROM oauth_clients WHERE client_id = ?", (client_id,)).fetchone()
        return _client(row) if row else None

    def list_clients(self) -> list[OAuthClient]:
        rows = self._db.conn().execute(
            "SELECT * FROM oauth_clients ORDER BY created_at, client_id").fetchall()
        return [_client(r) for r in rows]

    def save_login_link(self, link: LoginLink) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO oauth_login_links (sha256, key_id, created_at, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (link.sha256, link.key_id, ts(link.created_at), ts(link.expires_at)),
            )

    def redeem_login_link(self, sha256: str, at: datetime) -> LoginLink | None:
        with self._db.tx() as conn:
            updated = conn.execute(
                "UPDATE oauth_login_links SET used_at = ? "
                "WHERE sha256 = ? AND used_at IS NULL AND expires_at > ?",
                (ts(at), sha256, ts(at)),
            ).rowcount
            if not updated:
                return None
            row = conn.execute("SELECT * FROM oauth_login_links WHERE sha256 = ?", (sha256,)).fetchone()
        return LoginLink(row["sha256"], row["key_id"], req_ts(row["created_at"]),
                         req_ts(row["expires_at"]), parse_ts(row["used_at"]))

    def start_family(self, family: TokenFamily, code: FamilyToken) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO oauth_families (id, client_id, key_id, grants, resource, redirect_uri, "
                "code_challenge, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (family.id, family.client_id, family.key_id,
                 json.dumps({k: v.value for k, v in family.grants.items()}), family.resource,
                 family.redirect_uri, family.code_challenge, ts(family.created_at)),
            )
            _insert_tokens(conn, [code])

    def get_token(self, sha256: str) -> tuple[FamilyToken, TokenFamily] | None:
        conn = self._db.conn()
        row = conn.execute("SELECT * FROM oauth_tokens WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            return None
        family = conn.execute(
            "SELECT * FROM oauth_families WHERE id = ?", (row["family_id"],)).fetchone()
        return _token(row), _family(family)

    def use_token(self, sha256: str, at: datetime, issue: list[FamilyToken]) -> bool:
        with self._db.tx() as conn:
            updated = conn.execute(
                "UPDATE oauth_tokens SET used_at = ? WHERE sha256 = ? AND used_at IS NULL "
                "AND family_id IN (SELECT id FROM oauth_families WHERE revoked_at IS NULL)",
                (ts(at), sha256),
            ).rowcount
            if updated:
                _insert_tokens(conn, issue)
        return bool(updated)

    def revoke_family(self, family_id: str, at: datetime) -> None:
        with self._db.tx() as conn:
            conn.execute("UPDATE oauth_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                         (ts(at), family_id))

    def purge_tokens(self, expired_before: datetime) -> int:
        with self._db.tx() as conn:
            return int(conn.execute("DELETE FROM oauth_tokens WHERE expires_at < ?",
                                    (ts(expired_before),)).rowcount)

    def revoke_client(self, client_id: str, at: datetime) -> int:
        with self._db.tx() as conn:
            return int(conn.execute(
                "UPDATE oauth_families SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
                (ts(at), client_id),
            ).rowcount)

    def list_families(self) -> list[TokenFamily]:
        rows = self._db.conn().execute(
            "SELECT * FROM oauth_families ORDER BY created_at, id").fetchall()
        return [_family(r) for r in rows]
