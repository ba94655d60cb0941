"""Which tool a model picks first for an agent's everyday tasks, and what the tool list costs it.

    tools/llm-local/start.sh with LLM_LOCAL_TOOLS=1 (and LLM_LOCAL_CTX=20480 for the long list)
    PYTHONPATH=src:. .venv/bin/python bench/tool_choice.py --api-base http://127.0.0.1:8092/v1

Thirty-three tasks written from the README's workflow ("What an agent does with it": start a
task, search, save a decision, correct a fact, read a history, catch up, resume after a handoff,
hand off, settle a conflict, check a note against the code, choose a space). Each is given to
the local model (tools/llm-local, Qwen2.5-Coder 1.5B) with the server's instructions as the
system prompt and one of three tool lists, as a client would pass them (OpenAI `tools`):

- `before`: the 42 tools every client was shown before toolsets (the list of commit 776c1f6,
  kept in bench/results/tool_choice/list-before.json);
- `default`: what a client is shown now (mcp/toolsets.py);
- `all`: every capability, `/mcp?toolsets=all`.

For each it reports how often the first tool called is one that does the task (a task names the
tools that do it, on each list: a name of the default list, or its toolset equivalent), how often
that call's arguments are valid against the input schema the model was given, and the prompt
tokens of each list, counted with the server's own chat template and tokenizer without running the
model (mean per task, and the list alone: the same request without tools subtracted).
Temperature 0; every answer is kept in bench/results/tool_choice/answers-*.json.

llama.cpp answers a Qwen2.5 tool call as `tool_calls` only when the model writes its
`<tool_call>` tags; this model often writes the same call as a JSON object in its text instead,
so a call is read from `tool_calls`, else from the first JSON object with a `name` in the text,
and the report says how many came each way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
from mcp import Client
from tests.support.fakes import HashEmbedder

from memspace.mcp.server import INSTRUCTIONS, build_mcp_server
from memspace.startup.container import build
from memspace.startup.settings import Settings

RESULTS = Path(__file__).parent / "results" / "tool_choice"
SYSTEM = (INSTRUCTIONS + "\n\nYou are a coding agent working in this team's project. Answer the "
          "user's request by calling exactly one tool now.")


@dataclass(frozen=True)
class Task:
    text: str
    tools: frozenset[str]  # any of these does the task


def task(text: str, *tools: str) -> Task:
    return Task(text, frozenset(tools))


TASKS = [
    task("I'm starting work on the checkout page redesign. What should I know first?",
         "get_context"),
    task("Begin the task: migrate the billing jobs to the new queue.", "get_context"),
    task("Give me a briefing on the auth service before I change it.", "get_context",
         "search_memory"),
    task("Where is the Acme storefront hosted?", "search_memory"),
    task("Do we have a convention for naming feature flags?", "search_memory"),
    task("Who owns the on-call pager?", "search_memory"),
    task("How do we deploy to production?", "search_memory"),
    task("Look up what we decided about the payment provider, in the support space.",
         "search_memory"),
    task("Search the code for where webhook signatures are verified.", "search_memory"),
    task("What was true about our hosting on 1 March 2026?", "search_memory"),
    task("Remember that our staging site is staging.acme.test.", "add_memory"),
    task("Save this decision: we use PostgreSQL 16 for the orders service.", "add_memory"),
    task("Note for the team: the CI cache key must include the lockfile hash.", "add_memory"),
    task("We tried sharding the search index by tenant and it failed because of hot tenants; "
         "record that so nobody tries it again.", "add_memory"),
    task("Record that Dana said yesterday she will own the release notes from now on.",
         "add_memory"),
    task("Save the fact that the billing export runs nightly at 02:00 UTC; the claim rests on "
         "jobs/export.py line 12.", "add_memory"),
    task("Forget memory 77aa88: the vendor contract was cancelled.", "add_memory"),
    task("The memory 9f2c1a says deploys are on Tuesdays, but they moved to Fridays. I read "
         "version 2 of it. Fix it.", "correct_memory", "patch_memory"),
    task("Memory b7e4d2 is outdated: the API rate limit is now 200 requests a minute, not 100.",
         "correct_memory", "patch_memory"),
    task("Memory 4f4f4f is wrong, the staging database is db-stg-2 now.", "correct_memory",
         "patch_memory"),
    task("Show me the full history of memory 3c8e9a: who changed it and why.", "getMemory",
         "list_memory_revisions"),
    task("Read memories a1b2c3, d4e5f6 and 0a9b8c in full.", "getMemory", "getMemories"),
    task("I'm back after a week off. What changed in the project space since 2026-11-28?",
         "get_changes_since", "listMemories"),
    task("Resume where the last agent left off.", "get_context", "latest_handoff"),
    task("What did the previous session hand off to me?", "get_context", "latest_handoff"),
    task("I'm about to stop for the day. Leave a note for whoever picks this up: the CDN quotes "
         "are in, next step is choosing a vendor.", "save_handoff"),
    task("My context is almost full; pass the work on to the next agent: tests are green, the "
         "migration script is half done.", "save_handoff"),
    task("Are there any memories that contradict each other in this space?", "list_conflicts"),
    task("Conflict c-71 is between memories m1 and m2; m2 is right because the March load test "
         "settled it. The conflict's version is 4. Settle it.", "resolve_conflict"),
    task("Check whether the note 5d6e7f about the retry backoff still matches the code.",
         "verify_memory"),
    task("Re-check every note that cites code in this space against the current checkout.",
         "verify_memory"),
    task("Which memory spaces can I use?", "listSpaces", "whoAmI"),
    task("Is anything open or disputed that I should settle first in this space?",
         "get_context", "list_conflicts"),
]


async def current_lists() -> dict[str, list[dict[str, Any]]]:
    """The default list and every capability, as a client receives them now."""
    app = build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp()),  # type: ignore[call-arg]
                         toolsets="all"), embedder=HashEmbedder())
    try:
        lists = {}
        for name, settings_toolsets in (("default", ""), ("all", "all")):
            app.settings.toolsets = settings_toolsets
            async with Client(build_mcp_server(app)) as client:
                tools = (await client.list_tools()).tools
            lists[name] = [t.model_dump(by_alias=True, mode="json", exclude_none=True)
                           for t in tools]
        return lists
    finally:
        app.close()


def openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {
        "name": t["name"], "description": t.get("description", ""),
        "parameters": t["inputSchema"]}} for t in tools]


def ask(api_base: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
        max_tokens: int = 200) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "local", "messages": messages, "temperature": 0,
                            "max_tokens": max_tokens}
    if tools:
        body |= {"tools": tools, "tool_choice": "auto"}
    request = urllib.request.Request(f"{api_base}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=1800) as response:
        return dict(json.load(response))


def prompt_tokens(api_base: str, messages: list[dict[str, Any]],
                  tools: list[dict[str, Any]] | None) -> int:
    """The prompt tokens of a request, as the model's server renders and counts them (its chat
    template, then its tokenizer), without running the model."""
    root = api_base.removesuffix("/v1")
    body: dict[str, Any] = {"messages": messages} | ({"tools": tools} if tools else {})
    rendered = post(f"{root}/apply-template", body)["prompt"]
    return len(post(f"{root}/tokenize", {"content": rendered})["tokens"])


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.load(response))


def token_row(api_base: str, name: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Prompt tokens a task, with the list and without it, over every task."""
    offered = openai_tools(tools)
    with_list, bare = [], []
    for item in TASKS:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": item.text}]
        with_list.append(prompt_tokens(api_base, messages, offered))
        bare.append(prompt_tokens(api_base, messages, None))
    return {"list": name, "tools": len(tools),
            "chars": len(json.dumps(tools, separators=(",", ":"))),
            "promptTokens": sum(with_list) / len(TASKS),
            "listTokens": sum(w - b for w, b in zip(with_list, bare, strict=True)) / len(TASKS)}


