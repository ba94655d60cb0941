// Conflicts: the space's open conflicts with both sides next to each other (who wrote each and
// when, and why they conflict). Settling one takes two clicks: pick the side that holds, then
// confirm; the server writes it in one go and keeps the reason in both memories' history. A
// conflict that changed since it was listed is refused (stale_version) and the list reloads.

import "../shared/base.css";
import "./style.css";
import { byId, fill, focusInPlace, h } from "../shared/dom";
import { ago, plural } from "../shared/format";
import { connect, errorMessage, type Host } from "../shared/host";

interface Side {
  id: string;
  content: string;
  createdBy: string;
  createdAt: string;
  type?: string;
  category?: string | null;
  status?: string;
  stored?: boolean; // false: a refused write's proposal, never stored
}
interface Conflict { id: string; kind: string; why: string; version: string; recordedAt: string; sides: Side[] }
interface Queue { space: string; open: number; conflicts: Conflict[]; nextCursor: string | null; access?: string }
interface Choice { conflict: Conflict; keep: string | null; supersede: string[] }

const KINDS: Record<string, string> = {
  two_heads: "two current versions",
  disputed: "disputed",
  suggested_update: "suggested update",
  contradiction: "contradiction",
  write_conflict: "refused write",
  restatement: "possible restatement",
  replacement: "possible replacement",
};
const root = byId<HTMLElement>("app");
const count = h("span", { class: "sub" });
const status = h("div", { role: "status" });
const list = h("div", { class: "queue", "aria-label": "Open conflicts" });
let host: Host | undefined;
let queue: Queue | undefined;
let choice: Choice | undefined;
let busy = false;
let pending: Queue | undefined; // the launcher's result can arrive before connect() resolves

fill(root, h("header", { class: "view" }, h("h1", {}, "Conflicts"), count), status, list);
list.append(h("div", { class: "loading" }, "Loading conflicts…"));

function render(): void {
  if (!queue) return;
  count.textContent = `${plural(queue.open, "open conflict")} in ${queue.space}`;
  if (!queue.conflicts.length) {
    fill(list, h("div", { class: "empty" }, "No open conflicts: nothing waits for a decision."));
    return;
  }
  fill(list, ...queue.conflicts.map(card));
}

function card(conflict: Conflict): HTMLElement {
  const picked = choice?.conflict.id === conflict.id ? choice : undefined;
  return h("article", { class: "card conflict", "data-conflict": conflict.id, "aria-label": `Conflict ${conflict.id}` },
    h("div", { class: "head" },
      h("span", { class: "badge warning" }, KINDS[conflict.kind] ?? conflict.kind),
      h("span", { class: "meta" }, `recorded ${ago(conflict.recordedAt, host?.locale)}`),
      h("span", { class: "grow" }),
      h("span", { class: "mono" }, conflict.id)),
    h("div", { class: "why" }, conflict.why),
    h("div", { class: "sides" }, ...conflict.sides.map((side) => sideBox(conflict, side, picked))),
    picked ? confirmBar(picked) : null,
    h("div", { class: "links" }, h("button", {
      class: "link", on: { click: () => void showInGraph(conflict) },
    }, "Show in the memory graph")));
}

function sideBox(conflict: Conflict, side: Side, picked: Choice | undefined): HTMLElement {
  const state = !picked ? "" : picked.keep === side.id ? " chosen" : picked.supersede.includes(side.id) ? " dropped" : "";
  const lone = conflict.sides.length === 1;
  const writable = queue?.access !== "read";
  return h("section", { class: `side${state}`, "data-side": side.id },
    h("div", { class: "content" }, side.content),
    h("div", { class: "meta" },
      side.stored === false ? `proposed by ${side.createdBy}, never stored` : `by ${side.createdBy}`,
      ` · ${ago(side.createdAt, host?.locale)}`, side.type ? ` · ${side.type}` : ""),
    h("span", { class: "grow" }),
    h("div", { class: "row" },
      h("button", {
        disabled: busy || !writable,
        on: { click: () => pick(conflict, side.id, conflict.sides.filter((s) => s.id !== side.id).map((s) => s.id)) },
      }, lone ? "Keep it" : "Keep this"),
      lone ? h("button", {
        disabled: busy || !writable, on: { click: () => pick(conflict, null, [side.id]) },
      }, "Retire it") : null));
}

