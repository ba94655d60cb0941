// Talking to the MCP Apps host with the official App SDK: the ui/initialize handshake, the
// host's theme, the launcher tool's input and result, and calls to memspace's own tools (the
// host forwards them to the server the view came from, and to no other).

import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import type { CallToolResult } from "@modelcontextprotocol/client";

const VERSION = "0.1.0";

/** A tool answered `isError`; `message` is the server's text, written to be read by a person. */
export class ToolFailed extends Error {}

export interface LaunchHooks {
  /** The arguments the model passed to the tool that opened this view. */
  onInput?(args: Record<string, unknown>): void;
  /** That tool's structuredContent, once it finished. */
  onResult?(data: unknown): void;
  /** That tool failed or was cancelled: `message` says why. */
  onFailure?(message: string): void;
}

export interface Host {
  app: App;
  locale: string | undefined;
  /** Call one of memspace's tools; resolves to its structuredContent, rejects with ToolFailed. */
  call<T>(name: string, args?: Record<string, unknown>): Promise<T>;
}

export function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
}

/** Connect to the host. Handlers are registered before the handshake so none is missed. */
export async function connect(viewName: string, hooks: LaunchHooks): Promise<Host> {
  const app = new App({ name: `memspace-${viewName}`, version: VERSION }, {}, { autoResize: true });
  app.addEventListener("hostcontextchanged", applyContext);
  app.addEventListener("toolinput", (params) => hooks.onInput?.(params.arguments ?? {}));
  app.addEventListener("toolresult", (result) => {
    if (result.isError) hooks.onFailure?.(resultText(result) || "the tool failed");
    else hooks.onResult?.(result.structuredContent ?? {});
  });
  app.addEventListener("toolcancelled", (params) =>
    hooks.onFailure?.(params.reason ? `cancelled: ${params.reason}` : "cancelled"),
  );
  await app.connect();
  applyContext(app.getHostContext() ?? {});
  return {
    app,
    locale: app.getHostContext()?.locale,
    async call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
      const result = await app.callServerTool({ name, arguments: args });
      if (result.isError) throw new ToolFailed(resultText(result) || `${name} failed`);
      return (result.structuredContent ?? {}) as T;
    },
  };
}

/** Follow the host's look: light/dark, its CSS variables and fonts, a fixed container height. */
function applyContext(context: Partial<McpUiHostContext>): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  const dimensions = context.containerDimensions;
  if (dimensions && "height" in dimensions) {
    document.documentElement.style.setProperty("--container-height", `${dimensions.height}px`);
    document.documentElement.classList.add("fixed-height");
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
