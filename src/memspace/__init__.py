"""memspace: a shared, graph-shaped memory for teams of AI agents and the people who work with them."""

__version__ = "0.1.0"
