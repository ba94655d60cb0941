"""`memspace doctor` as a newcomer runs it: one line per part, OK or what to do, exit 1 when
something needs fixing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memspace.cli.main import app
from tests.support.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.model


def doctor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str, **env: str) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)  # no .env of the repository
    for name, value in {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), **env}.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["doctor", *args])
    return result.exit_code, result.output


def test_a_working_setup_is_all_ok(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, out = doctor(monkeypatch, tmp_path)
    assert code == 0, out
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "OK   data dir", "OK   store", "OK   embedding model", "OK   model", "OK   public URL",
        "OK   OAuth"]
    assert "384 dimensions" in out


def test_each_problem_says_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    code, out = doctor(monkeypatch, tmp_path, MEMSPACE_DATA_DIR=str(blocked / "data"),
                       MEMSPACE_PUBLIC_URL="https://memory.example.com")
    assert code == 1
    assert "FIX  data dir" in out and "set MEMSPACE_DATA_DIR" in out
    assert "FIX  public URL" in out and "MEMSPACE_ALLOWED_HOSTS='[\"memory.example.com\"]'" in out


def test_oauth_off_on_a_plain_http_public_url_is_reported(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    code, out = doctor(monkeypatch, tmp_path, MEMSPACE_PUBLIC_URL="http://memory.example.com",
                       MEMSPACE_ALLOWED_HOSTS='["memory.example.com"]')
    assert code == 1
    assert "OK   public URL" in out
    assert "FIX  OAuth: OAuth is off: the public URL http://memory.example.com cannot be" in out
    assert "Set MEMSPACE_PUBLIC_URL to the https:// origin" in out
    code, out = doctor(monkeypatch, tmp_path, MEMSPACE_PUBLIC_URL="https://memory.example.com",
                       MEMSPACE_ALLOWED_HOSTS='["memory.example.com"]')
    assert "OK   OAuth: on: clients without a key sign in through https://memory.example.com/authorize" in out


def test_the_model_is_called_only_on_request(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with ScriptedLLM() as llm:
        env = {"MEMSPACE_LLM_MODEL": "openai/scripted", "MEMSPACE_LLM_API_BASE": llm.url,
               "MEMSPACE_LLM_API_KEY": "test", "MEMSPACE_LLM_TIMEOUT_S": "2"}
        code, out = doctor(monkeypatch, tmp_path, **env)
        assert code == 0 and "not called" in out and llm.requests == []
        llm.script(Reply({"facts": [{"text": "The model answers.", "category": "fact", "relations": []}]},
                         prompt_tokens=50, completion_tokens=5))
        code, out = doctor(monkeypatch, tmp_path, "--model", **env)
        assert code == 0, out
        assert "openai/scripted answered (50 + 5 tokens)" in out
