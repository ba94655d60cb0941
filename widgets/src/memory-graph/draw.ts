// Painting one frame of the graph on the canvas: edges by type (solid, dashed, dotted, with
// arrow heads at the older fact), nodes by category (superseded ones hollow and faded), rings for
// the selection, hover and search matches, and a label for the node under attention.

import type { SimulationLinkDatum, SimulationNodeDatum } from "d3-force";
import type { Memory, RelationType } from "../shared/types";
import type { Theme } from "./palette";

export interface GraphNode extends SimulationNodeDatum {
  id: string;
  memory: Memory;
  colour: string;
  r: number;
}

export interface GraphLink extends SimulationLinkDatum<GraphNode> {
  source: GraphNode;
  target: GraphNode;
  type: RelationType;
}

export interface Frame {
  nodes: GraphNode[];
  links: GraphLink[];
  view: { x: number; y: number; k: number };
  size: { width: number; height: number; ratio: number };
  theme: Theme;
  selected: GraphNode | undefined;
  hovered: GraphNode | undefined;
  matches: Set<string> | null;
  neighbourhood: Set<string>; // the selected node and its direct links, never dimmed
}

const DASHES: Record<RelationType, number[]> = { UPDATES: [], EXTENDS: [5, 3], DERIVES: [1.5, 2.5] };
const LABEL_CHARS = 70;

export function paint(ctx: CanvasRenderingContext2D, f: Frame): void {
  const { width, height, ratio } = f.size;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = f.theme.background;
  ctx.fillRect(0, 0, width, height);
  ctx.translate(f.view.x, f.view.y);
  ctx.scale(f.view.k, f.view.k);
  links(ctx, f);
  nodes(ctx, f);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  for (const node of new Set([f.selected, f.hovered])) if (node) label(ctx, f, node);
}

function dimmed(f: Frame, node: GraphNode): boolean {
  return f.matches !== null && !f.matches.has(node.id) && !f.neighbourhood.has(node.id);
}

function links(ctx: CanvasRenderingContext2D, f: Frame): void {
  const near = (l: GraphLink) => l.source === f.selected || l.target === f.selected;
  for (const type of ["UPDATES", "EXTENDS", "DERIVES"] as const) {
    const ofType = f.links.filter((l) => l.type === type);
    stroke(ctx, f, ofType.filter((l) => !near(l)), type, f.matches ? 0.25 : 0.75, 1.3);
    stroke(ctx, f, ofType.filter(near), type, 1, 2.2);
  }
  ctx.globalAlpha = 1;
}

function stroke(ctx: CanvasRenderingContext2D, f: Frame, drawn: GraphLink[], type: RelationType,
  alpha: number, width: number): void {
  if (!drawn.length) return;
  const k = f.view.k;
  ctx.strokeStyle = ctx.fillStyle = f.theme.edge[type];
  ctx.lineWidth = width / k;
  ctx.setLineDash(DASHES[type].map((d) => d / k));
  ctx.globalAlpha = alpha;
  ctx.beginPath();
  const heads: [number, number, number][] = [];
  for (const { source: s, target: t } of drawn) {
    const dx = (t.x ?? 0) - (s.x ?? 0), dy = (t.y ?? 0) - (s.y ?? 0);
    const length = Math.hypot(dx, dy) || 1;
    // Edges run from the newer fact to the one it updates, extends or derives from.
    const ex = (t.x ?? 0) - (dx / length) * (t.r + 1), ey = (t.y ?? 0) - (dy / length) * (t.r + 1);
    ctx.moveTo(s.x ?? 0, s.y ?? 0);
    ctx.lineTo(ex, ey);
    heads.push([ex, ey, Math.atan2(dy, dx)]);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  const size = (4 + width) / k;
  for (const [x, y, angle] of heads) {
    ctx.moveTo(x, y);
    ctx.lineTo(x - size * Math.cos(angle - 0.42), y - size * Math.sin(angle - 0.42));
    ctx.lineTo(x - size * Math.cos(angle + 0.42), y - size * Math.sin(angle + 0.42));
    ctx.closePath();
  }
  ctx.fill();
}

function nodes(ctx: CanvasRenderingContext2D, f: Frame): void {
  const k = f.view.k;
  // Superseded and forgotten facts first and faded: history stays visible but behind.
  const ordered = [...f.nodes].sort((a, b) => Number(a.memory.active) - Number(b.memory.active));
  for (const node of ordered) {
    const x = node.x ?? 0, y = node.y ?? 0;
    ctx.globalAlpha = dimmed(f, node) ? 0.12 : node.memory.active ? 1 : 0.4;
    ctx.beginPath();
    ctx.arc(x, y, node.r, 0, 2 * Math.PI);
    ctx.fillStyle = node.memory.active ? node.colour : f.theme.background;
    ctx.fill();
    if (!node.memory.active) {
      ctx.strokeStyle = node.colour;
      ctx.lineWidth = 1.5 / k;
      ctx.stroke();
    }
    const ring = node === f.selected ? 3 : node === f.hovered || (f.matches?.has(node.id) ?? false) ? 2 : 0;
    if (ring) {
      ctx.globalAlpha = 1;
      ctx.strokeStyle = f.theme.ring;
      ctx.lineWidth = ring / k;
      ctx.beginPath();
      ctx.arc(x, y, node.r + (ring + 1) / k, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
}

/** The node's text in a pill next to it, in screen space; fillText draws characters, never markup. */
function label(ctx: CanvasRenderingContext2D, f: Frame, node: GraphNode): void {
  const content = node.memory.content;
  const text = content.length > LABEL_CHARS ? `${content.slice(0, LABEL_CHARS - 1)}…` : content;
  const sx = (node.x ?? 0) * f.view.k + f.view.x;
  const sy = (node.y ?? 0) * f.view.k + f.view.y;
  ctx.font = "12px system-ui, sans-serif";
  const width = Math.min(ctx.measureText(text).width + 12, f.size.width - 8);
  const left = Math.max(4, Math.min(sx + 10, f.size.width - width - 4));
  const top = Math.max(4, sy - 26);
  ctx.globalAlpha = 0.95;
  ctx.fillStyle = f.theme.text;
  ctx.beginPath();
  ctx.roundRect(left, top, width, 20, 5);
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.fillStyle = f.theme.background;
  ctx.fillText(text, left + 6, top + 14, width - 12);
}
