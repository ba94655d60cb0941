"""OAuthStore on Neo4j: nodes OAuthClient, OAuthLoginLink, OAuthFamily, OAuthToken (no edges:
a token names its family by id, as a memory names its space). Statements live in cypher/oauth.py."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from neo4j import Transaction

from memspace.domain.models import Access
from memspace.domain.oauth import FamilyToken, LoginLink, OAuthClient, TokenFamily, TokenKind
from memspace.stores.neo4j.cypher import oauth as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.records import utc
from memspace.stores.neo4j.schema import SchemaPart, ensure_schema

Props = dict[str, Any]


def _dt(value: Any) -> datetime:
    return utc(value.to_native())


def _opt_dt(value: Any) -> datetime | None:
    return None if value is None else _dt(value)


def _client(p: Props) -> OAuthClient:
    return OAuthClient(p["clientId"], p["name"], tuple(p["redirectUris"]), _dt(p["createdAt"]),
                       p["metadata"])


def _family(p: Props) -> TokenFamily:
    grants = {k: Access(v) for k, v in json.loads(p["grants"]).items()}
    return TokenFamily(p["id"], p["clientId"], p["keyId"], grants, p["resource"], p["redirectUri"],
                       p["codeChallenge"], _dt(p["createdAt"]), _opt_dt(p.get("revokedAt")))


def _token(p: Props) -> FamilyToken:
    return FamilyToken(p["sha256"], p["familyId"], TokenKind(p["kind"]), _dt(p["createdAt"]),
                       _dt(p["expiresAt"]), _opt_dt(p.get("usedAt")))


def _token_props(t: FamilyToken) -> Props:
    return {"sha256": t.sha256, "familyId": t.family_id, "kind": t.kind.value,
            "createdAt": utc(t.created_at), "expiresAt": utc(t.expires_at)}


SCHEMA = SchemaPart(cypher.OAUTH_SCHEMA, cypher.OAUTH_LABELS, cypher.OAUTH_PROPERTY_KEYS)


class Neo4jOAuthStore:
    """OAuth records in the graph's database, through the graph store's connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def save_client(self, client: OAuthClient) -> None:
        props = {"clientId": client.client_id, "name": client.name,
                 "redirectUris": list(client.redirect_uris), "createdAt": utc(client.created_at),
                 "metadata": client.metadata}
        self._db.write(lambda tx: tx.run(cypher.OAUTH_SAVE_CLIENT, props=props).consume(),
                       f"an OAuth client with id '{client.client_id}' already exists")

    def get_client(self, client_id: str) -> OAuthClient | None:
        rows = self._db.read(cypher.OAUTH_GET_CLIENT, id=client_id)
        return _client(rows[0]["client"]) if rows else None

    def list_clients(self) -> list[OAuthClient]:
        return [_client(r["client"]) for r in self._db.read(cypher.OAUTH_LIST_CLIENTS)]

    def save_login_link(self, link: LoginLink) -> None:
        props = {"sha256": link.sha256, "keyId": link.key_id, "createdAt": utc(link.created_at),
                 "expiresAt": utc(link.expires_at)}
        self._db.write(lambda tx: tx.run(cypher.OAUTH_SAVE_LOGIN_LINK, props=props).consume())

    def redeem_login_link(self, sha256: str, at: datetime) -> LoginLink | None:
        def work(tx: Transaction) -> Props | None:
            record = tx.run(cypher.OAUTH_REDEEM_LOGIN_LINK, sha256=sha256, at=utc(at)).single()
            return None if record is None else dict(record["link"])

        p = self._db.write(work)
        if p is None:
            return None
        return LoginLink(p["sha256"], p["keyId"], _dt(p["createdAt"]), _dt(p["expiresAt"]),
                         _opt_dt(p["usedAt"]))

    def start_family(self, family: TokenFamily, code: FamilyToken) -> None:
        props = {"id": family.id, "clientId": family.client_id, "keyId": family.key_id,
                 "grants": json.dumps({k: v.value for k, v in family.grants.items()}),
                 "resource": family.resource, "redirectUri": family.redirect_uri,
                 "codeChallenge": family.code_challenge, "createdAt": utc(family.created_at)}
        self._db.write(lambda tx: tx.run(cypher.OAUTH_START_FAMILY, family=props,
                                         code=_token_props(code)).consume())

    def get_token(self, sha256: str) -> tuple[FamilyToken, TokenFamily] | None:
        rows = self._db.read(cypher.OAUTH_GET_TOKEN, sha256=sha256)
        return (_token(rows[0]["token"]), _family(rows[0]["family"])) if rows else None

    def use_token(self, sha256: str, at: datetime, issue: list[FamilyToken]) -> bool:
        def work(tx: Transaction) -> bool:
            record = tx.run(cypher.OAUTH_USE_TOKEN, sha256=sha256, at=utc(at),
                            issue=[_token_props(t) for t in issue]).single()
            return record is not None and record["used"] == 1

        return self._db.write(work)

    def revoke_family(self, family_id: str, at: datetime) -> None:
        self._db.write(lambda tx: tx.run(cypher.OAUTH_REVOKE_FAMILY, id=family_id, at=utc(at)).consume())

    def purge_tokens(self, expired_before: datetime) -> int:
        def work(tx: Transaction) -> int:
            return int(tx.run(cypher.OAUTH_PURGE_TOKENS, before=utc(expired_before))
                       .single(strict=True)["purged"])

        return self._db.write(work)

    def revoke_client(self, client_id: str, at: datetime) -> int:
        def work(tx: Transaction) -> int:
            return int(tx.run(cypher.OAUTH_REVOKE_CLIENT, id=client_id, at=utc(at))
                       .single(strict=True)["revoked"])

        return self._db.write(work)

    def list_families(self) -> list[TokenFamily]:
        return [_family(r["family"]) for r in self._db.read(cypher.OAUTH_LIST_FAMILIES)]
