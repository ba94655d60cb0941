"""`memspace doctor`: each part of the setup checked the way the server would use it, one line
each, OK or what to do."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from memspace.domain.errors import MemspaceError, Unavailable
from memspace.domain.indexing import index_progress
from memspace.services.embedding_model import model_for
from memspace.startup.adapters import build_embedder, build_extractor, build_store, describe
from memspace.startup.settings import Settings

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'OK  ' if self.ok else 'FIX '} {self.name}: {self.detail}"


def _guarded(name: str, probe: Callable[[], str]) -> Check:
    try:
        return Check(name, True, probe())
    except MemspaceError as exc:
        return Check(name, False, exc.message)
    except Exception as exc:  # a doctor reports what broke instead of crashing on it
        return Check(name, False, f"{type(exc).__name__}: {exc}")


def check_store(settings: Settings) -> Check:
    def probe() -> str:
        store = build_store(settings)
        try:
            store.ping()
            progress = index_progress(store)  # a fresh load's indexes may still be building
        finally:
            store.close()
        where = settings.neo4j_uri if settings.store == "neo4j" else str(settings.sqlite_path)
        said = f"{settings.store} answers at {where}"
        return said if progress is None else f"{said}; {progress.describe()}"

    return _guarded("store", probe)  # the store's own error says how to start it


def check_data_dir(settings: Settings) -> Check:
    def probe() -> str:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=settings.data_dir):
            pass
        return f"{settings.data_dir.resolve()} is writable ({settings.data_dir_reason})"

    check = _guarded("data dir", probe)
    if check.ok:
        return check
    return Check("data dir", False, f"{check.detail} — set MEMSPACE_DATA_DIR to a folder this "
                 "user can write")


def check_embedder(settings: Settings) -> Check:
    """The store's model (as the server would choose it), its runtime and file, and one embed."""
    def probe() -> str:
        from memspace.embeddings.local import LocalEmbedder

        store = build_store(settings)
        try:
            embedder = build_embedder(settings.model_copy(update={
                "embedding_model": model_for(settings.embedding_model, store)}))
        finally:
            store.close()
        if isinstance(embedder, LocalEmbedder) and (problem := embedder.missing()) is not None:
            raise Unavailable(problem)
        [vector] = embedder.embed(["memspace doctor"])
        return f"{describe(embedder)} loads and embeds ({len(vector)} dimensions)"

    return _guarded("embedding model", probe)


def check_model(settings: Settings, call: bool) -> Check:
    """Configured or not; with `call`, one tiny extraction (a few hundred tokens)."""
    if not settings.llm_model:
        return Check("model", True, "none configured: every add is stored flat (set "
                     "MEMSPACE_LLM_MODEL for fact extraction)")
    if not call:
        return Check("model", True, f"{settings.llm_model} configured (not called; "
                     "`memspace doctor --model` makes one small call)")

    def probe() -> str:
        extractor = build_extractor(settings)
        assert extractor is not None
        extraction = extractor.extract("The doctor checks that the model answers.", [])
        return (f"{settings.llm_model} answered ({extraction.prompt_tokens} + "
                f"{extraction.completion_tokens} tokens)")

    check = _guarded("model", probe)
    if check.ok:
        return check
    return Check("model", False, f"{check.detail} — check MEMSPACE_LLM_MODEL, "
                 "MEMSPACE_LLM_API_BASE and MEMSPACE_LLM_API_KEY")


def check_public_url(settings: Settings) -> Check:
    """The public origin's host must be one /mcp accepts (it answers 421 to other Host names)."""
    host = urlsplit(settings.public_origin).hostname or ""
    accepted = {*LOCAL_NAMES, settings.host, *settings.allowed_hosts} - {"0.0.0.0"}
    if host in accepted:
        return Check("public URL", True, f"{settings.public_origin} (host accepted by /mcp)")
    return Check("public URL", False, f"clients reach {settings.public_origin} but /mcp accepts "
                 f"only {sorted(accepted)}: add \"{host}\" to MEMSPACE_ALLOWED_HOSTS "
                 f"(e.g. MEMSPACE_ALLOWED_HOSTS='[\"{host}\"]')")


def check_oauth(settings: Settings) -> Check:
    """OAuth needs an https issuer (or loopback http); keys work either way."""
    from memspace.surfaces.oauth import oauth_off_reason

    off = oauth_off_reason(settings.public_origin)
    if off is not None:
        return Check("OAuth", False, off)
    return Check("OAuth", True, f"on: clients without a key sign in through "
                 f"{settings.public_origin}/authorize")


def run_checks(settings: Settings, call_model: bool = False) -> list[Check]:
    return [check_data_dir(settings), check_store(settings), check_embedder(settings),
            check_model(settings, call_model), check_public_url(settings), check_oauth(settings)]
