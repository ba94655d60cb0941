"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memspace.cli.main import app


@pytest.fixture
def run(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The `memspace` command on a fresh SQLite data dir of this test, flat mode (no model):
    `run("space", "create", "team")` answers typer's Result (exit_code, output)."""
    env = {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), "MEMSPACE_STORE": "sqlite",
           "MEMSPACE_LLM_MODEL": ""}

    def invoke(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(app, list(args), env=env)

    return invoke
