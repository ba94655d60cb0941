from memspace.stores.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
