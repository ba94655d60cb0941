"""The filesystem blob store: whole values or nothing, keys that stay inside the root."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.errors import NotFound, Unavailable
from memspace.stores.files import FilesystemBlobStore


def test_a_value_reads_back_and_an_overwrite_replaces_it_whole(tmp_path: Path) -> None:
    blobs = FilesystemBlobStore(tmp_path / "documents")
    blobs.put("space-1/doc-1/original", b"first")
    blobs.put("space-1/doc-1/original", b"second version")
    assert blobs.get("space-1/doc-1/original") == b"second version"
    leftovers = [p.name for p in (tmp_path / "documents" / "space-1" / "doc-1").iterdir()]
    assert leftovers == ["original"]


def test_a_missing_key_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        FilesystemBlobStore(tmp_path).get("space-1/nothing")


@pytest.mark.parametrize("key", ["../escape", "/abs/path", "a/../../b", "", "a//b"])
def test_keys_cannot_leave_the_root(tmp_path: Path, key: str) -> None:
    with pytest.raises(ValueError):
        FilesystemBlobStore(tmp_path).put(key, b"x")


def test_a_write_that_cannot_happen_is_unavailable_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "documents").write_bytes(b"a file where the folder should be")
    with pytest.raises(Unavailable, match="could not store 3 bytes"):
        FilesystemBlobStore(tmp_path / "documents").put("space-1/doc-1/original", b"abc")
