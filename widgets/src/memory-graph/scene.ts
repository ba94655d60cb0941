// The force-directed graph on a canvas: d3-force lays memories out, one requestAnimationFrame
// loop ticks the simulation and draws. Canvas, not SVG or DOM nodes, so 500 nodes and their
// edges stay smooth; text drawn here is fillText, never markup.

import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY, type Simulation } from "d3-force";
import { paint, type GraphLink, type GraphNode } from "./draw";
import { readTheme, type Theme } from "./palette";

export type { GraphLink, GraphNode } from "./draw";

/** User Timing entry per animated frame (tick + draw); devtools and the browser test read it. */
export const FRAME_MEASURE = "memspace-graph-frame";
const CLICK_SLOP_PX = 4; // a press that moves less than this is a click, not a drag

export class Scene {
  readonly canvas = document.createElement("canvas");
  onSelect: (node: GraphNode | undefined) => void = () => {};
  onBusy: (busy: boolean) => void = () => {};
  private readonly ctx: CanvasRenderingContext2D;
  private readonly simulation: Simulation<GraphNode, GraphLink>;
  private readonly linkForce = forceLink<GraphNode, GraphLink>().id((n) => n.id).distance(26).strength(0.7);
  private nodes: GraphNode[] = [];
  private links: GraphLink[] = [];
  private view = { x: 0, y: 0, k: 1 }; // screen = world * k + (x, y)
  private size = { width: 0, height: 0, ratio: 1 };
  private theme: Theme = readTheme();
  private hovered: GraphNode | undefined;
  private centred: GraphNode | undefined; // what Enter on the focused canvas opens
  private selected: GraphNode | undefined;
  private matches: Set<string> | null = null;
  private neighbourhood = new Set<string>(); // the selected node and its direct links, never dimmed
  private fitted = false; // the user moved the view: stop fitting it to the layout
  private dirty = true;
  private busy = false;
  private press: { x: number; y: number; node?: GraphNode; moved: boolean; view: { x: number; y: number } } | undefined;

  constructor() {
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("this browser has no 2D canvas");
    this.ctx = ctx;
    // Charge pushes apart, links pull related facts together, a weak pull to the centre keeps
    // unrelated facts (most of a space) in one disc instead of drifting away.
    this.simulation = forceSimulation<GraphNode, GraphLink>()
      .force("charge", forceManyBody<GraphNode>().strength(-26).distanceMax(260))
      .force("link", this.linkForce)
      .force("collide", forceCollide<GraphNode>((n) => n.r + 1.5))
      .force("x", forceX<GraphNode>(0).strength(0.06))
      .force("y", forceY<GraphNode>(0).strength(0.06))
      .stop(); // ticked by our own frame loop, so a frame's work is measurable as one unit
    this.listen();
    new MutationObserver(() => { this.theme = readTheme(); this.dirty = true; })
      .observe(document.documentElement, { attributes: true, attributeFilter: ["style", "data-theme", "class"] });
    requestAnimationFrame(this.loop);
  }

  setData(nodes: GraphNode[], links: GraphLink[]): void {
    performance.clearMeasures(FRAME_MEASURE);
    this.nodes = nodes;
    this.links = links;
    this.simulation.nodes(nodes);
    this.linkForce.links(links);
    this.simulation.alpha(1);
    this.fitted = false;
    this.dirty = true;
  }

  resize(width: number, height: number): void {
    const ratio = window.devicePixelRatio || 1;
    this.size = { width, height, ratio };
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.dirty = true;
  }

  /** Highlight these memory ids and dim the rest; null clears the search. */
  highlight(ids: Set<string> | null): void {
    this.matches = ids;
    this.dirty = true;
  }

  /** Bring a node to the middle of the view, zoomed in enough to click it. */
  centre(id: string): void {
    const node = this.nodes.find((n) => n.id === id);
    if (!node || node.x === undefined || node.y === undefined) return;
    const k = Math.max(this.view.k, 1.6);
    this.view = { k, x: this.size.width / 2 - node.x * k, y: this.size.height / 2 - node.y * k };
    this.centred = node;
    this.fitted = true;
    this.dirty = true;
  }

  /** Pan, if needed, so a node is not hidden under `coveredRight` pixels at the right edge. */
  reveal(id: string, coveredRight: number): void {
    const node = this.nodes.find((n) => n.id === id);
    if (!node || node.x === undefined || node.y === undefined) return;
    const visible = this.size.width - coveredRight;
    const sx = node.x * this.view.k + this.view.x;
    if (sx < visible - 60) return;
    this.view.x += visible / 2 - sx;
    this.fitted = true;
    this.dirty = true;
  }

