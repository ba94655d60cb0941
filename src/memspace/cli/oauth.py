"""`memspace login-link` and `memspace oauth clients|tokens|revoke`: OAuth from the terminal."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import typer

from memspace.cli.common import JsonOpt, command, emit, link_origin, open_container
from memspace.cli.root import ACCESS, app
from memspace.domain.errors import InvalidInput
from memspace.domain.text import counted
from memspace.present.records import iso
from memspace.services.access import LOGIN_LINK_TTL, parse_grant
from memspace.surfaces.console import console_sessions

oauth_app = typer.Typer(help="List OAuth clients and tokens, and revoke them.", no_args_is_help=True)


@app.command("login-link", rich_help_panel=ACCESS)
@command
def login_link(
    name: Annotated[str | None, typer.Option(
        "--name", help="Who signs in with it (names the new key).")] = None,
    grant: Annotated[list[str] | None, typer.Option(
        "--grant", help="SLUG:rw or SLUG:r; repeatable.")] = None,
    minutes: Annotated[int, typer.Option(help="How long the link stays valid.")] = int(
        LOGIN_LINK_TTL.total_seconds() // 60),
    url: Annotated[str | None, typer.Option(
        "--url", help="The origin the browser reaches the server at (default: MEMSPACE_PUBLIC_URL, "
        "else where `memspace serve` last ran on this data folder).")] = None,
    console: Annotated[bool, typer.Option(
        "--console", help="Sign a browser in to the console (/console) instead of an MCP "
        "client's consent page.")] = False,
    key: Annotated[str | None, typer.Option(
        "--key", help="With --console: sign in as this existing key (name or prefix) instead "
        "of making one with --name and --grant.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print a one-time sign-in link for an MCP client's consent page (OAuth), or with
    --console for the browser console, for someone who has no API key at hand: it makes a key
    for NAME with these grants and never shows it, or (--console --key) stands for a key."""
    app = open_container()
    origin = link_origin(app.settings, url)
    if key is not None:
        if not console or name or grant:
            raise InvalidInput("--key goes with --console and without --name/--grant, e.g. "
                               "`memspace login-link --console --key dana`")
        made = console_sessions(app).link_for_key(key, timedelta(minutes=minutes))
    elif name and grant:
        made = app.oauth.create_login_link(name, dict(parse_grant(g) for g in grant),
                                           timedelta(minutes=minutes))
    else:
        raise InvalidInput("name the key to make (--name NAME --grant SLUG:rw), or with --console "
                           "an existing one (--key NAME)")
    path = "/console/login" if console else "/authorize/login"
    link = f"{origin}{path}?code={made.code}"
    data = {"link": link, "keyId": made.key.id, "keyPrefix": made.key.prefix,
            "expiresAt": iso(made.expires_at)}
    where = ("in any browser: it opens the memspace console signed in as "
             f"'{made.key.name}'" if console else
             "in the browser where your MCP client's consent page opens (or paste it into its "
             "Sign in box)")
    emit(data, as_json,
         f"{link}\n\nOne-time sign-in for '{made.key.name}', valid until "
         f"{iso(made.expires_at)}: open it {where}.\nRevoking the key "
         f"(memspace key revoke {made.key.prefix}) ends every connection and console session "
         "made with it.")


@oauth_app.command("clients")
@command
def clients(as_json: JsonOpt = False) -> None:
    """Registered clients (dynamic registration: public clients, no secrets)."""
    app = open_container()
    found = app.oauth.clients()
    rows = [{"clientId": c.client_id, "name": c.name, "redirectUris": list(c.redirect_uris),
             "createdAt": iso(c.created_at)} for c in found]
    text = "\n".join(f"{c.client_id}\t{c.name}\t{' '.join(c.redirect_uris)}" for c in found)
    emit(rows, as_json, text or "No OAuth clients have registered yet.")


@oauth_app.command("tokens")
@command
def tokens(as_json: JsonOpt = False) -> None:
    """Approved connections (token families): client, key, spaces granted, state."""
    app = open_container()
    slugs = {s.id: s.slug for s in app.admin.list_spaces()}
    keys = {k.id: k for k in app.admin.list_keys()}
    names = {c.client_id: c.name for c in app.oauth.clients()}
    rows, lines = [], []
    for f in app.oauth.families():
        key = keys.get(f.key_id)
        state = ("revoked" if f.revoked_at else
                 "key revoked" if key is None or key.revoked_at else "live")
        grants = {slugs.get(s, s): a.value for s, a in f.grants.items()}
        rows.append({"id": f.id, "clientId": f.client_id, "client": names.get(f.client_id),
                     "key": key.prefix if key else None, "keyName": key.name if key else None,
                     "grants": grants, "createdAt": iso(f.created_at), "state": state})
        lines.append(f"{f.id}\t{names.get(f.client_id)}\t{key.name if key else '?'}\t"
                     f"{','.join(f'{s}:{a}' for s, a in grants.items())}\t{state}")
    text = "\n".join(lines)
    emit(rows, as_json, text or "No OAuth tokens have been issued yet.")


@oauth_app.command("revoke")
@command
def revoke(target: Annotated[str, typer.Argument(
        help="A token family id (`oauth tokens`) or a client id (`oauth clients`).")]) -> None:
    """Revoke one connection, or every connection of a client: their tokens stop at once."""
    count = open_container().oauth.revoke(target)
    typer.echo(f"Revoked {counted(count, 'connection')}.")


app.add_typer(oauth_app, name="oauth", rich_help_panel=ACCESS)
