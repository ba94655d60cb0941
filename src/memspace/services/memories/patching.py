"""A patch of a memory's text (patch_memory: append, prepend, or replace one occurrence), as
the correction it becomes computes it (services/memories/memory_writes.py)."""

from __future__ import annotations

from memspace.domain.errors import InvalidInput
from memspace.domain.models import Memory


def patched(memory: Memory, append: str | None, prepend: str | None, replace_old: str | None,
            replace_new: str | None) -> tuple[str, str]:
    """The edited text and what was done, or InvalidInput saying why it cannot be done."""
    given = [name for name, value in (("append", append), ("prepend", prepend),
                                      ("replace", replace_old)) if value is not None]
    if len(given) != 1:
        raise InvalidInput("pass exactly one of append, prepend or replace {old, new}")
    text = memory.content
    joint = "\n" if "\n" in text else " "
    if append is not None:
        if not append.strip():
            raise InvalidInput("append is empty; pass the text to add at the end")
        return text.rstrip() + joint + append.strip(), "append"
    if prepend is not None:
        if not prepend.strip():
            raise InvalidInput("prepend is empty; pass the text to add at the start")
        return prepend.strip() + joint + text.lstrip(), "prepend"
    old = replace_old or ""
    if not old:
        raise InvalidInput("replace.old is empty; pass the exact text to replace")
    found = text.count(old)
    if found == 0:
        raise InvalidInput(f"replace.old does not occur in memory '{memory.id}' (v{memory.version}): "
                           "nothing was changed. Read it whole with getMemory and pass text that "
                           "appears in it exactly (case and spaces included)")
    if found > 1:
        raise InvalidInput(f"replace.old occurs {found} times in memory '{memory.id}'; pass a "
                           "longer piece of text that occurs once")
    return text.replace(old, replace_new or "", 1), "replace"
