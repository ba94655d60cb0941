"""The guard every write passes, and the operator's security commands (docs/security.md).

- `ContentGuard.screen` under the space's secrets policy (`Screened`, `written`);
- `suspicious_reason`: writes that read like instructions to an agent;
- `screened_upload`, `screened_text`: the guard on an uploaded document and its text;
- `SecurityService`: policies, the audit log and scans, which read the fields besides a
  memory's text through `OtherRecords`.
- `security_parts` builds the guard and `SecurityService` from the store's roles (start-up calls it).
"""

from memspace.services.security.guard import ContentGuard, Screened, written
from memspace.services.security.instructions import suspicious_reason
from memspace.services.security.parts import SecurityParts, security_parts
from memspace.services.security.scan_fields import OtherRecords
from memspace.services.security.security import SecurityService
from memspace.services.security.upload_screen import screened_text, screened_upload

__all__ = [
    "ContentGuard",
    "OtherRecords",
    "Screened",
    "SecurityParts",
    "SecurityService",
    "screened_text",
    "screened_upload",
    "security_parts",
    "suspicious_reason",
    "written",
]
