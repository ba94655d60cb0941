"""Which embedding model a server runs, and what it says when that model is not there: `serve`
refuses to start with the command that installs it, `doctor` names the runtime and the file,
and a sentence-transformers setting without its extra says which extra to install."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memspace.cli.main import app
from memspace.embeddings import fetch
from memspace.services.embedding_model import KEY, MINILM
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore

pytestmark = pytest.mark.model


def run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str, **env: str) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)  # no .env of the repository
    for name, value in {"MEMSPACE_DATA_DIR": str(tmp_path / "data"), **env}.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_doctor_names_the_runtime_and_the_model_file(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    code, out = run(monkeypatch, tmp_path, "doctor")
    [line] = [line for line in out.splitlines() if "embedding model" in line]
    folder = fetch.installed(fetch.E5_SMALL_V2_Q)
    assert code == 0 and folder is not None, out
    assert line.startswith("OK   embedding model: e5-small-v2 on onnxruntime 1.")
    assert f"({folder / 'model.onnx'})" in line and "384 dimensions" in line


def test_a_missing_model_stops_serve_and_doctor_says_what_to_run(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    empty = tmp_path / "no-models"
    empty.mkdir()
    code, out = run(monkeypatch, tmp_path, "serve", "--port", "0", MEMSPACE_MODELS_DIR=str(empty))
    assert code == 2
    assert "the embedding model e5-small-v2 is not installed" in out
    assert "run `python -m memspace.embeddings.fetch`" in out and "MCP endpoint" not in out

    code, out = run(monkeypatch, tmp_path, "doctor", MEMSPACE_MODELS_DIR=str(empty))
    assert code == 1
    assert "FIX  embedding model: the embedding model e5-small-v2 is not installed" in out


def test_a_store_embedded_with_minilm_asks_for_minilm_not_e5(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = SqliteStore(Settings(data_dir=data).sqlite_path)
    store.set_store_info(KEY, MINILM)
    store.close()
    only_e5 = tmp_path / "models"
    only_e5.mkdir()
    e5 = fetch.installed(fetch.E5_SMALL_V2_Q)
    assert e5 is not None
    (only_e5 / e5.name).symlink_to(e5)

    code, out = run(monkeypatch, tmp_path, "serve", "--port", "0", MEMSPACE_MODELS_DIR=str(only_e5))
    assert code == 2
    assert "all-minilm-l6-v2 is not installed" in out
    assert "`python -m memspace.embeddings.fetch all-minilm-l6-v2`" in out
    code, out = run(monkeypatch, tmp_path, "doctor", MEMSPACE_MODELS_DIR=str(only_e5))
    assert "FIX  embedding model: the embedding model all-minilm-l6-v2 is not installed" in out


def test_sentence_transformers_without_its_extra_refuses_to_start(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    # The default install has no sentence-transformers (the extra's own test is marked torch).
    assert importlib.util.find_spec("sentence_transformers") is None
    code, out = run(monkeypatch, tmp_path, "serve", "--port", "0",
                    MEMSPACE_EMBEDDING_MODEL="sentence-transformers:/models/all-MiniLM-L6-v2")
    assert code == 2
    assert "needs the sentence-transformers extra" in out
    assert "pip install 'memspace[sentence-transformers]'" in out
    assert SqliteStore(Settings(data_dir=tmp_path / "data").sqlite_path).store_info(KEY) is None