  select(id: string | undefined): void {
    this.selected = id ? this.nodes.find((n) => n.id === id) : undefined;
    this.neighbourhood = new Set(id ? [id] : []);
    for (const l of this.links) {
      if (l.source.id === id) this.neighbourhood.add(l.target.id);
      if (l.target.id === id) this.neighbourhood.add(l.source.id);
    }
    this.dirty = true;
    this.onSelect(this.selected);
  }

  private loop = (): void => {
    requestAnimationFrame(this.loop);
    const hot = this.simulation.alpha() > this.simulation.alphaMin();
    if (hot !== this.busy) this.onBusy((this.busy = hot));
    if (!hot && !this.dirty) return;
    const start = performance.now();
    if (hot) {
      this.simulation.tick();
      if (!this.fitted) this.fit();
    }
    this.draw();
    this.dirty = false;
    if (hot) performance.measure(FRAME_MEASURE, { start });
  };

  /** Zoom and pan so the whole layout fits, while it is still moving and the user has not. */
  private fit(): void {
    if (!this.nodes.length) return;
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const n of this.nodes) {
      x0 = Math.min(x0, n.x ?? 0); y0 = Math.min(y0, n.y ?? 0);
      x1 = Math.max(x1, n.x ?? 0); y1 = Math.max(y1, n.y ?? 0);
    }
    const pad = 24;
    const k = Math.min(2, (this.size.width - 2 * pad) / Math.max(1, x1 - x0), (this.size.height - 2 * pad) / Math.max(1, y1 - y0));
    this.view = { k, x: this.size.width / 2 - ((x0 + x1) / 2) * k, y: this.size.height / 2 - ((y0 + y1) / 2) * k };
  }

  private draw(): void {
    paint(this.ctx, {
      nodes: this.nodes, links: this.links, view: this.view, size: this.size, theme: this.theme,
      selected: this.selected, hovered: this.hovered, matches: this.matches, neighbourhood: this.neighbourhood,
    });
  }

  private nodeAt(sx: number, sy: number): GraphNode | undefined {
    const wx = (sx - this.view.x) / this.view.k, wy = (sy - this.view.y) / this.view.k;
    let best: GraphNode | undefined;
    let bestDistance = Infinity;
    for (const node of this.nodes) {
      const d = Math.hypot((node.x ?? 0) - wx, (node.y ?? 0) - wy);
      if (d < node.r + 4 / this.view.k && d < bestDistance) [best, bestDistance] = [node, d];
    }
    return best;
  }

  private listen(): void {
    const c = this.canvas;
    c.tabIndex = 0; // keyboard: search + Enter centres a memory, then Enter here opens it
    c.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") this.select(this.centred?.id ?? this.selected?.id);
      else if (e.key === "Escape") this.select(undefined);
      else return;
      e.preventDefault();
    });
    const point = (e: PointerEvent | WheelEvent) => {
      const box = c.getBoundingClientRect();
      return { x: e.clientX - box.left, y: e.clientY - box.top };
    };
    c.addEventListener("pointerdown", (e) => {
      const p = point(e);
      c.setPointerCapture(e.pointerId);
      this.press = { ...p, node: this.nodeAt(p.x, p.y), moved: false, view: { x: this.view.x, y: this.view.y } };
    });
    c.addEventListener("pointermove", (e) => {
      const p = point(e);
      const press = this.press;
      if (!press) {
        const over = this.nodeAt(p.x, p.y);
        if (over !== this.hovered) [this.hovered, this.dirty] = [over, true];
        c.style.cursor = over ? "pointer" : "grab";
        return;
      }
      press.moved ||= Math.hypot(p.x - press.x, p.y - press.y) > CLICK_SLOP_PX;
      if (!press.moved) return;
      if (press.node) { // drag a fact; the layout follows
        press.node.fx = (p.x - this.view.x) / this.view.k;
        press.node.fy = (p.y - this.view.y) / this.view.k;
        this.simulation.alphaTarget(0.25).alpha(Math.max(this.simulation.alpha(), 0.25));
      } else { // pan
        this.view.x = press.view.x + p.x - press.x;
        this.view.y = press.view.y + p.y - press.y;
      }
      this.fitted = true;
      this.dirty = true;
    });
    c.addEventListener("pointerup", () => {
      const press = this.press;
      this.press = undefined;
      if (!press) return;
      if (press.node) {
        press.node.fx = press.node.fy = null;
        this.simulation.alphaTarget(0);
      }
      if (!press.moved) this.select(press.node?.id);
    });
    c.addEventListener("pointerleave", () => { this.hovered = undefined; this.dirty = true; });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const p = point(e);
      const k = Math.min(8, Math.max(0.15, this.view.k * Math.exp(-e.deltaY * 0.0015)));
      this.view.x = p.x - ((p.x - this.view.x) * k) / this.view.k;
      this.view.y = p.y - ((p.y - this.view.y) * k) / this.view.k;
      this.view.k = k;
      this.fitted = true;
      this.dirty = true;
    }, { passive: false });
  }
}