def first_call(message: dict[str, Any]) -> tuple[str | None, Any, str]:
    """(tool name, arguments, how it came: tool_calls | text | none)."""
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        try:
            arguments = json.loads(fn.get("arguments") or "{}")
        except ValueError:
            arguments = fn.get("arguments")
        return fn.get("name"), arguments, "tool_calls"
    text = message.get("content") or ""
    for match in re.finditer(r"\{", text):
        try:
            found, _ = json.JSONDecoder().raw_decode(text[match.start():])
        except ValueError:
            continue
        if isinstance(found, dict) and isinstance(found.get("name"), str):
            arguments = found.get("arguments", found.get("parameters", {}))
            return found["name"], arguments, "text"
    return None, None, "none"


def valid(schema: dict[str, Any] | None, arguments: Any) -> bool:
    if schema is None or not isinstance(arguments, dict):
        return False
    try:
        jsonschema.validate(arguments, schema)
    except jsonschema.ValidationError:
        return False
    return True


def run_list(api_base: str, name: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    offered = openai_tools(tools)
    names = {t["name"] for t in tools}
    schemas = {t["name"]: t["inputSchema"] for t in tools}
    answers = []
    for item in TASKS:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": item.text}]
        reply = ask(api_base, messages, offered)
        tool, arguments, how = first_call(reply["choices"][0]["message"])
        answers.append({
            "task": item.text, "expected": sorted(item.tools & names), "tool": tool,
            "arguments": arguments, "how": how, "right": tool in item.tools & names,
            "valid": valid(schemas.get(tool or ""), arguments),
            "promptTokens": reply["usage"]["prompt_tokens"],
        })
        print(f"  {name}: {tool!s:22} {'ok ' if answers[-1]['right'] else 'NO '}"
              f"{'valid' if answers[-1]['valid'] else 'invalid'} ({how}) {item.text[:60]}",
              flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"answers-{name}.json").write_text(json.dumps(answers, indent=1) + "\n",
                                                   encoding="utf-8")
    return summary(name, tools, answers)


def summary(name: str, tools: list[dict[str, Any]], answers: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(answers)
    return {
        "list": name, "tools": len(tools),
        "right": sum(a["right"] for a in answers) / n,
        "valid": sum(a["right"] and a["valid"] for a in answers) / n,
        "called": sum(a["tool"] is not None for a in answers) / n,
        "viaToolCalls": sum(a["how"] == "tool_calls" for a in answers),
        "viaText": sum(a["how"] == "text" for a in answers),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api-base", default="http://127.0.0.1:8092/v1")
    parser.add_argument("--choices", default="default,all,before",
                        help="the lists to ask the model with (tokens are counted for all three)")
    args = parser.parse_args()
    lists = asyncio.run(current_lists())
    lists["before"] = json.loads((RESULTS / "list-before.json").read_text(encoding="utf-8"))
    tokens = [token_row(args.api_base, name, lists[name]) for name in ("default", "all", "before")]
    print(f"{len(TASKS)} tasks; PYTHONPATH=src:. .venv/bin/python bench/tool_choice.py "
          f"--api-base {args.api_base} --choices {args.choices}")
    print("| list | tools | chars | prompt tokens a task | of which the list |")
    print("|---|---|---|---|---|")
    for r in tokens:
        print(f"| {r['list']} | {r['tools']} | {r['chars']:,} | {r['promptTokens']:,.0f} "
              f"| {r['listTokens']:,.0f} |")
    chosen = [n for n in args.choices.split(",") if n]
    rows = [run_list(args.api_base, name, lists[name]) for name in chosen]
    print("\n| list | first tool right | right with valid arguments | called (tool_calls / text) |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['list']} | {r['right']:.2f} | {r['valid']:.2f} "
              f"| {r['called']:.2f} ({r['viaToolCalls']} / {r['viaText']}) |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "summary.json").write_text(json.dumps({"tokens": tokens, "choices": rows},
                                                     indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
