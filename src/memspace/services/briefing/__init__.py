"""What an agent reads when it starts and leaves when it stops.

- `BriefingService` over `BriefingPorts`: get_context packed into a token budget (`Briefing`);
- `HandoffService`: what a session leaves for the next one;
- `GraphService` over `GraphViewPorts`: a space as a graph (`GraphView`).
- `briefing_parts` builds the services above from the store's roles (start-up calls it).
"""

from memspace.services.briefing.briefing import BriefingPorts, BriefingService
from memspace.services.briefing.briefing_pack import Briefing
from memspace.services.briefing.graph import GraphService, GraphView, GraphViewPorts
from memspace.services.briefing.handoffs import HandoffService
from memspace.services.briefing.parts import BriefingParts, briefing_parts

__all__ = [
    "Briefing",
    "BriefingParts",
    "BriefingPorts",
    "BriefingService",
    "GraphService",
    "GraphView",
    "GraphViewPorts",
    "HandoffService",
    "briefing_parts",
]
