"""Reading a model's answer: the JSON object in its text, validated against a pydantic shape."""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"^```[a-zA-Z]*\s*(.*?)\s*```$", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


class InvalidAnswer(ValueError):
    """The model's text is not the answer asked for; the message says what is wrong, for the retry."""


def parse_json(text: str, shape: type[M]) -> M:
    """The model's text as `shape`, tolerating code fences, <think> blocks and chatter.

    Raises:
        InvalidAnswer: no JSON object, or one that does not match `shape`.
    """
    body = _THINK.sub("", text).strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body:
        raise InvalidAnswer("the answer was empty")
    start, end = body.find("{"), body.rfind("}")
    if start < 0:
        raise InvalidAnswer(f"not valid JSON: no object in the answer (it starts {body[:40]!r})")
    if end < start:
        raise InvalidAnswer("not valid JSON: the object is cut off (it opens with '{' and never closes)")
    try:
        data = json.loads(body[start:end + 1])
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number; nesting 1,000 deep
        raise InvalidAnswer(f"not valid JSON ({type(exc).__name__}: {str(exc)[:80]})") from exc
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:5])
        raise InvalidAnswer(f"JSON does not match the schema ({problems})") from exc
