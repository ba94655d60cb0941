"""The demo (`memspace seed`, `memspace serve --demo`), loaded through the same services the tools use.

- `Seeder` over `SeedPorts`: spaces, keys, memories and documents from a plan (`SeedReport`);
- `ConflictSeeds` over `ConflictSeedPorts`: one conflict of each kind.
- `seeder` builds the `Seeder` from the store's roles (start-up calls it).
"""

from memspace.services.demo.demo_conflicts import ConflictSeedPorts, ConflictSeeds
from memspace.services.demo.parts import seeder
from memspace.services.demo.seeding import Seeder, SeedPorts, SeedReport

__all__ = [
    "ConflictSeedPorts",
    "ConflictSeeds",
    "SeedPorts",
    "SeedReport",
    "Seeder",
    "seeder",
]
