// Colours on the canvas. Categories get distinct hues (readable on light and dark); every
// other colour is read from the host's theme variables, so the graph follows the host.

// Tableau 10, in order of use: the most common category gets the first hue.
const HUES = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];
export const OTHER = "#8c8c8c";

export function categoryColours(categories: string[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const c of categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return new Map(ordered.map(([category], i) => [category, HUES[i] ?? OTHER]));
}

export interface Theme {
  background: string;
  text: string;
  muted: string;
  ring: string;
  edge: { UPDATES: string; EXTENDS: string; DERIVES: string };
}

function variable(style: CSSStyleDeclaration, name: string, fallback: string): string {
  return style.getPropertyValue(name).trim() || fallback;
}

/** Resolve the theme's colours now (canvas cannot use CSS variables directly). */
export function readTheme(): Theme {
  // A probe element resolves light-dark() and var() into a concrete colour.
  const probe = document.createElement("span");
  document.body.append(probe);
  const resolve = (value: string): string => {
    probe.style.color = value;
    return getComputedStyle(probe).color;
  };
  const root = getComputedStyle(document.documentElement);
  const theme: Theme = {
    background: resolve(variable(root, "--color-background-primary", "#ffffff")),
    text: resolve(variable(root, "--color-text-primary", "#1c1c1e")),
    muted: resolve(variable(root, "--color-text-tertiary", "#85858a")),
    ring: resolve(variable(root, "--color-ring-primary", "#3b6fd8")),
    edge: {
      UPDATES: resolve(variable(root, "--color-text-danger", "#b42318")),
      EXTENDS: resolve(variable(root, "--color-text-info", "#1f5fbf")),
      DERIVES: resolve(variable(root, "--color-text-warning", "#8a5a00")),
    },
  };
  probe.remove();
  return theme;
}
