// Space picker: the key's spaces with access level and activity; choosing one makes it the
// key's active space, so the agents' next calls without `space` act on it.

import "../shared/base.css";
import "./style.css";
import { byId, fill, h } from "../shared/dom";
import { ago, plural } from "../shared/format";
import { connect, errorMessage, type Host } from "../shared/host";
import type { Space } from "../shared/types";

interface Listing {
  spaces: Space[];
  activeSpace?: string;
}

const root = byId<HTMLElement>("app");
const search = h("input", { type: "search", placeholder: "Filter spaces…", "aria-label": "Filter spaces" });
const list = h("div", { class: "spaces", role: "listbox", "aria-label": "Spaces" });
const status = h("div", { role: "status" });
const count = h("span", { class: "sub" });
let spaces: Space[] = [];
let host: Host | undefined;
let busy = false;
let pending: Listing | undefined; // the launcher's result can arrive before connect() resolves

fill(root,
  h("header", { class: "view" }, h("h1", {}, "Memory spaces"), count),
  search, status, list);
list.append(h("div", { class: "loading" }, "Loading spaces…"));

search.addEventListener("input", render);
search.addEventListener("keydown", (event) => {
  if (event.key !== "Enter") return;
  const first = visible()[0];
  if (first) void choose(first);
});

function visible(): Space[] {
  const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
  return spaces.filter((s) => {
    const text = `${s.slug} ${s.name} ${s.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

function render(): void {
  count.textContent = plural(spaces.length, "space");
  const shown = visible();
  if (!shown.length) {
    fill(list, h("div", { class: "empty" }, spaces.length ? "No space matches." : "This key has no spaces."));
    return;
  }
  fill(list, ...shown.map(item));
}

function item(space: Space): HTMLElement {
  const title = h("div", { class: "title" },
    h("span", { class: "slug" }, space.slug),
    space.name !== space.slug ? h("span", { class: "name" }, space.name) : null,
    space.isActive ? h("span", { class: "badge success" }, "active") : null,
    space.isDefault ? h("span", { class: "badge" }, "default") : null,
    h("span", { class: "grow" }),
    h("span", { class: space.access === "readwrite" ? "badge info" : "badge" },
      space.access === "readwrite" ? "read & write" : "read only"));
  return h("button", {
    class: space.isActive ? "space current" : "space",
    role: "option",
    "aria-selected": space.isActive ? "true" : "false",
    "data-slug": space.slug,
    disabled: busy,
    on: { click: () => void choose(space) },
  },
    title,
    space.description ? h("div", { class: "description" }, space.description) : null,
    h("div", { class: "meta" },
      `${plural(space.activeMemories, "memory", "memories")} · ${plural(space.documents, "document")}`
      + ` · active ${ago(space.lastActiveAt, host?.locale)}`));
}

async function choose(space: Space): Promise<void> {
  if (!host || busy || space.isActive) return;
  busy = true;
  render();
  fill(status, h("div", { class: "notice info" }, `Switching to ${space.slug}…`));
  try {
    const answer = await host.call<Listing>("set_active_space_ui", { space: space.slug });
    spaces = answer.spaces;
    fill(status, h("div", { class: "notice success" },
      `Active space is now ${answer.activeSpace}. Your agents' next calls use it.`));
    await tellTheModel(host, `The user made '${answer.activeSpace}' the active memspace space.`);
  } catch (error) {
    fill(status, h("div", { class: "notice error" }, errorMessage(error)));
  } finally {
    busy = false;
    render();
  }
}

/** Hosts that accept context updates pass the switch on to the model's next turn. */
async function tellTheModel(connected: Host, text: string): Promise<void> {
  if (!connected.app.getHostCapabilities()?.updateModelContext) return;
  try {
    await connected.app.updateModelContext({ content: [{ type: "text", text }] });
  } catch {
    // Optional: the switch itself already happened on the server.
  }
}

function show(listing: Listing): void {
  spaces = listing.spaces ?? [];
  render();
}

connect("space-picker", {
  onResult: (data) => { if (host) show(data as Listing); else pending = data as Listing; },
  onFailure: (message) => fill(list, h("div", { class: "notice error" }, message)),
}).then((connected) => {
  host = connected;
  if (pending) show(pending);
  else render();
}, (error) => fill(list, h("div", { class: "notice error" }, `Could not reach the host: ${errorMessage(error)}`)));
