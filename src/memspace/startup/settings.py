"""Settings: the one place that reads the environment (prefix MEMSPACE_, or a `.env` file)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_DATA_DIR = Path("data")


def user_data_dir() -> Path:
    """The user's data folder for memspace: $XDG_DATA_HOME/memspace, else
    ~/.local/share/memspace."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".local" / "share") / "memspace"


def default_data_dir() -> Path:
    """Where the store lives when MEMSPACE_DATA_DIR is unset: ./data when the current folder
    already holds a store there (clones that ran before this rule), else the user's data folder.
    A client that starts `memspace stdio` in any folder then reaches the store `make run` filled;
    a plain ./data folder of some other project is never taken for a store."""
    if (LOCAL_DATA_DIR / "memspace.db").is_file():
        return LOCAL_DATA_DIR
    return user_data_dir()


class Settings(BaseSettings):
    """Every knob of memspace; docs/operations.md lists each with its default."""

    model_config = SettingsConfigDict(
        env_prefix="MEMSPACE_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    store: Literal["sqlite", "neo4j"] = "sqlite"
    # Unset: default_data_dir() (docs/operations.md#where-the-data-lives).
    data_dir: Path = Field(default_factory=default_data_dir)

    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str | None = None
    # An outage must surface in seconds, not after the driver's default 30-70 s of retries:
    # these bound one connection attempt and the whole retry window.
    neo4j_connect_timeout_s: float = Field(default=3.0, gt=0)
    neo4j_retry_window_s: float = Field(default=5.0, ge=0)

    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(default=30.0, gt=0)
    # 1: one model call per add (facts and relations together). 2: facts first, then one call
    # per fact for its relations (llm/two_pass.py; docs/extraction.md has the cost).
    extraction_passes: int = Field(default=1, ge=1, le=2)

    embedding_model: str = "local"
    # Where e5-small-v2 is installed (embeddings/fetch.py reads the same variable); None:
    # ~/.cache/memspace/models.
    models_dir: Path | None = None

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    # Extra Host header values the MCP endpoint accepts (it answers 421 to others), e.g. a
    # reverse proxy's public name. The bind host, localhost and 127.0.0.1 are always allowed.
    allowed_hosts: list[str] = Field(default_factory=list)
    # Where clients reach this server (scheme://host[:port], no path), e.g. behind a proxy.
    # The upload widget sends files here, so it is the one origin its CSP may connect to.
    # Unset: http://<host>:<port>, with 127.0.0.1 standing in for a wildcard bind address.
    public_url: str | None = None
    # Signs the short-lived upload tickets the upload widget presents instead of an API key.
    # Unset: a random secret per process, so set it when several replicas share one URL.
    upload_secret: SecretStr | None = None
    # The key `memspace hook … --url` presents to a remote memspace server (read here, never
    # from the command line, where other users of the machine could see it in `ps`).
    api_key: SecretStr | None = None

    # MCP toolsets listed beyond the default list, comma-separated (`all`: every one); a key's
    # own choice (`key create --toolsets`) and a client's `/mcp?toolsets=` come before it.
    # Unlisted tools stay callable by name (mcp/toolsets.py).
    toolsets: str = ""

    # Prometheus metrics at /metrics (src/memspace/startup/metrics.py lists them). Off by default:
    # the endpoint is unauthenticated, like /readyz, and shows only counts and timings.
    metrics: bool = False

    # Memory for spaces held in process (vectors, full-text postings), per replica; the least
    # recently searched space leaves first, and a space searched while not held is answered
    # from the store's own indexes while it loads in the background (docs/scaling.md).
    # 0 holds none. ~2.5 KB a memory of 384 dimensions: 512 MB holds ~210,000.
    cache_mb: int = Field(default=512, ge=0)

    # Limits. One memory is one fact; long material belongs in a document upload.
    max_memory_chars: int = Field(default=8_000, ge=100)
    max_query_chars: int = Field(default=2_000, ge=10)
    # Requests a minute per API key or OAuth client (api/rate_limit.py); 0 turns limits off.
    rate_limit: int = Field(default=0, ge=0)
    # Failed sign-ins a minute per client address and per key prefix before later attempts are
    # refused with 429 (api/rate_limit.py); also new OAuth client registrations per address.
    auth_failure_limit: int = Field(default=30, ge=1)
    max_page_size: int = Field(default=100, ge=1)

    # Documents (uploads). The byte limit is enforced while the upload is read; the others
    # when its text is extracted, and a file over one of them ends `failed`, saying which.
    max_upload_bytes: int = Field(default=25 * 2**20, ge=1)
    max_pdf_pages: int = Field(default=500, ge=1)
    max_csv_rows: int = Field(default=50_000, ge=1)
    max_document_chars: int = Field(default=2_000_000, ge=1)
    # Reading one file (PDF text extraction, CSV parsing) runs in a child process of the
    # ingestion worker, never in a request, and is stopped past these. pypdf reads a text page
    # in ~10-50 ms, so a 500-page PDF fits 60 s several times over; a hostile 9.8 KB PDF ran 59 s.
    # The memory bound stops decompression bombs.
    max_parse_seconds: float = Field(default=60.0, gt=0)
    max_parse_memory_mb: int = Field(default=1024, ge=64)
    # Characters per chunk (one add each). all-MiniLM-L6-v2 reads 256 word pieces and ignores
    # the rest. Its tokenizer gives 3.9-4.9 characters per piece on prose, Markdown and PDF text
    # (the seed documents, bench_ingest.py's PDF), so 990-1,250 characters fit and an 800-char
    # chunk lies whole in its vector; numeric CSV rows give ~2.8 (about 700 fit), so CSV chunks
    # get 3/4 of this (ingest/reader.py). Redo: bench/bench_ingest.py prints the share of chunks
    # longer than the window. A chunk is one add: it never exceeds max_memory_chars.
    chunk_chars: int = Field(default=800, ge=100)
    # Conversation features (docs/conversations.md): "default" (neighbours, speaker, time),
    # "all", "none", or a comma-separated list of context, neighbours, speaker, time. Each was
    # measured on two conversation benchmarks (bench/recall_conversations.py).
    conversation_features: str = "default"

    # The consolidation pass (docs/consolidation.md): `memspace serve` runs one over each space
    # in turn this often (a duration: 90m, 12h, 1d; 0 turns the schedule off; the first round
    # one interval after start), and a pass makes at most this many model calls (the rest of
    # its window is the next pass's). A pass's model call never starts while a request's runs.
    consolidate_every: str = "15m"
    consolidate_max_calls: int = Field(default=50, ge=0)

    @field_validator("consolidate_every")
    @classmethod
    def _a_duration(cls, value: str) -> str:
        from memspace.domain.durations import parse_duration

        if value.strip() != "0":
            try:
                parse_duration(value)
            except ValueError as exc:
                raise ValueError(f"MEMSPACE_CONSOLIDATE_EVERY: {exc} (or 0: off)") from exc
        return value.strip()

    @property
    def consolidate_every_s(self) -> float:
        """Seconds between rounds of passes; 0: no schedule."""
        from memspace.domain.durations import parse_duration

        if self.consolidate_every == "0":
            return 0.0
        return parse_duration(self.consolidate_every).total_seconds()

    @field_validator("conversation_features")
    @classmethod
    def _known_features(cls, value: str) -> str:
        from memspace.services.memories import TurnFeatures

        TurnFeatures.parse(value)  # raises ValueError naming the unknown ones
        return value

    @field_validator("toolsets")
    @classmethod
    def _known_toolsets(cls, value: str) -> str:
        from memspace.domain.errors import InvalidInput
        from memspace.domain.toolsets import parse_toolsets

        try:
            parse_toolsets(value)
        except InvalidInput as exc:
            raise ValueError(f"MEMSPACE_TOOLSETS: {exc.message}") from exc
        return value

    @field_validator("llm_model", "llm_api_base", "neo4j_uri", "neo4j_database", "public_url",
                     mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url_is_an_origin(cls, value: str | None) -> str | None:
        if value is None:
            return None
        origin = value.strip().rstrip("/")
        if not re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]+", origin):
            raise ValueError(
                f"MEMSPACE_PUBLIC_URL must be an origin like https://memspace.example.com "
                f"(scheme, host, optional port, no path), not {value!r}"
            )
        return origin

    @model_validator(mode="after")
    def _neo4j_needs_uri(self) -> Settings:
        if self.store == "neo4j" and not self.neo4j_uri:
            raise ValueError(
                "MEMSPACE_STORE=neo4j needs MEMSPACE_NEO4J_URI (e.g. bolt://127.0.0.1:7687); "
                "start one with `make neo4j` or `docker compose up neo4j`"
            )
        return self

    @property
    def public_origin(self) -> str:
        """scheme://host:port where clients reach this server."""
        if self.public_url:
            return self.public_url
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"

    @property
    def data_dir_reason(self) -> str:
        """Which rule chose data_dir, in a user's words (`memspace doctor` prints it)."""
        if "data_dir" in self.model_fields_set:
            return "MEMSPACE_DATA_DIR"
        if self.data_dir == LOCAL_DATA_DIR:
            return ("./data of the current folder holds a store; other folders use "
                    f"{user_data_dir()} unless MEMSPACE_DATA_DIR is set")
        return "the user's data folder: MEMSPACE_DATA_DIR is unset and ./data holds no store"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "memspace.db"

    @property
    def documents_dir(self) -> Path:
        """Uploaded originals and their extracted text, whichever store holds the graph."""
        return self.data_dir / "documents"
