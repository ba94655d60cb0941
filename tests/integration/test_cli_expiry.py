"""`memspace add --forget-after / --expires-at`, run as a user runs them: the CLI on an embedded
store in a fresh data folder, the real embedding model (docs/lifecycle.md#expiry)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

pytestmark = pytest.mark.model


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def test_a_memory_added_from_the_cli_carries_its_expiry(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    before = datetime.now(UTC)
    added = run("add", "The staging freeze holds during the audit", "-s", "team",
                "--forget-after", "2w", "--json")
    assert added.exit_code == 0, added.output
    [memory] = json.loads(added.stdout)["memories"]
    assert _when(memory["expiresAt"]) - before >= timedelta(weeks=2)
    assert _when(memory["expiresAt"]) - datetime.now(UTC) <= timedelta(weeks=2)

    at = run("add", "The Berlin office is closed for the summer party", "-s", "team",
             "--expires-at", "2099-06-30T17:00:00+02:00")
    assert at.exit_code == 0, at.output
    assert "expires 2099-06-30 15:00 UTC" in at.stdout
    listed = json.loads(run("list", "-s", "team", "--json").stdout)
    assert sorted(m.get("expiresAt", "") for m in listed["memories"]) == sorted(
        [memory["expiresAt"], "2099-06-30T15:00:00Z"])


def test_a_bad_expiry_from_the_cli_exits_1_with_what_to_pass(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    both = run("add", "The release train leaves on Thursday", "-s", "team",
               "--forget-after", "1d", "--expires-at", "2099-01-01T00:00:00Z")
    assert both.exit_code == 1 and both.output.startswith("error: ") and "not both" in both.output
    vague = run("add", "The release train leaves on Thursday", "-s", "team",
                "--forget-after", "a while")
    assert vague.exit_code == 1 and "is not a duration" in vague.output
    assert 'forgetAfter="30d"' in vague.output
    assert json.loads(run("list", "-s", "team", "--json").stdout)["memories"] == []
