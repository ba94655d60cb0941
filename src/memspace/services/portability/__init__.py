"""Export a space to JSON lines and import it into another space or store.

- `PortabilityService` over `PortabilityPorts`: `export` and `import_space` (answering an
  `ImportReport`).
- `portability_service` builds it from the store's roles (start-up calls it).
"""

from memspace.services.portability.parts import portability_service
from memspace.services.portability.portability import ImportReport, PortabilityPorts, PortabilityService

__all__ = [
    "ImportReport",
    "PortabilityPorts",
    "PortabilityService",
    "portability_service",
]
