"""search_memory: hybrid, keyword and category search, and the space profile shown with it.

- `SearchService` over `SearchPorts`: asked `SearchRequest`, answers `SearchResult` of
  `SearchHit`s;
- `ProfileService` over `ProfilePorts`: the space `Profile`;
- `blend`: how a vector list and a text list become one ranking (the briefing ranks with it).
"""

from memspace.services.search.context import Profile, ProfilePorts, ProfileService
from memspace.services.search.ranking import blend
from memspace.services.search.search import SearchPorts, SearchService
from memspace.services.search.search_types import SearchHit, SearchRequest, SearchResult

__all__ = [
    "Profile", "ProfilePorts", "ProfileService", "SearchHit", "SearchPorts", "SearchRequest",
    "SearchResult", "SearchService", "blend",
]
