// The test host's MCP Apps side, on the SDK's own host implementation: AppBridge and
// PostMessageTransport from @modelcontextprotocol/ext-apps (the package real hosts build on).
// Bundled into host-bridge.js by build-host.mjs; host.html loads that bundle.
//
// The page renders a view in a sandboxed iframe under the CSP its resource declares (the
// bridge leaves CSP to the host), and the bridge answers the view: ui/initialize with host
// context and capabilities, tool input and result once the view says it is initialized,
// tools/call forwarded to the real server (window.memspaceCallTool is a Playwright binding to
// the Python test, which calls the server over MCP), ui/update-model-context, size changes, and
// host-context changes for the theme. Every message either way is kept in window.traffic.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.traffic = [];
window.modelContext = null;
let bridge = null;
let context = null;  // the host context the bridge last sent; setHostContext diffs against it
let initialized = false;

// The spec's CSP for a view, built from the domains its resource declares (nothing else).
function viewCsp(csp) {
  const list = (domains) => (domains || []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${list(csp.resourceDomains)}`,
    `font-src 'self' ${list(csp.resourceDomains)}`,
    `media-src 'self' data: ${list(csp.resourceDomains)}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ].join("; ");
}

/** The SDK's transport, recording what it sends and receives for the assertions. */
class RecordingTransport extends PostMessageTransport {
  async send(message, options) {
    window.traffic.push({ direction: "host->view", ...message });
    return super.send(message, options);
  }
}

function record(frame) {
  window.addEventListener("message", (event) => {
    if (event.source === frame.contentWindow && event.data?.jsonrpc === "2.0") {
      window.traffic.push({ direction: "view->host", ...event.data });
    }
  });
}

function applyTheme(context) {
  document.body.classList.toggle("dark", context.theme === "dark");
}

// Called by the test: a bridge for this view, then the view's HTML with its CSP.
window.startView = async (config) => {
  if (bridge) await bridge.close();
  initialized = false;
  context = config.hostContext;
  const frame = document.getElementById("view");
  document.getElementById("tool-name").textContent = config.toolName;
  applyTheme(config.hostContext);
  bridge = new AppBridge(
    null,  // no MCP client in the page: tools/call goes to the Python test's client
    { name: "memspace-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {}, updateModelContext: { text: {} }, sandbox: { csp: config.csp } },
    { hostContext: config.hostContext },
  );
  bridge.oncalltool = async (params) => {
    const answer = await window.memspaceCallTool(params.name, params.arguments || {});
    if (answer.rpcError) throw new Error(answer.rpcError);
    return answer.result;
  };
  bridge.onupdatemodelcontext = async (params) => {
    window.modelContext = params;
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.min(height, 900)}px`;
  };
  bridge.onloggingmessage = () => {};
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: config.toolInput });
    await bridge.sendToolResult(config.toolResult);
    initialized = true;
  };
  await bridge.connect(new RecordingTransport(frame.contentWindow, frame.contentWindow));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${viewCsp(config.csp)}">`;
  frame.srcdoc = config.html.replace(/<head>/i, () => `<head>${meta}`);
};

window.changeContext = (partial) => {
  context = { ...context, ...partial };
  applyTheme(context);
  bridge.setHostContext(context);
};

window.isInitialized = () => initialized;

record(document.getElementById("view"));
