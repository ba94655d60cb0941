// The console's host page: an MCP Apps host in a plain browser tab. It is to the views what
// Claude or VS Code is: an MCP client of memspace's own /mcp (the SDK's Client, declaring MCP
// Apps) and the SDK's AppBridge to one view in a sandboxed frame. The view is the same built
// bundle every host gets, read from its ui:// resource; it calls only tools the server marks
// callable from an app, which the bridge forwards as the signed-in key.
//
// The page holds no key: /console/bearer gives it a short-lived bearer for its session
// (api/console.py), renewed before it runs out and on a 401.

import { AppBridge, PostMessageTransport, type McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from "@modelcontextprotocol/client";
import { byId, fill, h } from "../shared/dom";
import "./style.css";

interface Config {
  name: string;
  space: string;
  view: string;
  tool: string;
  uri: string;
  arguments: Record<string, string>;
  access: string;
  csrf: string;
  bearer: string;
  renewAfterS: number;
  views: { path: string; label: string; href: string }[];
}

const APPS_EXTENSION = "io.modelcontextprotocol/ui";
const APP_MIME_TYPE = "text/html;profile=mcp-app";
const config = JSON.parse(byId("console-config").textContent ?? "{}") as Config;
let bearer = config.bearer;

/** A fresh bearer for this session; a refusal means the session ended: back to sign-in. */
async function renewBearer(): Promise<void> {
  const answer = await fetch("/console/bearer", {
    method: "POST", credentials: "same-origin", headers: { "X-Memspace-CSRF": config.csrf },
  });
  if (!answer.ok) {
    window.location.assign("/console");
    throw new Error("the console session has ended");
  }
  bearer = ((await answer.json()) as { bearer: string }).bearer;
}

function layout(): { frame: HTMLIFrameElement; status: HTMLElement } {
  const status = h("p", { class: "status", role: "status" }, "Opening…");
  const frame = h("iframe", { id: "view", title: `${config.view} view`, sandbox: "allow-scripts allow-forms" });
  fill(byId("app"),
    h("header", {},
      h("a", { href: "/console", class: "home" }, "memspace"),
      h("span", { class: "space" }, config.space,
        config.access === "read" ? h("span", { class: "badge" }, "read only") : null),
      h("nav", { "aria-label": "Views" }, ...config.views.map((v) => h("a", {
        href: v.href, "aria-current": v.path === config.view ? "page" : null,
      }, v.label))),
      h("form", { method: "post", action: "/console/sign-out", class: "signout" },
        h("input", { type: "hidden", name: "csrf", value: config.csrf }),
        h("span", { class: "who" }, config.name),
        h("button", {}, "Sign out"))),
    status,
    h("div", { class: "frame" }, frame));
  return { frame, status };
}

/** The view's CSP from the domains its resource declares (MCP Apps: the host applies it). */
function viewCsp(csp: { connectDomains?: string[]; resourceDomains?: string[] }): string {
  const list = (domains?: string[]) => (domains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `connect-src ${list(csp.connectDomains) || "'none'"}`,
    `img-src data: ${list(csp.resourceDomains)}`,
    "frame-src 'none'", "object-src 'none'", "base-uri 'none'",
  ].join("; ");
}

async function allTools(client: Client): Promise<Map<string, Tool>> {
  const tools = new Map<string, Tool>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    for (const tool of page.tools) tools.set(tool.name, tool);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function visibility(tool: Tool | undefined): string[] {
  const ui = (tool?._meta as { ui?: { visibility?: string[] } } | undefined)?.ui;
  return ui?.visibility ?? ["model", "app"];
}

function hostContext(tool: Tool): McpUiHostContext {
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  return {
    theme: dark ? "dark" : "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxHeight: 4000 },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web",
    toolInfo: { tool },
  };
}

async function open(): Promise<void> {
  const { frame, status } = layout();
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", window.location.origin), {
    authProvider: { token: async () => bearer, onUnauthorized: async () => renewBearer() },
  });
  const client = new Client({ name: "memspace-console", version: "1.0.0" }, {
    capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } },
  });
  await client.connect(transport);
  window.setInterval(() => { renewBearer().catch(() => undefined); }, config.renewAfterS * 1000);
  const tools = await allTools(client);
  const launcher = tools.get(config.tool);
  if (!launcher) throw new Error(`the server offers no ${config.tool}`);
  const result = await client.callTool({ name: config.tool, arguments: config.arguments }) as CallToolResult;
  const read = await client.readResource({ uri: config.uri });
  const resource = read.contents[0] as { text?: string; _meta?: { ui?: { csp?: object } } };
  const csp = resource._meta?.ui?.csp ?? {};
  const bridge = new AppBridge(null, { name: "memspace-console", version: "1.0.0" },
    { serverTools: {}, logging: {}, sandbox: { csp } }, { hostContext: hostContext(launcher) });
  // As any host must: a view may call only the tools its server lets apps call.
  bridge.oncalltool = async (params) => {
    if (!visibility(tools.get(params.name)).includes("app")) {
      throw new Error(`${params.name} is not callable from a view`);
    }
    return await client.callTool(params) as CallToolResult;
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  bridge.onloggingmessage = () => undefined;
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: config.arguments });
    await bridge.sendToolResult(result);
    fill(status);
    document.body.dataset.ready = "true";
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${viewCsp(csp)}">`;
  frame.srcdoc = (resource.text ?? "").replace(/<head>/i, () => `<head>${meta}`);
}

open().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  fill(byId("app"), h("p", { class: "error", role: "alert" }, `The view could not open: ${message}`),
    h("p", {}, h("a", { href: "/console" }, "Back to your spaces")));
});
