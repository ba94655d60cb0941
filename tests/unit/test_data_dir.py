"""Where the store lives when MEMSPACE_DATA_DIR is unset: one folder whatever the current folder
is, so a client starting `memspace stdio` anywhere reaches the store `make run` filled."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.startup.settings import Settings


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MEMSPACE_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    folder = tmp_path / "some-project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_without_a_setting_every_folder_reaches_the_users_data_folder(
        elsewhere: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = Settings(_env_file=None)  # type: ignore[call-arg]
    other = tmp_path / "another"
    other.mkdir()
    monkeypatch.chdir(other)
    there = Settings(_env_file=None)  # type: ignore[call-arg]
    assert here.data_dir == there.data_dir == tmp_path / "xdg" / "memspace"
    assert "user's data folder" in here.data_dir_reason


def test_a_data_folder_of_another_project_is_not_taken_for_a_store(elsewhere: Path,
                                                                    tmp_path: Path) -> None:
    (elsewhere / "data").mkdir()
    assert Settings(_env_file=None).data_dir == tmp_path / "xdg" / "memspace"  # type: ignore[call-arg]


def test_a_clone_whose_data_folder_holds_a_store_keeps_it(elsewhere: Path) -> None:
    (elsewhere / "data").mkdir()
    (elsewhere / "data" / "memspace.db").write_bytes(b"")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == Path("data")
    assert "./data of the current folder" in settings.data_dir_reason


def test_memspace_data_dir_comes_first(elsewhere: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (elsewhere / "data").mkdir()
    (elsewhere / "data" / "memspace.db").write_bytes(b"")
    monkeypatch.setenv("MEMSPACE_DATA_DIR", str(tmp_path / "chosen"))
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == tmp_path / "chosen"
    assert settings.data_dir_reason == "MEMSPACE_DATA_DIR"


def test_without_xdg_data_home_the_folder_is_under_the_home(elsewhere: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Settings(_env_file=None).data_dir == (  # type: ignore[call-arg]
        tmp_path / "home" / ".local" / "share" / "memspace")
