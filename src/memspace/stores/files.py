"""BlobStore on the filesystem: uploaded originals and their extracted text, under one folder.

Both graph stores use it (compose.yaml gives memspace a /data volume for it beside Neo4j's).
A value is written to a temporary file in the same folder, flushed to disk, then renamed over
the key: a rename within one filesystem is atomic, so a reader (or a crash) sees the whole old
value or the whole new one, never a part.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

from memspace.domain.errors import NotFound, Unavailable

# Keys are ids and fixed names joined by "/": nothing that could climb out of the root.
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


class FilesystemBlobStore:
    """Each key is a file under `root`; folders are created on first write."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        if not _KEY.match(key) or ".." in key:
            raise ValueError(f"invalid blob key {key!r}")
        return self.root / key

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temp, path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            _fsync_dir(path.parent)
        except OSError as exc:
            raise Unavailable(
                f"could not store {len(data):,} bytes under {path.parent} ({exc.strerror or exc}); "
                "check free disk space and permissions of MEMSPACE_DATA_DIR, then upload again"
            ) from exc

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise NotFound(f"nothing is stored at {path}") from exc
        except OSError as exc:
            raise Unavailable(f"could not read {path} ({exc.strerror or exc})") from exc


    def written_before(self, age_s: float) -> list[str]:
        cutoff = time.time() - age_s
        keys = []
        for path in self.root.rglob("*"):
            try:
                if path.is_file() and path.stat().st_mtime < cutoff:
                    keys.append(path.relative_to(self.root).as_posix())
            except OSError:  # gone meanwhile
                continue
        return sorted(keys)

    def delete(self, key: str) -> None:
        # Not _path: the leftovers of a cut-short write are hidden temporary files.
        path = (self.root / key).resolve()
        root = self.root.resolve()
        if root not in path.parents:
            raise ValueError(f"invalid blob key {key!r}")
        path.unlink(missing_ok=True)
        for folder in path.parents:
            if folder == root:
                break
            try:
                folder.rmdir()
            except OSError:  # not empty, or already gone
                break


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (the directory entry), where the OS allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the rename is still atomic
    finally:
        os.close(fd)
