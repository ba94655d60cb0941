"""The origin the upload view may connect to comes from Settings, and only an origin is accepted."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memspace.startup.settings import Settings


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_the_public_origin_defaults_to_the_bind_address() -> None:
    assert settings().public_origin == "http://127.0.0.1:8000"
    assert settings(host="0.0.0.0", port=9000).public_origin == "http://127.0.0.1:9000"
    assert settings(host="::1").public_origin == "http://[::1]:8000"


def test_a_public_url_is_used_as_given_without_a_trailing_slash() -> None:
    assert settings(public_url="https://memory.example.com/").public_origin == "https://memory.example.com"
    assert settings(public_url=" ").public_origin == "http://127.0.0.1:8000"


@pytest.mark.parametrize("bad", ["memory.example.com", "https://memory.example.com/api", "ftp://x"])
def test_a_public_url_with_a_path_or_another_scheme_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="MEMSPACE_PUBLIC_URL"):
        settings(public_url=bad)
