"""LitellmExtractor: the FactExtractor port over one litellm chat completion per chunk.

Any litellm model string works, including `openai/<name>` with `api_base` pointing at a local
OpenAI-compatible server (Ollama, vLLM, llama.cpp).

Time is bounded: each call has `timeout_s` (connect and each read), litellm's and the OpenAI
client's own retries are off (`num_retries=0`), and all our retries share one budget of
`1 + max_retries` calls. An invalid answer, or a 429 whose Retry-After is at most
MAX_RETRY_AFTER_S, spends one call of that budget; every other failure ends the extraction at
once. Worst case: (1 + max_retries) * timeout_s + max_retries * MAX_RETRY_AFTER_S, i.e. 62 s
with the defaults.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import Any, TypeVar

from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import Candidate, ExtractedFact, ExtractedRelation, Extraction
from memspace.domain.models import RelationType
from memspace.llm.answers import InvalidAnswer, parse_json
from memspace.llm.grounding import ground
from memspace.llm.prompts import PromptTemplate, load_prompt
from memspace.llm.schema import FactsAnswer, response_format
from memspace.llm.stray_loop import without_stray_loop

PROMPT = "extract_facts.v2"
# A 429 asking us to wait longer than this fails the extraction (the add falls back to flat)
# rather than holding the tool call; without a Retry-After header we wait the default.
MAX_RETRY_AFTER_S = 2.0
DEFAULT_RETRY_AFTER_S = 1.0
# The answer's token budget: this plus half a token per character of content (answer_budget).
ANSWER_BASE_TOKENS = 256
# The invalid answer is echoed back in the retry; long garbage is cut to keep that call small.
ECHO_CHARS = 2_000

log = logging.getLogger(__name__)
T = TypeVar("T")

# "litellm.InternalServerError: InternalServerError: OpenAIException - <the provider's words>"
_LITELLM_PREFIX = re.compile(r"^litellm\.\w+: (?:\w+(?: Error)?: )?")


@functools.cache
def _litellm() -> ModuleType:
    """Import litellm once, without its remote price-list fetch and its stdout chatter."""
    # Without this, `import litellm` fetches a model price list over the network (docs/operations.md).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # else every mapped exception prints a help banner
    return litellm


@dataclass
class Spent:
    """Calls and tokens spent so far on one extraction (all its passes)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def figures(self) -> tuple[int, int, int]:
        return self.calls, self.prompt_tokens, self.completion_tokens


