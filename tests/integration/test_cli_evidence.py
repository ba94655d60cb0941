"""The evidence verbs as an operator runs them: `space create --evidence`, `space set`,
`repo add|list|sync|remove`, `add --evidence`, `verify` and `mine-git`, on a fresh data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.gitrepo import SERVICE_PY, GitRepo

pytestmark = pytest.mark.model


def test_an_operator_cites_syncs_and_verifies(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "api")
    repo.write("billing/service.py", SERVICE_PY)
    repo.commit("Billing: cap retries at 30 s because the gateway drops longer waits")
    bad = run("space", "create", "team", "--evidence", "sometimes")
    assert bad.exit_code == 1 and "optional or required" in bad.output
    assert run("space", "list").stdout.startswith("No spaces yet")  # nothing half-made
    assert run("space", "create", "team", "--evidence", "required").exit_code == 0
    refused = run("add", "Retries are capped at 30 s", "--space", "team")
    assert refused.exit_code == 1 and "requires evidence" in refused.output
    added = run("repo", "add", "api", str(repo.root), "--space", "team")
    assert added.exit_code == 0, added.output
    assert "billing/service.py" not in added.output and "indexed" in added.output
    listed = json.loads(run("repo", "list", "--json").stdout)
    assert [(r["name"], r["space"]) for r in listed] == [("api", "team")]
    line = repo.line_of("billing/service.py", "delay = min(30")
    saved = run("add", "Retries are capped at 30 s", "--space", "team", "--json",
                "--evidence", f"api/billing/service.py:{line}")
    assert saved.exit_code == 0, saved.output
    memory = json.loads(saved.stdout)["memories"][0]
    assert memory["evidence"] == [f"api/billing/service.py:{line}#backoff"]
    assert memory["verification"] == "verified"
    repo.write("billing/service.py", "# moved down\n" + repo.read("billing/service.py"))
    repo.commit("header")
    synced = json.loads(run("repo", "sync", "api", "--json").stdout)
    assert synced[0]["indexed"] == 1 and synced[0]["reverified"]["verified"] == 1
    checked = run("verify", "--space", "team", "--json")
    assert checked.exit_code == 0
    report = json.loads(checked.stdout)
    assert report["counts"]["verified"] == 1
    assert report["memories"][0]["evidence"] == [f"api/billing/service.py:{line + 1}#backoff"]
    mined = run("mine-git", "api", "--space", "team", "--json")
    assert json.loads(mined.stdout)["created"] == 1
    text = repo.read("billing/service.py")
    start, end = text.index("def backoff"), text.index("class Invoices")
    repo.write("billing/service.py", text[:start] + text[end:])
    repo.commit("no backoff")
    assert run("repo", "sync").exit_code == 0
    broken = run("verify", "--space", "team")
    assert broken.exit_code == 1 and "1 broken" in broken.stdout  # exit 1: something to fix
    assert run("space", "set", "team", "--evidence", "optional").exit_code == 0
    assert run("add", "No citation needed now", "--space", "team").exit_code == 0
    assert run("repo", "remove", "api").exit_code == 0
    assert run("repo", "list").stdout.startswith("No repositories")
