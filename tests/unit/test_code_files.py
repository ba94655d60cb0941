"""Reading a file of a checkout as evidence or for the code index (code/files.py): only files
inside the checkout, by their real path, so no symlink, of a file or of a directory on the way,
reads outside it; and not binary, not over the size limit, UTF-8."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from memspace.code.files import FileText, Unreadable, read_text, vendored

SECRET = "password=hunter2\n"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    return root


def _refused(root: Path, path: str) -> str:
    with pytest.raises(Unreadable) as refused:
        read_text(str(root), path)
    return str(refused.value)


def test_a_file_of_the_checkout_is_read_with_its_hash(checkout: Path) -> None:
    data = b"print('hello')\n"
    assert read_text(str(checkout), "src/app.py") == FileText(data.decode(),
                                                               hashlib.sha256(data).hexdigest())


def test_a_directory_symlink_out_of_the_checkout_is_refused(checkout: Path) -> None:
    os.symlink(checkout.parent / "elsewhere", checkout / "shared")
    reason = _refused(checkout, "shared/secret.txt")
    assert "pointing out of the checkout" in reason and "directory symlink" in reason
    assert "hunter2" not in reason


def test_a_directory_symlink_to_a_sibling_sharing_the_checkouts_name_is_refused(
        checkout: Path) -> None:
    """`repo-secrets` starts with `repo`: containment is by path parts, not by prefix."""
    sibling = checkout.parent / f"{checkout.name}-secrets"
    sibling.mkdir()
    (sibling / "key.txt").write_text(SECRET)
    os.symlink(sibling, checkout / "keys")
    assert "pointing out of the checkout" in _refused(checkout, "keys/key.txt")


def test_a_file_symlink_out_of_the_checkout_is_refused(checkout: Path) -> None:
    os.symlink(checkout.parent / "elsewhere" / "secret.txt", checkout / "leak.txt")
    assert "a symlink pointing out of the checkout" in _refused(checkout, "leak.txt")


def test_a_file_symlink_inside_the_checkout_is_refused_for_the_file_it_names(
        checkout: Path) -> None:
    os.symlink(checkout / "src" / "app.py", checkout / "main.py")
    reason = _refused(checkout, "main.py")
    assert "symlink" in reason and "cite the file it points to" in reason


def test_a_directory_symlink_that_stays_inside_the_checkout_reads_the_file(checkout: Path) -> None:
    os.symlink(checkout / "src", checkout / "lib")
    assert read_text(str(checkout), "lib/app.py").text == "print('hello')\n"


def test_a_checkout_reached_through_a_symlink_reads_its_own_files(checkout: Path) -> None:
    link = checkout.parent / "repo-link"
    os.symlink(checkout, link)
    assert read_text(str(link), "src/app.py").text == "print('hello')\n"


@pytest.mark.parametrize("path", ["../elsewhere/secret.txt", "src/../../elsewhere/secret.txt",
                                  "/etc/passwd", "src\\..\\..\\elsewhere\\secret.txt"])
def test_a_path_written_to_leave_the_checkout_is_refused(checkout: Path, path: str) -> None:
    assert "outside the repository" in _refused(checkout, path)


def test_the_checkout_itself_or_a_folder_is_no_file(checkout: Path) -> None:
    assert "not a regular file" in _refused(checkout, "src")
    assert "pointing out of the checkout" in _refused(checkout, ".")


def test_a_missing_file_is_refused(checkout: Path) -> None:
    assert "not in the checkout" in _refused(checkout, "src/gone.py")


def test_a_binary_a_non_utf8_and_an_oversized_file_are_refused(checkout: Path) -> None:
    (checkout / "data.bin").write_bytes(b"header\0\0\0body")  # decodes as UTF-8: only the NULs say binary
    (checkout / "latin1.txt").write_bytes("café".encode("latin-1"))
    (checkout / "big.txt").write_text("x" * 101)
    (checkout / "edge.txt").write_text("x" * 100)
    assert "binary" in _refused(checkout, "data.bin")
    assert "not UTF-8" in _refused(checkout, "latin1.txt")
    with pytest.raises(Unreadable, match="101 bytes, over the 100-byte limit"):
        read_text(str(checkout), "big.txt", max_bytes=100)
    assert read_text(str(checkout), "edge.txt", max_bytes=100).text == "x" * 100


@pytest.mark.parametrize("path, skipped", [
    ("node_modules/react/index.js", True), ("web/dist/app.js", True), ("app.min.js", True),
    ("api/schema_pb2.py", True), ("poetry.lock", True), ("src/build.py", False),
    ("docs/vendor.md", False), ("src/app.py", False)])
def test_vendored_and_generated_files_are_never_indexed(path: str, skipped: bool) -> None:
    assert vendored(path) is skipped
