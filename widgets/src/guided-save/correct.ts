// Correcting a memory: pick it, write the correction, see the UPDATES edge it will create (the
// server checks it with the same rules as the write), then save.

import { fill, focusInPlace, h } from "../shared/dom";
import { ago } from "../shared/format";
import { errorMessage, type Host } from "../shared/host";
import type { AddResult, Memory, MemoryDetail, Relation } from "../shared/types";
import type { Launch } from "./main";
import { resultCard } from "./result";
import { contentProblem, mark } from "./validate";

interface Preview {
  content: string;
  category: string;
  replaces: Memory;
  relation: Relation;
}

const PREVIEW_DELAY_MS = 300; // after the last keystroke: one preview per pause, not per key

export class CorrectionForm {
  readonly element: HTMLElement;
  private readonly editor: HTMLElement; // shown once a memory is picked
  private readonly search = h("input", { type: "search", placeholder: "Find the memory to correct…", "aria-label": "Find a memory" });
  private readonly list = h("div", { class: "pick-list", role: "listbox", "aria-label": "Memories" });
  private readonly chosen = h("div", { class: "chosen" });
  private readonly content = h("textarea", { id: "correction", rows: 3, "aria-label": "Correction" });
  private readonly reason = h("input", { type: "text", id: "reason", placeholder: "e.g. the team moved to GitHub Actions" });
  private readonly contentError = h("div", { class: "field-error", "aria-live": "polite" });
  private readonly preview = h("div", { class: "preview", "aria-live": "polite" });
  private readonly save = h("button", { class: "primary", type: "submit", disabled: true }, "Save correction");
  private readonly outcome = h("div", { class: "outcome" });
  private memories: Memory[] = [];
  private target: Memory | undefined;
  private timer: number | undefined;
  private asked = 0; // the latest preview request; older answers are dropped

  constructor(private readonly host: Host, private readonly launch: Launch) {
    this.memories = launch.recent;
    this.search.addEventListener("input", () => this.later(() => this.refresh()));
    this.content.addEventListener("input", () => this.later(() => this.check()));
    this.reason.addEventListener("input", () => this.later(() => this.check()));
    const editor = h("div", { class: "editor", hidden: true },
      this.chosen,
      h("label", { class: "field" }, h("span", {}, "Correction"), this.content, this.contentError),
      h("label", { class: "field" }, h("span", {}, "Why it changed (optional)"), this.reason),
      this.preview,
      h("div", { class: "row end" }, this.save));
    this.editor = editor;
    this.element = h("form", { class: "form", novalidate: true, on: { submit: (e) => void this.submit(e) } },
      this.search, this.list, editor, this.outcome);
  }

  /** Reload the list: matches of the search box, or the newest memories. */
  async refresh(): Promise<void> {
    try {
      const query = this.search.value.trim();
      const found = await this.host.call<{ memories: Memory[] }>("find_memories_ui", {
        query: query || null, space: this.launch.space,
      });
      this.memories = found.memories;
    } catch (error) {
      fill(this.list, h("div", { class: "notice error" }, errorMessage(error)));
      return;
    }
    this.renderList();
  }

  /** Select a memory by id (the model may open the form on one). */
  async pick(memoryId: string): Promise<void> {
    try {
      const detail = await this.host.call<MemoryDetail>("memory_detail_ui", { memoryId, space: this.launch.space });
      this.choose(detail.memory);
    } catch (error) {
      fill(this.outcome, h("div", { class: "notice error" }, errorMessage(error)));
    }
  }

  private renderList(): void {
    if (!this.memories.length) {
      fill(this.list, h("div", { class: "empty" }, "No active memory matches."));
      return;
    }
    fill(this.list, ...this.memories.map((m) => h("button", {
      type: "button", role: "option", class: "pick",
      "aria-selected": String(m.id === this.target?.id), "data-id": m.id,
      on: { click: () => this.choose(m) },
    }, h("span", { class: "badge" }, m.category), h("span", { class: "content" }, m.content))));
  }

  private choose(memory: Memory): void {
    this.target = memory;
    fill(this.chosen, h("div", { class: "card current-fact" },
      h("div", { class: "section-title" }, "Currently remembered"),
      h("div", { class: "content" }, memory.content),
      h("div", { class: "meta" }, `${memory.category} · saved by ${memory.createdBy} ${ago(memory.createdAt, this.host.locale)}`)));
    this.editor.hidden = false;
    this.content.value = memory.content;
    focusInPlace(this.content);
    fill(this.outcome);
    this.renderList();
    void this.check();
  }

  private later(action: () => void): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(action, PREVIEW_DELAY_MS);
  }

  /** Validate locally, then ask the server what the correction would write. */
  private async check(): Promise<void> {
    const target = this.target;
    this.save.disabled = true;
    if (!target) return;
    if (!mark(this.content, this.contentError, contentProblem(this.content.value, this.launch.maxChars))) {
      fill(this.preview);
      return;
    }
    const asked = ++this.asked;
    if (this.content.value.trim() === target.content.trim()) {
      fill(this.preview, h("div", { class: "hint" }, "Edit the text to say what is true now."));
      return;
    }
    try {
      const preview = await this.host.call<Preview>("preview_correction_ui", {
        memoryId: target.id, content: this.content.value, reason: this.reason.value || null, space: this.launch.space,
      });
      if (asked !== this.asked) return;
      fill(this.preview, edgeDiagram(preview));
      this.save.disabled = false;
    } catch (error) {
      if (asked !== this.asked) return;
      fill(this.preview, h("div", { class: "notice error" }, errorMessage(error)));
    }
  }

  private async submit(event: Event): Promise<void> {
    event.preventDefault();
    const target = this.target;
    if (!target || this.save.disabled) return;
    this.save.disabled = true;
    try {
      const result = await this.host.call<AddResult>("correct_memory_ui", {
        memoryId: target.id, content: this.content.value, reason: this.reason.value || null, space: this.launch.space,
      });
      fill(this.outcome, resultCard(result, new Map([[target.id, target]])));
      this.target = undefined;
      this.editor.hidden = true;
      fill(this.chosen);
      fill(this.preview);
      this.content.value = this.reason.value = "";
      await this.refresh();
    } catch (error) {
      fill(this.outcome, h("div", { class: "notice error" }, errorMessage(error)));
      this.save.disabled = false;
    }
  }
}

/** new fact —UPDATES→ old fact (which becomes inactive). */
function edgeDiagram(preview: Preview): HTMLElement {
  return h("div", { class: "edge-preview", "aria-label": "What will be saved" },
    h("div", { class: "node new" }, h("div", { class: "node-label" }, "New memory"),
      h("div", { class: "content" }, preview.content)),
    h("div", { class: "arrow" }, h("span", { class: "edge updates" }, preview.relation.type), h("span", { class: "line" }, "→")),
    h("div", { class: "node old" }, h("div", { class: "node-label" }, "Becomes inactive"),
      h("div", { class: "content" }, preview.replaces.content)),
    h("div", { class: "meta edge-reason" }, `Reason recorded: ${preview.relation.reason ?? "corrected by hand"}`));
}
