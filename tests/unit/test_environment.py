"""The caller's environment does not change what the tests build (tests/conftest.py)."""

from __future__ import annotations

import os

from memspace.startup.settings import Settings


def test_the_callers_memspace_settings_do_not_reach_the_tests() -> None:
    leaked = [n for n in os.environ if n.startswith("MEMSPACE_") and not n.startswith("MEMSPACE_TEST_")]
    assert leaked == []
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.store, settings.llm_model) == ("sqlite", None)
