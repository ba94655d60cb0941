// Bundles host-bridge.mjs (the test host's side of MCP Apps, on the SDK's AppBridge) into
// host-bridge.js, which host.html loads. The bundle is committed, like the built views, so the
// browser tests need no npm; its first line names the ext-apps version and the digest of the
// sources it was built from, and tests/browser/test_host_bridge.py fails when
// widgets/package-lock.json pins another version or the sources changed since.
//
//   node tests/browser/build-host.mjs      (after `cd widgets && npm ci`)

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const MODULES = join(HERE, "..", "..", "widgets", "node_modules");
const require = createRequire(join(MODULES, "noop.js"));
const esbuild = require("esbuild");
const version = JSON.parse(
  readFileSync(join(MODULES, "@modelcontextprotocol", "ext-apps", "package.json"), "utf8"),
).version;

// As in widgets/build.mjs: zod re-exports every locale; the host shows no zod messages.
const englishOnlyZod = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("node_modules/zod/") ? { path: "zod-locales", namespace: "english-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: MODULES,
    }));
  },
};

const result = await esbuild.build({
  entryPoints: [join(HERE, "host-bridge.mjs")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  nodePaths: [MODULES],
  write: false,
  logLevel: "warning",
  plugins: [englishOnlyZod],
});
const digest = createHash("sha256");
for (const file of ["host-bridge.mjs", "build-host.mjs"]) digest.update(readFileSync(join(HERE, file)));
const header = `// @modelcontextprotocol/ext-apps ${version} sources sha256:${digest.digest("hex")} — ` +
  "built by tests/browser/build-host.mjs; do not edit\n";
writeFileSync(join(HERE, "host-bridge.js"), header + result.outputFiles[0].text);
console.log(`host-bridge.js  ext-apps ${version}  ${(result.outputFiles[0].text.length / 1024).toFixed(1)} KB`);
