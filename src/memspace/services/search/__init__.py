"""search_memory: hybrid, keyword and category search, and the space profile shown with it.

- `SearchService` over `SearchPorts`: asked `SearchRequest`, answers `SearchResult` of
  `SearchHit`s;
- `ProfileService` over `ProfilePorts`: the space `Profile`;
- `blend`: how a vector list and a text list become one ranking (the briefing ranks with it).
- `search_parts` builds `SearchService` and `ProfileService` from the store's roles (start-up
  calls it).
"""

from memspace.services.search.context import Profile, ProfilePorts, ProfileService
from memspace.services.search.parts import SearchParts, search_parts
from memspace.services.search.ranking import blend
from memspace.services.search.search import SearchPorts, SearchService
from memspace.services.search.search_types import SearchHit, SearchRequest, SearchResult

__all__ = [
    "Profile",
    "ProfilePorts",
    "ProfileService",
    "SearchHit",
    "SearchParts",
    "SearchPorts",
    "SearchRequest",
    "SearchResult",
    "SearchService",
    "blend",
    "search_parts",
]
