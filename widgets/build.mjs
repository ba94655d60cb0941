// Builds each view (src/<view>/main.ts) into ONE self-contained HTML file, CSS and JS inline,
// written to ../src/memspace/widgets/<view>.html so the Python package ships it. Hosts block
// CDNs and remote scripts, so nothing may be loaded from anywhere.
//
//   node build.mjs           build, and record the hash of the sources it built from
//   node build.mjs --check   exit 1 when the sources changed since the last build (no deps)

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const OUT = join(HERE, "..", "src", "memspace", "widgets");
const STAMP = join(OUT, "sources.sha256");
const VIEWS = {
  "space-picker": "Memory spaces",
  "guided-save": "Save a memory",
  upload: "Upload a file",
  "memory-graph": "Memory graph",
  conflicts: "Conflicts",
  // Not a view: the host page of the browser console (api/console.py), built the same way so
  // its one inline script has a fixed hash the server's CSP can name.
  console: "memspace console",
};
// Safe by construction: no view turns a string into markup or code.
const FORBIDDEN = /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(/;

function sourceFiles(dir = join(HERE, "src")) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** One digest over every input of the build, so a stale HTML file is detectable without Node deps. */
function sourcesDigest() {
  const inputs = [...sourceFiles(), ...["build.mjs", "package-lock.json", "tsconfig.json"].map((f) => join(HERE, f))];
  const hash = createHash("sha256");
  for (const file of inputs.map((f) => relative(HERE, f)).sort()) {
    hash.update(`${file}\0`).update(readFileSync(join(HERE, file))).update("\0");
  }
  return hash.digest("hex");
}

function recordedDigest() {
  try {
    return readFileSync(STAMP, "utf8").trim();
  } catch {
    return "";
  }
}

/** Inline text must not close its own <script>/<style> element or open an HTML comment. */
function inlineSafe(code, element) {
  const escaped = element === "script"
    ? code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--")
    : code.replace(/<\/(style)/gi, "<\\/$1");
  if (new RegExp(`</${element}`, "i").test(escaped)) throw new Error(`</${element} left in inline ${element}`);
  return escaped;
}

function page(title, css, js) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${inlineSafe(css, "style")}</style>
</head>
<body>
<main id="app"></main>
<script type="module">${inlineSafe(js, "script")}</script>
</body>
</html>
`;
}

// zod (a dependency of the App SDK) re-exports every locale it has; the views only ever show
// our own messages, so only English is bundled. Saves ~250 KB per view.
const englishOnlyZod = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${"node_modules"}/zod/`) ? { path: "zod-locales", namespace: "english-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: HERE,
    }));
  },
};

async function build() {
  const esbuild = await import("esbuild");
  for (const file of sourceFiles()) {
    if (FORBIDDEN.test(readFileSync(file, "utf8"))) {
      throw new Error(`${relative(HERE, file)} builds markup or code from strings; use shared/dom.ts`);
    }
  }
  mkdirSync(OUT, { recursive: true });
  for (const [view, title] of Object.entries(VIEWS)) {
    const result = await esbuild.build({
      entryPoints: { main: join(HERE, "src", view, "main.ts") },
      bundle: true,
      minify: true,
      format: "esm",
      target: "es2022",
      legalComments: "none",
      outdir: "out",
      write: false,
      logLevel: "warning",
      plugins: [englishOnlyZod],
    });
    const text = (ext) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? "";
    const html = page(title, text(".css"), text(".js"));
    writeFileSync(join(OUT, `${view}.html`), html);
    console.log(`${view}.html  ${(html.length / 1024).toFixed(1)} KB`);
  }
  writeFileSync(STAMP, `${sourcesDigest()}\n`);
}

if (process.argv.includes("--check")) {
  if (sourcesDigest() !== recordedDigest()) {
    console.error("widgets: sources changed since the built HTML was made; run `make widgets`");
    process.exit(1);
  }
} else {
  await build();
}