function pick(conflict: Conflict, keep: string | null, supersede: string[]): void {
  choice = { conflict, keep, supersede };
  render();
  focusInPlace(list.querySelector<HTMLButtonElement>(`[data-conflict="${conflict.id}"] button.primary`));
}

function confirmBar(picked: Choice): HTMLElement {
  const kept = picked.conflict.sides.find((s) => s.id === picked.keep);
  const reason = h("input", {
    type: "text", "aria-label": "Reason", maxlength: 500,
    value: kept ? "settled in the Conflicts view: this side holds" : "settled in the Conflicts view: it no longer holds",
  });
  const what = kept
    ? `Keep “${clip(kept.content)}”${picked.supersede.length ? ` and retire ${plural(picked.supersede.length, "other side")}` : ""}?`
    : "Retire it (it stays in the history as no longer true)?";
  return h("div", { class: "confirm" },
    h("div", {}, what),
    reason,
    h("div", { class: "row end" },
      h("button", { disabled: busy, on: { click: () => { choice = undefined; render(); } } }, "Cancel"),
      h("button", { class: "primary", disabled: busy, on: { click: () => void settle(picked, reason.value) } }, "Confirm")));
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

async function settle(picked: Choice, reason: string): Promise<void> {
  if (!host || busy || !queue) return;
  busy = true;
  render();
  fill(status, h("div", { class: "notice info" }, `Settling ${picked.conflict.id}…`));
  try {
    await host.call("resolve_conflict_ui", {
      conflictId: picked.conflict.id, keep: picked.keep, supersede: picked.supersede,
      reason, version: picked.conflict.version, space: queue.space,
    });
    fill(status, h("div", { class: "notice success" }, `Settled ${picked.conflict.id}; the reason is in both memories' history.`));
  } catch (error) {
    const message = errorMessage(error);
    const stale = message.includes("stale_version") || message.includes("changed since");
    fill(status, h("div", { class: "notice error" }, stale
      ? "This conflict changed since it was listed; here it is as it is now. Choose again." : message));
  } finally {
    choice = undefined;
    busy = false;
    await reload();
  }
}

async function reload(): Promise<void> {
  if (!host || !queue) return;
  try {
    const access = queue.access;
    queue = { ...(await host.call<Queue>("list_conflicts_ui", { space: queue.space, limit: 50 })), access };
  } catch (error) {
    fill(status, h("div", { class: "notice error" }, errorMessage(error)));
  }
  render();
}

/** Ask the host to show the graph around this conflict (a message to the conversation where
 * the host takes one, else a note for the model's next turn). */
async function showInGraph(conflict: Conflict): Promise<void> {
  if (!host || !queue) return;
  const ids = conflict.sides.filter((s) => s.stored !== false).map((s) => s.id);
  const text = `Show the memory graph of space '${queue.space}' (memory_graph_ui) around conflict `
    + `${conflict.id}: memories ${ids.join(", ")}.`;
  const can = host.app.getHostCapabilities();
  try {
    if (can?.message) await host.app.sendMessage({ role: "user", content: [{ type: "text", text }] });
    else if (can?.updateModelContext) await host.app.updateModelContext({ content: [{ type: "text", text }] });
    fill(status, h("div", { class: "notice info" }, "Asked for the memory graph around this conflict."));
  } catch (error) {
    fill(status, h("div", { class: "notice error" }, errorMessage(error)));
  }
}

connect("conflicts", {
  onResult: (data) => { if (host) { queue = data as Queue; render(); } else pending = data as Queue; },
  onFailure: (message) => fill(list, h("div", { class: "notice error" }, message)),
}).then((connected) => {
  host = connected;
  if (pending) queue = pending;
  render();
}, (error) => fill(list, h("div", { class: "notice error" }, `Could not reach the host: ${errorMessage(error)}`)));
