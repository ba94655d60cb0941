"""Who is calling and what they may touch: API keys, spaces and OAuth.

- `AccessService` authenticates a key and resolves the space a call acts on; its results are
  `Principal` and `SpaceAccess`.
- `AdminService`: the operator's spaces and keys (`parse_grant` reads `slug:access`).
- `SpaceService`: the spaces a caller may use (`SpaceListing`, `Identity`, `Glance`), over
  `SpacePorts`.
- `OAuthService`: clients, consent, codes and token rotation (`redirect_matches`,
  `same_resource`, `check_metadata_bounds` are its rules); `ConsoleSessions`: the console's
  browser sessions, built on it.
- `UploadTickets`: the signed tickets the upload view posts a file with.
- `access_parts` builds the services above from the store's roles; `space_service` builds
  `SpaceService` once the conflict queue exists (start-up calls both).
"""

from memspace.services.access.access import AccessService, Principal, SpaceAccess
from memspace.services.access.admin import OPERATOR, AdminService, parse_grant
from memspace.services.access.console_sessions import (
    BEARER_PREFIX,
    SESSION_TTL,
    ConsoleSession,
    ConsoleSessions,
)
from memspace.services.access.oauth import ACCESS_PREFIX, LINK_IN_TEXT, LOGIN_LINK_TTL, OAuthService
from memspace.services.access.oauth_rules import check_metadata_bounds, redirect_matches, same_resource
from memspace.services.access.parts import AccessParts, access_parts, space_service
from memspace.services.access.spaces import (
    Glance,
    Identity,
    ListedSpace,
    SpaceListing,
    SpacePorts,
    SpaceService,
)
from memspace.services.access.uploads import TICKET_PREFIX, UploadTickets

__all__ = [
    "ACCESS_PREFIX",
    "BEARER_PREFIX",
    "LINK_IN_TEXT",
    "LOGIN_LINK_TTL",
    "OPERATOR",
    "SESSION_TTL",
    "TICKET_PREFIX",
    "AccessParts",
    "AccessService",
    "AdminService",
    "ConsoleSession",
    "ConsoleSessions",
    "Glance",
    "Identity",
    "ListedSpace",
    "OAuthService",
    "Principal",
    "SpaceAccess",
    "SpaceListing",
    "SpacePorts",
    "SpaceService",
    "UploadTickets",
    "access_parts",
    "check_metadata_bounds",
    "parse_grant",
    "redirect_matches",
    "same_resource",
    "space_service",
]
