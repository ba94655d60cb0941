"""`memspace login-link` and `memspace oauth clients|tokens|revoke`, run as a user runs them, on an
embedded store in a fresh data folder; the approval in between is made through the service."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from memspace.cli.main import app
from memspace.domain.models import Access
from memspace.domain.oauth import TokenKind
from memspace.startup.container import build
from memspace.startup.settings import Settings

Run = Callable[..., Result]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    env = {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), "MEMSPACE_STORE": "sqlite",
           "MEMSPACE_PUBLIC_URL": "https://memspace.example.com"}

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(app, list(args), env=env)

    return invoke


def test_a_login_link_is_printed_once_for_a_new_key_and_its_connections_can_be_revoked(
        run: Run, tmp_path: Path) -> None:
    assert run("space", "create", "team").exit_code == 0
    assert run("oauth", "tokens").stdout.strip() == "No OAuth tokens have been issued yet."
    printed = run("login-link", "--name", "bob", "--grant", "team:rw", "--json")
    assert printed.exit_code == 0, printed.output
    link = json.loads(printed.stdout)
    assert re.fullmatch(r"https://memspace\.example\.com/authorize/login\?code=msl_[\w-]{43}", link["link"])
    assert "bob" in run("key", "list").stdout

    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    service = build(settings)
    try:
        who = service.oauth.sign_in(link["link"])
        client = service.oauth.register("Claude", ["https://claude.ai/api/mcp/auth_callback"], {})
        code = service.oauth.approve(client.client_id, who.key_id or "", {"team": Access.READ},
                                     "https://claude.ai/api/mcp/auth_callback", "c", "r")
        service.oauth.redeem(code, TokenKind.CODE, client.client_id)
    finally:
        service.close()

    clients = run("oauth", "clients").stdout
    assert client.client_id in clients and "Claude" in clients
    listed = run("oauth", "tokens", "--json")
    (family,) = json.loads(listed.stdout)
    assert family["grants"] == {"team": "read"} and family["keyName"] == "bob"
    assert family["state"] == "live"
    assert run("oauth", "revoke", family["id"]).stdout.strip() == "Revoked 1 connection."
    assert json.loads(run("oauth", "tokens", "--json").stdout)[0]["state"] == "revoked"
    missing = run("oauth", "revoke", "nope")
    assert missing.exit_code == 1 and "memspace oauth clients" in missing.output


def test_a_login_link_for_a_missing_space_says_so(run: Run) -> None:
    refused = run("login-link", "--name", "bob", "--grant", "nowhere:rw")
    assert refused.exit_code == 1 and "no space 'nowhere'" in refused.output


@pytest.mark.parametrize("minutes", ["0", "-5"])
def test_a_login_link_that_would_be_born_expired_is_refused_before_any_key_exists(
        run: Run, minutes: str) -> None:
    assert run("space", "create", "team").exit_code == 0
    refused = run("login-link", "--name", "dave", "--grant", "team:rw", "--minutes", minutes)
    assert refused.exit_code == 1 and "at least one minute" in refused.output
    assert "dave" not in run("key", "list").stdout


def test_the_printed_link_names_where_serve_runs(tmp_path: Path) -> None:
    from memspace.cli.common import record_served_origin

    data_dir = tmp_path / "data"
    env = {"MEMSPACE_DATA_DIR": str(data_dir), "MEMSPACE_STORE": "sqlite"}
    runner = CliRunner()
    assert runner.invoke(app, ["space", "create", "team"], env=env).exit_code == 0
    # What `memspace serve --port 9123` records on start (the CLI process has no MEMSPACE_PORT).
    record_served_origin(Settings(_env_file=None, data_dir=data_dir, port=9123))  # type: ignore[call-arg]
    printed = runner.invoke(app, ["login-link", "--name", "erin", "--grant", "team:r", "--json"], env=env)
    assert json.loads(printed.stdout)["link"].startswith("http://127.0.0.1:9123/authorize/login?code=")
    chosen = runner.invoke(app, ["login-link", "--name", "fay", "--grant", "team:r", "--json",
                                 "--url", "https://mem.example.org/"], env=env)
    assert json.loads(chosen.stdout)["link"].startswith("https://mem.example.org/authorize/login?")
