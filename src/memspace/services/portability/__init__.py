"""Export a space to JSON lines and import it into another space or store.

- `PortabilityService` over `PortabilityPorts`: `export` and `import_space` (answering an
  `ImportReport`).
"""

from memspace.services.portability.portability import ImportReport, PortabilityPorts, PortabilityService

__all__ = [
    "ImportReport", "PortabilityPorts", "PortabilityService",
]
