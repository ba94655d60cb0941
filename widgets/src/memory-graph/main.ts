// Memory graph: a space's memories as a force-directed graph (colour = category, arrows =
// UPDATES / EXTENDS / DERIVES, faded = superseded or forgotten); search, and click a fact to
// see its history and source.

import "../shared/base.css";
import "./style.css";
import { byId, fill, h } from "../shared/dom";
import { plural } from "../shared/format";
import { connect, errorMessage, type Host } from "../shared/host";
import type { Handoff, Memory, MemoryDetail, Relation } from "../shared/types";
import { DetailPanel } from "./detail";
import { categoryColours, OTHER } from "./palette";
import { Scene, type GraphLink, type GraphNode } from "./scene";
import { TimeBar, type Slice } from "./timebar";

interface Launch { space: string }
interface Graph extends Slice {
  space: string; nodes: Memory[]; edges: Relation[]; truncated: boolean; latestHandoff: Handoff | null;
}

const GRAPH_HEIGHT = 520;
const LEGEND_CATEGORIES = 8;
const root = byId<HTMLElement>("app");
const summary = h("span", { class: "sub" });
const search = h("input", { type: "search", placeholder: "Search memories…", "aria-label": "Search memories" });
const matchCount = h("span", { class: "hint", "aria-live": "polite" });
const handoffButton = h("button", { class: "handoff", hidden: true }, "Latest handoff");
const legend = h("div", { class: "legend" });
const scene = new Scene();
const stage = h("div", { class: "stage", "aria-busy": "true" });
const status = h("div", { class: "stage-status" }, "Loading…");
scene.canvas.setAttribute("role", "application");
scene.canvas.setAttribute("aria-roledescription", "memory graph");
stage.append(scene.canvas, status);
const timebar = new TimeBar();
// The time bar comes before the search: Tab from the search reaches the graph (keyboard use).
fill(root,
  h("header", { class: "view" }, h("h1", {}, "Memory graph"), summary, handoffButton, h("span", { class: "grow" }),
    timebar.element, h("div", { class: "search" }, search, matchCount)),
  timebar.banner, legend, stage);

let host: Host | undefined;
let pending: Launch | undefined; // the launcher's result can arrive before connect() resolves
let known = new Map<string, Memory>();
let nodes: GraphNode[] = [];
let detail: DetailPanel | undefined;
let asked = 0; // the latest detail request; older answers are dropped
let space = "";
let knownAt: string | undefined; // the slice drawn: a memory's details are read as of it too

function edgeSample(type: string, label: string): HTMLElement {
  return h("span", { class: "legend-item" }, h("span", { class: `edge-sample ${type.toLowerCase()}` }), label);
}

function renderLegend(colours: Map<string, string>, counts: Map<string, number>): void {
  const shown = [...colours.entries()].slice(0, LEGEND_CATEGORIES);
  fill(legend,
    ...shown.map(([category, colour]) => h("span", { class: "legend-item" },
      h("span", { class: "dot", style: `background:${colour}` }), category,
      h("span", { class: "hint" }, String(counts.get(category) ?? 0)))),
    colours.size > LEGEND_CATEGORIES
      ? h("span", { class: "legend-item" }, h("span", { class: "dot", style: `background:${OTHER}` }), "other") : null,
    h("span", { class: "grow" }),
    edgeSample("UPDATES", "updates"), edgeSample("EXTENDS", "extends"), edgeSample("DERIVES", "derives"),
    h("span", { class: "legend-item" }, h("span", { class: "dot hollow" }), "superseded"));
}

