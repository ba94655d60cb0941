"""Writes bench/data/chats.json: a conversational benchmark unlike LoCoMo, written for this
project (no outside text), deterministic (seeded), so anyone can rebuild it and get the same file.

LoCoMo is two friends chatting, short turns, each named by a first name. This set is the other
common shape an agent logs: one person and an assistant ("user" / "assistant"), the person
mentioning things that happen in their life in passing while asking for help, the assistant
answering at length; many sessions over about a year, each turn with its own timestamp. The
questions are the person's, in the first person, and most are about *when* things happened:

  temporal   "When did I ...?", "Which did I do first, ... or ...?", "How many weeks passed
             between ... and ...?", "What did I ... in <Month YYYY>?", "Today is <date>: how
             long ago did I ...?"
  single-hop a detail of one thing the person said ("What did I name the puppy?")
  update     a detail the person later changed; the evidence is the turn that changed it

Every question's evidence turns (ids) are labelled. Sessions about the same topics as the
events, without them, are the distractors (advice about dogs, trips, cars ...).

Usage: make_chats.py [--seed 41] [--out bench/data/chats.json]
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from chat_fillers import FILLERS
from chat_texts import EVENTS, Event

PERSONAS = 6
SESSIONS = 34
EVENTS_PER_PERSONA = 16


@dataclass
class Placed:
    event: Event
    slots: dict[str, str]
    turn_id: str
    when: datetime
    update_id: str | None = None
    update_when: datetime | None = None


def fill(text: str, slots: dict[str, str]) -> str:
    return text.format(**slots)


def day(when: datetime) -> str:
    return f"{when.day} {when:%B %Y}"


def pair_turns(rng: random.Random, pool: list[tuple[str, str]], n: int) -> list[tuple[str, str]]:
    return rng.sample(pool, min(n, len(pool)))


def persona(rng: random.Random, number: int) -> dict[str, Any]:
    name = f"chat-{number}"
    start = datetime(2023, 1, 1) + timedelta(days=rng.randrange(0, 120))
    times: list[datetime] = []
    when = start
    for _ in range(SESSIONS):
        when = when + timedelta(days=rng.randrange(3, 16), hours=rng.randrange(-4, 5),
                                minutes=rng.randrange(0, 60))
        when = when.replace(hour=8 + rng.randrange(0, 13))
        times.append(when)
    events = rng.sample(EVENTS, EVENTS_PER_PERSONA)
    # each event in its own session, in the first 80% of the sessions (updates come later)
    event_sessions = sorted(rng.sample(range(SESSIONS - 4), len(events)))
    rng.shuffle(event_sessions)
    sessions: list[dict[str, Any]] = []
    placed: list[Placed] = []
    plan: dict[int, list[tuple[str, Placed | None, bool]]] = {}
    updates: dict[int, list[Placed]] = {}
    for event, s in zip(events, event_sessions, strict=True):
        slots = {k: rng.choice(v) for k, v in event.slots.items()}
        p = Placed(event, slots, "", times[s])
        placed.append(p)
        plan.setdefault(s, []).append(("event", p, False))
        if event.update is not None:
            later = rng.randrange(s + 2, SESSIONS) if s + 2 < SESSIONS else SESSIONS - 1
            updates.setdefault(later, []).append(p)
    for s, when in enumerate(times):
        turns: list[dict[str, Any]] = []
        minute = 0

        def say(role: str, text: str, s: int = s, when: datetime = when,
                turns: list[dict[str, Any]] = turns) -> str:
            nonlocal minute
            turn_id = f"{name}:s{s + 1}:t{len(turns) + 1}"
            stamp = when + timedelta(minutes=minute, seconds=rng.randrange(0, 50))
            minute += rng.randrange(1, 4)
            turns.append({"id": turn_id, "role": role, "time": stamp.isoformat() + "Z",
                          "text": text})
            return turn_id

        topic_pool = [f for f in FILLERS if f.topic in {p.event.topic for _, p, _ in
                                                        plan.get(s, []) if p}]
        other_pool = list(FILLERS)
        for f in pair_turns(rng, other_pool, rng.randrange(1, 3)):
            for user, assistant in f.pairs:
                say("user", user)
                say("assistant", assistant)
        for _kind, p, _ in plan.get(s, []):
            assert p is not None
            ev = p.event
            say("user", fill(rng.choice(ev.opener), p.slots))
            say("assistant", fill(rng.choice(ev.opener_reply), p.slots))
            p.turn_id = say("user", fill(rng.choice(ev.says), p.slots))
            p.when = turns[-1]["time"]
            say("assistant", fill(rng.choice(ev.reply), p.slots))
            for f in pair_turns(rng, [f for f in topic_pool if f.topic == ev.topic], 1):
                for user, assistant in f.pairs:
                    say("user", user)
                    say("assistant", assistant)
        for p in updates.get(s, []):
            assert p.event.update is not None
            p.update_id = say("user", fill(p.event.update[0], p.slots))
            p.update_when = turns[-1]["time"]
            say("assistant", fill(p.event.update[1], p.slots))
        for f in pair_turns(rng, other_pool, rng.randrange(0, 2)):
            for user, assistant in f.pairs:
                say("user", user)
                say("assistant", assistant)
        sessions.append({"id": f"{name}:s{s + 1}", "time": when.isoformat() + "Z",
                         "turns": turns})
    return {"name": name, "sessions": sessions,
            "questions": questions(rng, placed, times[-1])}


def questions(rng: random.Random, placed: list[Placed], today: datetime) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def ask(text: str, evidence: list[str], category: str) -> None:
        out.append({"question": text, "evidence": evidence, "category": category})

    for p in placed:
        ev, slots = p.event, p.slots
        when = datetime.fromisoformat(str(p.when).rstrip("Z"))
        ask(fill(rng.choice(ev.when_q), slots), [p.turn_id], "temporal")
        ask(fill(rng.choice(ev.detail_q), slots), [p.turn_id], "single-hop")
        if rng.random() < 0.5:
            ask(f"What did I {fill(ev.did, slots)} in {when:%B %Y}?", [p.turn_id], "temporal")
        if rng.random() < 0.35:
            ask(f"Today is {day(today)}. How many days ago did I {fill(ev.act, slots)}?",
                [p.turn_id], "temporal")
        if ev.update is not None and p.update_id is not None:
            ask(fill(ev.update_q, slots), [p.update_id], "update")
    for _ in range(len(placed) // 2):
        a, b = rng.sample(placed, 2)
        if rng.random() < 0.5:
            ask(f"Which did I do first, {fill(a.event.act, a.slots)} or "
                f"{fill(b.event.act, b.slots)}?", [a.turn_id, b.turn_id], "temporal")
        else:
            first, second = sorted((a, b), key=lambda p: str(p.when))
            ask(f"How many weeks passed between when I {fill(first.event.act, first.slots)} "
                f"and when I {fill(second.event.act, second.slots)}?",
                [first.turn_id, second.turn_id], "temporal")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "data" / "chats.json")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    data = {"about": f"written by bench/make_chats.py (seed {args.seed}); see its docstring",
            "conversations": [persona(rng, n + 1) for n in range(PERSONAS)]}
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    turns = sum(len(s["turns"]) for c in data["conversations"] for s in c["sessions"])
    qs = [q for c in data["conversations"] for q in c["questions"]]
    kinds: dict[str, int] = {}
    for q in qs:
        kinds[q["category"]] = kinds.get(q["category"], 0) + 1
    print(f"{args.out}: {len(data['conversations'])} conversations, {turns} turns, "
          f"{len(qs)} questions {kinds}")


if __name__ == "__main__":
    main()
