// The panel for one memory: its text, who saved it and when, its history (what it updates or
// was replaced by, with reasons) and the document it came from. It also shows the space's
// latest handoff (what the last agent or session left for the next one).

import { fill, h } from "../shared/dom";
import { ago } from "../shared/format";
import type { Handoff, Memory, MemoryDetail, Relation } from "../shared/types";

const VERB_OUT = { UPDATES: "Replaces", EXTENDS: "Extends", DERIVES: "Derived from" } as const;
const VERB_IN = { UPDATES: "Replaced by", EXTENDS: "Extended by", DERIVES: "Used to derive" } as const;

export class DetailPanel {
  readonly element = h("aside", { class: "detail", "aria-label": "Memory details", hidden: true });
  onNavigate: (memoryId: string) => void = () => {};
  onClose: () => void = () => {};

  constructor(private readonly locale: string | undefined) {}

  loading(memory: Memory): void {
    this.element.hidden = false;
    fill(this.element, this.head(memory), h("div", { class: "content" }, memory.content),
      h("div", { class: "loading" }, "Loading history…"));
  }

  error(memory: Memory, message: string): void {
    fill(this.element, this.head(memory), h("div", { class: "content" }, memory.content),
      h("div", { class: "notice error" }, message));
  }

  hide(): void {
    this.element.hidden = true;
    fill(this.element);
  }

  show(detail: MemoryDetail, known: Map<string, Memory>): void {
    const memory = detail.memory;
    for (const near of detail.relatedMemories) known.set(near.id, near);
    const history = detail.relations.map((r) => this.relationItem(r, memory.id, known));
    this.element.hidden = false;
    fill(this.element,
      this.head(memory),
      h("div", { class: "content", id: "detail-content" }, memory.content),
      h("div", { class: "meta" }, `Saved by ${memory.createdBy} ${ago(memory.createdAt, this.locale)}`),
      memory.forgetReason
        ? h("div", { class: "notice warning" }, `Forgotten by ${memory.forgottenBy ?? "someone"}: ${memory.forgetReason}`)
        : null,
      h("h2", {}, "History"),
      history.length ? h("ul", { class: "history" }, ...history) : h("p", { class: "muted" }, "No corrections or links yet."),
      h("h2", {}, "Source"),
      detail.source
        ? h("p", { class: "source" }, h("span", { class: "badge" }, detail.source.kind), " ", detail.source.title)
        : h("p", { class: "muted" }, memory.createdBy ? `Written directly by ${memory.createdBy}.` : "Written directly."));
  }

  showHandoff(handoff: Handoff): void {
    const list = (title: string, items: string[]) => items.length
      ? [h("h2", {}, title), h("ul", { class: "handoff-list" }, ...items.map((i) => h("li", {}, i)))] : [];
    this.element.hidden = false;
    fill(this.element,
      h("div", { class: "detail-head" },
        h("span", { class: "badge" }, "handoff"), h("span", { class: "badge" }, handoff.topic),
        h("span", { class: "grow" }),
        h("button", { class: "close", "aria-label": "Close details", on: { click: () => this.onClose() } }, "×")),
      h("div", { class: "content", id: "detail-content" }, handoff.summary),
      h("div", { class: "meta" }, `From ${handoff.agent} ${ago(handoff.createdAt, this.locale)}`
        + (handoff.createdBy !== handoff.agent ? ` (saved by ${handoff.createdBy})` : "")),
      ...list("Done", handoff.done), ...list("Next steps", handoff.nextSteps),
      ...list("Open questions", handoff.openQuestions), ...list("Links", handoff.links));
  }

  private head(memory: Memory): HTMLElement {
    return h("div", { class: "detail-head" },
      h("span", { class: "badge" }, memory.category),
      memory.active ? h("span", { class: "badge success" }, "current")
        : h("span", { class: "badge warning" }, memory.invalidatedBy ? "superseded" : "forgotten"),
      h("span", { class: "grow" }),
      h("button", { class: "close", "aria-label": "Close details", on: { click: () => this.onClose() } }, "×"));
  }

  private relationItem(relation: Relation, self: string, known: Map<string, Memory>): HTMLElement {
    const outgoing = relation.from === self;
    const other = outgoing ? relation.to : relation.from ?? "";
    const verb = outgoing ? VERB_OUT[relation.type] : VERB_IN[relation.type];
    const text = known.get(other)?.content ?? other;
    return h("li", {},
      h("span", { class: `edge ${relation.type.toLowerCase()}` }, verb),
      h("button", { class: "link content", on: { click: () => this.onNavigate(other) } }, text),
      h("div", { class: "meta" },
        [relation.createdBy && `by ${relation.createdBy}`, relation.createdAt && ago(relation.createdAt, this.locale),
          relation.reason && `“${relation.reason}”`].filter(Boolean).join(" · ")));
  }
}
