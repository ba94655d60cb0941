"""Turning what comes from outside into memories.

- `IngestionService` over `IngestionPorts`: uploads (`Uploaded`) stored first, then read and
  written chunk by chunk; `UNFINISHED` are the states a restart takes up again, `too_large`
  the upload limit's refusal;
- `IngestionWorker`: the server's background thread for documents and notes;
- `GitMining`: commit messages that say why become notes.
- `ingestion_parts` builds the services above from the store's roles (start-up calls it).
"""

from memspace.services.ingestion.ingest_worker import IngestionWorker
from memspace.services.ingestion.ingestion import UNFINISHED, IngestionPorts, IngestionService, Uploaded
from memspace.services.ingestion.mining import GitMining
from memspace.services.ingestion.parts import IngestionParts, ingestion_parts
from memspace.services.ingestion.upload_checks import too_large

__all__ = [
    "UNFINISHED",
    "GitMining",
    "IngestionParts",
    "IngestionPorts",
    "IngestionService",
    "IngestionWorker",
    "Uploaded",
    "ingestion_parts",
    "too_large",
]
