"""`memspace login-link --console`: a one-time link to the browser console, for an existing key
(by name) or a new one, run as a user runs it; the link signs in once, as that key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from memspace.cli.main import app
from memspace.domain.errors import Unauthenticated
from memspace.startup.container import build
from memspace.startup.settings import Settings


def run(tmp_path: Path, *args: str) -> Result:
    env = {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), "MEMSPACE_STORE": "sqlite",
           "MEMSPACE_PUBLIC_URL": "https://memspace.example.com"}
    return CliRunner().invoke(app, list(args), env=env)


def test_a_console_link_signs_in_once_as_an_existing_key(tmp_path: Path) -> None:
    assert run(tmp_path, "space", "create", "team").exit_code == 0
    assert run(tmp_path, "key", "create", "--name", "dana", "--grant", "team:r").exit_code == 0
    printed = run(tmp_path, "login-link", "--console", "--key", "dana", "--minutes", "5", "--json")
    assert printed.exit_code == 0, printed.output
    link = json.loads(printed.stdout)["link"]
    assert re.fullmatch(r"https://memspace\.example\.com/console/login\?code=msl_[\w-]{43}", link)
    service = build(Settings(_env_file=None, data_dir=tmp_path / "data"))  # type: ignore[call-arg]
    try:
        assert service.oauth.sign_in(link).name == "dana"
        with pytest.raises(Unauthenticated, match="already used"):
            service.oauth.sign_in(link)
    finally:
        service.close()
    assert run(tmp_path, "key", "list").stdout.count("dana") == 1  # no key was made


def test_a_console_link_for_a_new_key_and_the_refusals(tmp_path: Path) -> None:
    assert run(tmp_path, "space", "create", "team").exit_code == 0
    made = run(tmp_path, "login-link", "--console", "--name", "erin", "--grant", "team:rw")
    assert made.exit_code == 0 and "/console/login?code=msl_" in made.stdout
    unknown = run(tmp_path, "login-link", "--console", "--key", "nobody")
    assert unknown.exit_code == 1 and "no live key named 'nobody'" in unknown.output
    mixed = run(tmp_path, "login-link", "--key", "erin")
    assert mixed.exit_code == 1 and "--key goes with --console" in mixed.output
