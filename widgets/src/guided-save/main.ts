// Guided save: a person writes a memory with a category, or corrects an existing one and sees
// the UPDATES edge that will result. Same tools, services and access rules as an agent's.

import "../shared/base.css";
import "./style.css";
import { byId, fill, h } from "../shared/dom";
import { connect, errorMessage, type Host } from "../shared/host";
import type { Access, AddResult, Memory } from "../shared/types";
import { CorrectionForm } from "./correct";
import { resultCard } from "./result";
import { categoryProblem, contentProblem, mark } from "./validate";

export interface Launch {
  space: string;
  access: Access;
  maxChars: number;
  draft: { content: string; category: string; memoryId: string | null };
  recent: Memory[];
}

const SUGGESTED = ["decision", "convention", "preference", "process", "fact"];
const root = byId<HTMLElement>("app");
const spaceBadge = h("span", { class: "badge" });
const tabNew = h("button", { role: "tab", class: "tab", "aria-selected": "true", id: "tab-new" }, "New memory");
const tabFix = h("button", { role: "tab", class: "tab", "aria-selected": "false", id: "tab-fix" }, "Correct a memory");
const panel = h("div", { role: "tabpanel" }, h("div", { class: "loading" }, "Loading…"));
fill(root,
  h("header", { class: "view" }, h("h1", {}, "Save to memory"), h("span", { class: "grow" }), spaceBadge),
  h("div", { class: "tabs", role: "tablist" }, tabNew, tabFix),
  panel);

let host: Host | undefined;
let launch: Launch | undefined;
let correction: CorrectionForm | undefined;
// The launcher's result can arrive before connect() has handed us the host.
let pending: Launch | undefined;

function categoriesList(recent: Memory[]): HTMLDataListElement {
  const used = new Set([...recent.map((m) => m.category), ...SUGGESTED]);
  return h("datalist", { id: "categories" }, ...[...used].map((c) => h("option", { value: c })));
}

function newMemoryForm(info: Launch, connected: Host): HTMLElement {
  const content = h("textarea", { id: "content", rows: 4, placeholder: "One self-contained fact, e.g. “Deploys need two approvals”" });
  const category = h("input", { id: "category", type: "text", list: "categories", placeholder: "e.g. decision" });
  const contentError = h("div", { class: "field-error", "aria-live": "polite" });
  const categoryError = h("div", { class: "field-error", "aria-live": "polite" });
  const counter = h("span", { class: "hint" });
  const save = h("button", { class: "primary", type: "submit" }, "Save memory");
  const outcome = h("div", { class: "outcome" });
  content.value = info.draft.content;
  category.value = info.draft.category;
  const count = () => { counter.textContent = `${content.value.trim().length} / ${info.maxChars}`; };
  content.addEventListener("input", () => { count(); mark(content, contentError, null); });
  count();
  const chips = h("div", { class: "chips" }, ...SUGGESTED.map((c) =>
    h("button", { type: "button", class: "chip", on: { click: () => { category.value = c; } } }, c)));

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const fine = mark(content, contentError, contentProblem(content.value, info.maxChars))
      && mark(category, categoryError, categoryProblem(category.value));
    if (!fine) return;
    save.disabled = true;
    fill(outcome, h("div", { class: "notice info" }, "Saving…"));
    try {
      const result = await connected.call<AddResult>("save_memory_ui", {
        content: content.value, category: category.value.trim() || null, space: info.space,
      });
      fill(outcome, resultCard(result, new Map(info.recent.map((m) => [m.id, m]))));
      if (result.status === "created") content.value = "";
      count();
      correction?.refresh();
    } catch (error) {
      fill(outcome, h("div", { class: "notice error" }, errorMessage(error)));
    } finally {
      save.disabled = false;
    }
  }

  return h("form", { class: "form", on: { submit: (e) => void submit(e) }, novalidate: true },
    h("label", { class: "field" }, h("span", {}, "Fact"), content,
      h("div", { class: "row" }, contentError, h("span", { class: "grow" }), counter)),
    h("label", { class: "field" }, h("span", {}, "Category"), category, categoryError),
    chips,
    h("div", { class: "row end" }, save),
    outcome);
}

function select(tab: "new" | "fix"): void {
  if (!launch || !host) return;
  tabNew.setAttribute("aria-selected", String(tab === "new"));
  tabFix.setAttribute("aria-selected", String(tab === "fix"));
  correction ??= new CorrectionForm(host, launch);
  fill(panel, tab === "new" ? newMemoryForm(launch, host) : correction.element);
  if (tab === "fix") correction.refresh();
}

function show(info: Launch): void {
  launch = info;
  spaceBadge.textContent = `${info.space} · ${info.access === "readwrite" ? "read & write" : "read only"}`;
  spaceBadge.className = info.access === "readwrite" ? "badge info" : "badge";
  root.append(categoriesList(info.recent));
  if (info.access !== "readwrite") {
    fill(panel, h("div", { class: "notice warning" },
      `This key can only read ${info.space}: ask for a read-write grant to save or correct memories there.`));
    tabNew.disabled = tabFix.disabled = true;
    return;
  }
  select(info.draft.memoryId ? "fix" : "new");
  if (info.draft.memoryId) void correction?.pick(info.draft.memoryId);
}

tabNew.addEventListener("click", () => select("new"));
tabFix.addEventListener("click", () => select("fix"));

connect("guided-save", {
  onResult: (data) => { if (host) show(data as Launch); else pending = data as Launch; },
  onFailure: (message) => fill(panel, h("div", { class: "notice error" }, message)),
}).then((connected) => {
  host = connected;
  if (pending) show(pending);
}, (error) => fill(panel, h("div", { class: "notice error" }, `Could not reach the host: ${errorMessage(error)}`)));
