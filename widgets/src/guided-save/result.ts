// What a save or a correction wrote: the facts created, their relations, what they superseded.

import { h } from "../shared/dom";
import { plural } from "../shared/format";
import type { AddResult, Memory } from "../shared/types";

export function memoryLine(memory: Memory): HTMLElement {
  return h("li", { class: "memory-line" },
    h("span", { class: "badge" }, memory.category),
    h("span", { class: "content" }, memory.content));
}

export function resultCard(result: AddResult, known: Map<string, Memory>): HTMLElement {
  const duplicate = result.status === "duplicate";
  const head = duplicate
    ? "Already known: nothing new was written."
    : `Saved ${plural(result.memories.length, "memory", "memories")} in ${result.space}.`;
  const label = (id: string) => known.get(id)?.content ?? id;
  return h("section", { class: `card result ${duplicate ? "duplicate" : "created"}`, "aria-label": "Result" },
    h("div", { class: "result-head" },
      h("span", { class: duplicate ? "badge warning" : "badge success" }, duplicate ? "duplicate" : "saved"),
      h("span", {}, head)),
    h("ul", { class: "facts" }, ...result.memories.map(memoryLine)),
    result.relations.length
      ? h("div", { class: "section" },
        h("div", { class: "section-title" }, "Relations"),
        h("ul", { class: "relations" }, ...result.relations.map((r) =>
          h("li", {}, h("span", { class: `edge ${r.type.toLowerCase()}` }, r.type), " ",
            h("span", { class: "content" }, label(r.to))))))
      : null,
    result.superseded.length
      ? h("div", { class: "section" },
        h("div", { class: "section-title" }, "Superseded (kept as history, now inactive)"),
        h("ul", { class: "superseded" }, ...result.superseded.map((id) =>
          h("li", { class: "content" }, label(id)))))
      : null,
    ...result.warnings.map((w) => h("div", { class: "notice warning" }, w)));
}
