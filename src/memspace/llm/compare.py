"""A fact compared with numbered memories in one call (prompts/relate_fact.v1.md, the second
pass of two-pass extraction): the check a consolidation pass makes before it retires a memory.
The relate prompt asks what one word cannot carry for a small model: whether the two are about
the same subject, whether the memory still holds, and the value each side states, which code
then holds against the texts (two_pass.swaps_value)."""

from __future__ import annotations

from collections.abc import Sequence

from memspace.domain.extraction import Candidate, Comparison
from memspace.domain.models import Usage
from memspace.llm.extractor import LitellmExtractor, Spent
from memspace.llm.prompts import PromptTemplate, load_prompt
from memspace.llm.schema import relate_format
from memspace.llm.two_pass import (
    RELATE_BASE_TOKENS,
    RELATE_PROMPT,
    RELATE_TOKENS_PER_MEMORY,
    _relate_retry,
    parse_relate,
    swaps_value,
)


class LitellmComparer(LitellmExtractor):
    """The extractor's model and transport, asked the relate prompt."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout_s: float = 30.0, max_retries: int = 1,
                 relate_prompt: PromptTemplate | None = None) -> None:
        super().__init__(model, api_base, api_key, timeout_s, max_retries)
        self._relate_prompt = relate_prompt or load_prompt(RELATE_PROMPT)

    def compare(self, fact: str, memories: Sequence[Candidate]) -> tuple[list[Comparison], Usage]:
        if not memories:
            return [], Usage()
        # The fact is its own note: nothing else was said with it.
        system, user = self._relate_prompt.render(
            content=fact, fact=fact,
            memories="\n".join(f"[{c.number}] {' '.join(c.content.split())}" for c in memories))
        spent = Spent()
        answer = self._ask([{"role": "system", "content": system},
                            {"role": "user", "content": user}],
                           relate_format([c.number for c in memories]),
                           RELATE_BASE_TOKENS + RELATE_TOKENS_PER_MEMORY * len(memories),
                           parse_relate, _relate_retry, spent)
        by_number = {c.number: c for c in memories}
        found: dict[int, Comparison] = {}
        for verdict in answer.memories:
            memory = by_number.get(verdict.memory)
            if memory is None or verdict.memory in found:
                continue
            found[verdict.memory] = Comparison(
                verdict.memory, verdict.same_subject, verdict.still_true, verdict.relation,
                swaps_value(verdict, fact, memory.content), verdict.memory_says,
                verdict.fact_says)
        return list(found.values()), Usage(*spent.figures())
