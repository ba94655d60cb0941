"""The declared shape of the extract_facts answer (prompts/extract_facts.v1.md), as pydantic models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from memspace.domain.extraction import DEFAULT_FACT_TYPE, FACT_TYPES

FactText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# The schema sent to the model lists every field as required (an empty `relations` and `reason`
# included): constrained decoders then always emit them, while parsing still accepts omissions.
_SCHEMA_CONFIG = ConfigDict(json_schema_serialization_defaults_required=True)


class RelationItem(BaseModel):
    """One link from a fact to a candidate, by the candidate's number in the prompt."""

    model_config = _SCHEMA_CONFIG

    candidate: int = Field(description="the number of a listed candidate")
    type: Literal["updates", "extends", "derives", "contradicts"]
    reason: str = ""

    @field_validator("type", mode="before")
    @classmethod
    def _lowercase_type(cls, value: object) -> object:
        # Models often echo the edge names in capitals ("UPDATES"); the meaning is the same.
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("reason", mode="before")
    @classmethod
    def _null_reason_is_empty(cls, value: object) -> object:
        return "" if value is None else value


class FactItem(BaseModel):
    """One atomic, self-contained fact and its relations to candidates."""

    model_config = _SCHEMA_CONFIG

    text: FactText
    type: str = Field(default=DEFAULT_FACT_TYPE, json_schema_extra={"enum": list(FACT_TYPES)},
                      description="the kind of memory")
    category: str = Field(description="one short lowercase word, e.g. decision, preference, fact")
    relations: list[RelationItem] = Field(default_factory=list)

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, value: object) -> object:
        # Missing, null or not one of FACT_TYPES: a note (never a reason to retry the answer).
        if isinstance(value, str):
            word = value.strip().lower().replace(" ", "_").replace("-", "_")
            return word if word in FACT_TYPES else DEFAULT_FACT_TYPE
        return DEFAULT_FACT_TYPE

    @field_validator("category", mode="before")
    @classmethod
    def _normalise_category(cls, value: object) -> object:
        if value is None:
            return "fact"
        if isinstance(value, str):
            return value.strip().lower() or "fact"
        return value

    @field_validator("relations", mode="before")
    @classmethod
    def _null_relations_is_empty(cls, value: object) -> object:
        return [] if value is None else value


class FactsAnswer(BaseModel):
    """The whole answer: at least one fact (a note with nothing to split is one fact)."""

    model_config = _SCHEMA_CONFIG

    facts: list[FactItem] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _drop_blank_facts(cls, data: Any) -> Any:
        # A blank fact is noise, not a reason to spend a retry on the whole answer.
        if isinstance(data, dict) and isinstance(data.get("facts"), list):
            kept = [f for f in data["facts"]
                    if not (isinstance(f, dict) and isinstance(f.get("text"), str) and not f["text"].strip())]
            return {**data, "facts": kept}
        return data


def response_format(candidates: int | None = None) -> dict[str, Any]:
    """The litellm/OpenAI `response_format` asking for a FactsAnswer (non-strict JSON schema).

    With `candidates` given, a relation may only name 0..candidates-1 (none with no candidates):
    a server that turns the schema into a grammar (llama.cpp, vLLM, Ollama) cannot emit others.
    """
    schema = FactsAnswer.model_json_schema(mode="serialization")
    # `contradicts` is read when a model answers it (a pair for the conflict queue,
    # docs/conflicts.md) but not offered: offered to the pinned 1.5B model (with a line in the
    # prompt) it was never used in 52 cases and wrong UPDATES rose from 0/52 to 3/52.
    kinds = schema["$defs"]["RelationItem"]["properties"]["type"]
    kinds["enum"] = [k for k in kinds["enum"] if k != "contradicts"]
    if candidates is not None:
        relations = schema["$defs"]["FactItem"]["properties"]["relations"]
        if candidates:
            schema["$defs"]["RelationItem"]["properties"]["candidate"]["enum"] = list(range(candidates))
        else:
            relations["maxItems"] = 0
    return {"type": "json_schema", "json_schema": {"name": "facts", "schema": schema, "strict": False}}


# -- the second pass (llm/two_pass.py): one fact against its own nearest memories -----------

Verdict = Literal["none", "updates", "extends", "derives"]


class MemoryVerdict(BaseModel):
    """How one fact stands to one existing memory, with the values an UPDATES would swap."""

    model_config = _SCHEMA_CONFIG

    memory: int = Field(description="the number of a listed existing memory")
    memory_says: str = Field(default="", description="the memory's value for it, a few words")
    fact_says: str = Field(default="", description="the fact's value for it, a few words")
    same_subject: bool = Field(description="the fact and the memory are about the same thing")
    still_true: bool = Field(default=True, description="the memory still holds after the note")
    relation: Verdict

    @field_validator("relation", mode="before")
    @classmethod
    def _lowercase_relation(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("memory_says", "fact_says", mode="before")
    @classmethod
    def _null_is_empty(cls, value: object) -> object:
        return "" if value is None else value


class RelateAnswer(BaseModel):
    """The second pass's answer: a verdict per listed memory."""

    model_config = _SCHEMA_CONFIG

    memories: list[MemoryVerdict] = Field(default_factory=list)


def relate_format(numbers: list[int]) -> dict[str, Any]:
    """`response_format` for a RelateAnswer on the memories `numbers`: one verdict each, only
    those numbers (a grammar-constrained server cannot name another)."""
    schema = RelateAnswer.model_json_schema(mode="serialization")
    schema["$defs"]["MemoryVerdict"]["properties"]["memory"]["enum"] = list(numbers)
    schema["properties"]["memories"].update(minItems=len(numbers), maxItems=len(numbers))
    return {"type": "json_schema", "json_schema": {"name": "relations", "schema": schema,
                                                   "strict": False}}