class LitellmExtractor:
    """Splits content into facts and relates them to numbered candidates with one model call."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout_s: float = 30.0, max_retries: int = 1,
                 prompt: PromptTemplate | None = None, grounding: bool = True) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._max_calls = 1 + max_retries
        # Loaded now, so a missing or broken prompt file fails at wiring time, not on an add.
        self._prompt = prompt or load_prompt(PROMPT)
        # Off only to measure what the model says unguarded (bench/extraction_eval.py --unguarded).
        self._grounding = grounding

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        """One completion (plus bounded retries) → facts with relations to offered candidates.

        Raises:
            ExtractionFailed: transport failure, or no valid answer within the call budget.
        """
        system, user = self._prompt.render(
            speaker=speaker.strip() if speaker and speaker.strip() else "(not given)",
            observed_at=_format_time(observed_at) if observed_at else "(not given)",
            candidates="\n".join(_format_candidate(c) for c in candidates) or "(none)",
            content=content,
        )
        messages: list[dict[str, str]] = [{"role": "system", "content": system},
                                          {"role": "user", "content": user}]
        spent = Spent()
        answer = self._ask(messages, response_format(len(candidates)), answer_budget(content),
                           parse_answer, _retry_request, spent)
        facts = self._to_facts(answer, {c.number for c in candidates})
        extraction = Extraction(facts, spent.calls, spent.prompt_tokens, spent.completion_tokens)
        if not self._grounding:
            return extraction
        return ground(extraction, content, candidates, speaker, observed_at)

    def _ask(self, messages: list[dict[str, str]], fmt: dict[str, Any], max_tokens: int,
             parse: Callable[[str], T], retry: Callable[[InvalidAnswer], str], spent: Spent) -> T:
        """One completion, parsed, within the call budget; what it costs is added to `spent`.

        Raises:
            ExtractionFailed: transport failure, or no valid answer within the call budget.
        """
        calls = 0
        while True:
            calls += 1
            spent.calls += 1
            try:
                response = self._complete(messages, fmt, max_tokens)
            except Exception as exc:  # litellm maps every provider failure to its own types
                wait = self._rate_limit_wait(exc)
                if wait is not None and calls < self._max_calls:
                    log.info("model %s rate limited (429); retrying once after %.1f s", self.model, wait)
                    time.sleep(wait)
                    continue
                raise ExtractionFailed(self._describe(exc), *spent.figures()) from exc
            usage = getattr(response, "usage", None)
            spent.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            spent.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
            text = _answer_text(response)
            try:
                return parse(text)
            except InvalidAnswer as err:
                if calls >= self._max_calls:
                    raise ExtractionFailed(
                        f"model {self.model} gave no valid answer in {calls} call(s): {err}",
                        *spent.figures()) from err
                log.info("model %s gave an unusable answer (%s); asking again", self.model, err)
                messages = [*messages, {"role": "assistant", "content": text[:ECHO_CHARS]},
                            {"role": "user", "content": retry(err)}]

    def _complete(self, messages: list[dict[str, str]], fmt: dict[str, Any], max_tokens: int) -> Any:
        # drop_params: a provider that rejects `response_format` or `temperature` (reasoning
        # models take only their default) gets the call without it instead of failing; the
        # prompt asks for the same JSON and parse_answer checks it either way.
        return without_stray_loop(lambda: _litellm().completion(
            model=self.model, messages=messages, response_format=fmt,
            temperature=0, timeout=self._timeout_s, num_retries=0, drop_params=True,
            max_tokens=max_tokens, api_base=self._api_base, api_key=self._api_key,
        ))

    def _to_facts(self, answer: FactsAnswer, offered: set[int]) -> tuple[ExtractedFact, ...]:
        facts: list[ExtractedFact] = []
        invented: list[int] = []
        for item in answer.facts:
            relations: dict[int, ExtractedRelation] = {}
            contradicts: dict[int, str] = {}
            for rel in item.relations:
                if rel.candidate not in offered:
                    invented.append(rel.candidate)
                elif rel.type == "contradicts":  # no edge: a pair for the conflict queue
                    contradicts.setdefault(rel.candidate, rel.reason.strip())
                elif rel.candidate not in relations:  # a second relation to one candidate: first wins
                    relations[rel.candidate] = ExtractedRelation(
                        rel.candidate, RelationType(rel.type.upper()), rel.reason.strip())
            facts.append(ExtractedFact(item.text, item.category, tuple(relations.values()),
                                       item.type, tuple(contradicts.items())))
        if invented:
            log.info("model %s related facts to candidate numbers never offered %s; dropped %d",
                     self.model, sorted(set(invented)), len(invented))
        return tuple(facts)

    def _rate_limit_wait(self, exc: Exception) -> float | None:
        """Seconds to wait before one retry of a 429, or None when not worth retrying."""
        if not isinstance(exc, _litellm().RateLimitError):
            return None
        after = _retry_after(exc)
        if after is None:
            return DEFAULT_RETRY_AFTER_S
        return after if after <= MAX_RETRY_AFTER_S else None

    def _describe(self, exc: Exception) -> str:
        """A one-line reason naming the model and the kind of failure."""
        litellm = _litellm()
        where = self._api_base or "the provider's default endpoint"
        model = f"model {self.model}"
        detail = _LITELLM_PREFIX.sub("", " ".join(str(getattr(exc, "message", None) or exc).split()))[:200]
        status = getattr(exc, "status_code", None)
        # litellm raises Timeout both for our own deadline (status 408) and for a gateway's 504.
        if isinstance(exc, litellm.Timeout) and status in (None, 408):
            return f"{model} timed out after {self._timeout_s:g} s"
        if isinstance(exc, litellm.RateLimitError):
            after = _retry_after(exc)
            hint = f", retry after {after:g} s" if after is not None else ""
            return f"{model} is rate limited (429){hint}"
        # litellm reports a refused connection as InternalServerError (docs/operations.md): look at the cause.
        if _caused_by(exc, ConnectionRefusedError):
            return f"{model}: connection refused at {where}"
        if isinstance(exc, litellm.APIConnectionError) or _caused_by(exc, OSError):
            return f"{model}: could not connect to {where} ({detail})"
        if isinstance(exc, litellm.AuthenticationError):
            return f"{model} rejected the API key (401); check MEMSPACE_LLM_API_KEY"
        if isinstance(status, int):
            return f"{model} answered HTTP {status}: {detail}"
        return f"{model} failed ({type(exc).__name__}): {detail}"


def answer_budget(content: str) -> int:
    """Completion tokens an answer may take: its facts restate the content (~4 characters a
    token) plus the JSON around them. A small model that loops inside the schema's grammar
    (seen with the 0.5B: 1,500 tokens and counting) is cut off here and retried, not waited on
    until the timeout."""
    return ANSWER_BASE_TOKENS + len(content) // 2


def parse_answer(text: str) -> FactsAnswer:
    """The model's text as a FactsAnswer, tolerating code fences, <think> blocks and chatter.

    Raises:
        InvalidAnswer: no JSON object, or one that does not match FactsAnswer.
    """
    return parse_json(text, FactsAnswer)


def _answer_text(response: Any) -> str:
    """The first choice's message text; "" when the response has none (parse_answer says so)."""
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def _retry_request(err: InvalidAnswer) -> str:
    return (f"That answer could not be used: {err}. Reply again with only the JSON object "
            '{"facts": [{"text": ..., "type": ..., "category": ..., "relations": [...]}]} '
            "and nothing else.")


def _format_time(at: datetime) -> str:
    zone = f" {at.tzname()}" if at.tzinfo else ""
    return f"{at:%A %Y-%m-%d %H:%M}{zone}"


def _format_candidate(candidate: Candidate) -> str:
    text = " ".join(candidate.content.split())
    return f"[{candidate.number}] ({candidate.category}, {candidate.created_at:%Y-%m-%d}) {text}"


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After, wherever this litellm release keeps the answer's headers."""
    value = None
    for headers in (getattr(getattr(exc, "response", None), "headers", None),
                    getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)):
        if headers and (value := headers.get("retry-after")) is not None:
            break
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP-date: treated as "not given"
