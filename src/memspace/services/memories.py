"""Saving, correcting, forgetting and reading memories (docs/contract.md): the service the surfaces
call, composed of the write side (memory_writes.py, its add pipeline in adding.py) and the read
side (memory_reads.py) over what they share (memory_rules.py)."""

from __future__ import annotations

from memspace.services.adding import AddMode, AddRequest, AddResult, AddStatus
from memspace.services.memory_reads import MemoryReads
from memspace.services.memory_rules import Limits
from memspace.services.memory_writes import AddManyResult, MemoryWrites

__all__ = ["AddManyResult", "AddMode", "AddRequest", "AddResult", "AddStatus", "Limits",
           "MemoryService"]


class MemoryService(MemoryWrites, MemoryReads):
    """Every memory use case; its constructor is MemoryCore's."""