function show(graph: Graph): void {
  known = new Map(graph.nodes.map((m) => [m.id, m]));
  const colours = categoryColours(graph.nodes.map((m) => m.category));
  const counts = new Map<string, number>();
  for (const m of graph.nodes) counts.set(m.category, (counts.get(m.category) ?? 0) + 1);
  const degree = new Map<string, number>();
  for (const e of graph.edges) for (const id of [e.from ?? "", e.to]) degree.set(id, (degree.get(id) ?? 0) + 1);
  // With "as of" alone the versions that held then are drawn, and their statuses are today's:
  // none is faded as superseded (that is today's word). With "known at" the statuses are the
  // record's as it stood then, and are drawn as they are.
  const past = Boolean(graph.asOf) && !graph.knownAt;
  knownAt = graph.knownAt;
  nodes = graph.nodes.map((memory) => ({
    id: memory.id, memory: past ? { ...memory, active: true } : memory, colour: colours.get(memory.category) ?? OTHER,
    r: 4.5 + Math.min(4, 1.3 * Math.sqrt(degree.get(memory.id) ?? 0)),
  }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const links: GraphLink[] = graph.edges.flatMap((e) => {
    const source = byId.get(e.from ?? ""), target = byId.get(e.to);
    return source && target ? [{ source, target, type: e.type }] : [];
  });
  const inactive = past ? 0 : graph.nodes.filter((m) => !m.active).length;
  summary.textContent = `${graph.space} · ${plural(graph.nodes.length, "memory", "memories")}`
    + (inactive ? ` (${inactive} superseded)` : "") + ` · ${plural(links.length, "relation")}`
    + (graph.truncated ? " · newest only" : "");
  scene.canvas.setAttribute("aria-label", `Graph of ${summary.textContent}. Search to centre a `
    + "memory, then press Enter here to open it.");
  renderLegend(colours, counts);
  timebar.showing(graph);
  status.textContent = graph.nodes.length ? ""
    : graph.asOf || graph.knownAt ? "No memories in this slice of time." : "No memories in this space yet.";
  scene.setData(nodes, links);
  const handoff = graph.latestHandoff;
  handoffButton.hidden = !handoff;
  handoffButton.onclick = handoff ? () => { scene.select(undefined); asked++; detail?.showHandoff(handoff); } : null;
  if (handoff) handoffButton.title = `${handoff.agent} on ${handoff.topic}: ${handoff.summary}`;
}

let drawn = 0; // the latest graph request; older answers are dropped

async function draw(connected: Host, slice: Slice): Promise<void> {
  const call = ++drawn;
  stage.setAttribute("aria-busy", "true");
  try {
    const graph = await connected.call<Graph>("graph_data_ui", { space, ...slice });
    if (call !== drawn) return;
    scene.select(undefined);
    detail?.hide();
    show(graph);
  } catch (error) {
    if (call !== drawn) return;
    stage.setAttribute("aria-busy", "false");
    status.textContent = errorMessage(error);
  }
}

async function load(connected: Host): Promise<void> {
  detail = new DetailPanel(connected.locale);
  detail.onClose = () => scene.select(undefined);
  detail.onNavigate = (id) => {
    scene.select(id);
    scene.centre(id);
  };
  stage.append(detail.element);
  timebar.locale = connected.locale;
  timebar.onChange = (slice) => void draw(connected, slice);
  await draw(connected, {});
}

scene.onBusy = (busy) => stage.setAttribute("aria-busy", String(busy));
scene.onSelect = (node) => {
  if (!node || !host || !detail) return detail?.hide();
  const panel = detail;
  const call = ++asked;
  panel.loading(node.memory);
  scene.reveal(node.id, panel.element.offsetWidth + 20);
  host.call<MemoryDetail>("memory_detail_ui", { memoryId: node.id, space, ...(knownAt ? { knownAt } : {}) })
    .then((d) => { if (call === asked) panel.show(d, known); },
      (error) => { if (call === asked) panel.error(node.memory, errorMessage(error)); });
};

function matching(): Set<string> | null {
  const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  return new Set(nodes.filter((n) => {
    const text = `${n.memory.content} ${n.memory.category}`.toLowerCase();
    return words.every((w) => text.includes(w));
  }).map((n) => n.id));
}

search.addEventListener("input", () => {
  const found = matching();
  scene.highlight(found);
  matchCount.textContent = found ? plural(found.size, "match", "matches") : "";
});
search.addEventListener("keydown", (event) => {
  if (event.key !== "Enter") return;
  const first = nodes.find((n) => matching()?.has(n.id));
  if (first) scene.centre(first.id);
});

new ResizeObserver(() => {
  const fixed = document.documentElement.classList.contains("fixed-height");
  const height = fixed ? Math.max(240, window.innerHeight - stage.offsetTop - 16) : GRAPH_HEIGHT;
  scene.resize(stage.clientWidth, height);
}).observe(stage);

function start(launch: Launch, connected: Host): void {
  space = launch.space;
  void load(connected);
}

connect("memory-graph", {
  onResult: (data) => { if (host) start(data as Launch, host); else pending = data as Launch; },
  onFailure: (message) => { status.textContent = message; },
}).then((connected) => {
  host = connected;
  if (pending) start(pending, connected);
}, (error) => { status.textContent = `Could not reach the host: ${errorMessage(error)}`; });
