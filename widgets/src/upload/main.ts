// Upload: choose a PDF, CSV, Markdown or text file; it goes straight to the server over REST
// (never through the model's context), then the view follows it to `done` and shows the facts
// that came out.

import "../shared/base.css";
import "./style.css";
import { byId, fill, h } from "../shared/dom";
import { ago, bytes, plural } from "../shared/format";
import { connect, errorMessage, type Host } from "../shared/host";
import type { Access, DocumentInfo, Memory } from "../shared/types";
import { send, type Ticket } from "./send";

interface Launch { space: string; access: Access; maxBytes: number; recentDocuments: DocumentInfo[] }
interface Status { document: DocumentInfo; facts: Memory[] }

const ACCEPT = ".pdf,.csv,.tsv,.md,.markdown,.txt,.text";
const POLL_MS = 700; // one status call per poll; documents take seconds to minutes
const root = byId<HTMLElement>("app");
const spaceBadge = h("span", { class: "badge" });
const input = h("input", { type: "file", accept: ACCEPT, id: "file", class: "visually-hidden" });
const drop = h("label", { class: "drop", for: "file" },
  h("span", { class: "drop-title" }, "Drop a file here, or choose one"),
  h("span", { class: "hint" }, "PDF, CSV, Markdown or plain text"));
const chosen = h("div", { class: "chosen" });
const progress = h("div", { class: "progress", "aria-live": "polite" });
const facts = h("div", { class: "facts-out" });
const recent = h("div", { class: "recent" });
fill(root,
  h("header", { class: "view" }, h("h1", {}, "Upload to memory"), h("span", { class: "grow" }), spaceBadge),
  input, drop, chosen, progress, facts, recent);

let host: Host | undefined;
let launch: Launch | undefined;
let pending: Launch | undefined; // the launcher's result can arrive before connect() resolves

function choose(file: File | undefined): void {
  if (!file || !launch) return;
  fill(progress);
  fill(facts);
  if (file.size > launch.maxBytes) {
    fill(chosen, h("div", { class: "notice error" },
      `${file.name} is ${bytes(file.size)}; the server takes files up to ${bytes(launch.maxBytes)}.`));
    return;
  }
  const title = h("input", { type: "text", placeholder: file.name });
  const button = h("button", { class: "primary", type: "button" }, "Upload");
  button.addEventListener("click", () => { button.disabled = true; void upload(file, title.value); });
  fill(chosen, h("div", { class: "card file" },
    h("div", { class: "file-name" }, file.name), h("div", { class: "meta" }, bytes(file.size)),
    h("label", { class: "field" }, h("span", {}, "Title (optional)"), title),
    h("div", { class: "row end" }, button)));
}

function step(label: string, state: "done" | "active" | "todo" | "failed", detail = ""): HTMLElement {
  return h("li", { class: `step ${state}` }, h("span", { class: "mark" }), h("span", {}, label),
    detail ? h("span", { class: "hint" }, detail) : null);
}

function showProgress(sent: number, document?: DocumentInfo): void {
  const status = document?.status;
  const chunks = document?.chunksTotal ? `${document.chunksDone} / ${document.chunksTotal} parts` : "";
  const reading = status === "done" ? "done" : status === "failed" ? "failed" : status === "processing" ? "active" : "todo";
  fill(progress, h("ol", { class: "steps" },
    step("Sending", document ? "done" : "active", document ? bytes(document.sizeBytes) : `${Math.round(sent * 100)}%`),
    step("Queued", !document ? "todo" : status === "queued" ? "active" : "done"),
    step("Reading and saving facts", reading, chunks),
    step(status === "failed" ? "Failed" : "Done", status === "done" ? "done" : status === "failed" ? "failed" : "todo",
      status === "done" ? plural(document?.factCount ?? 0, "fact") : "")),
  h("div", { class: "bar" }, h("div", { class: "fill", style: `width:${Math.round(sent * 100)}%` })),
  document?.error ? h("div", { class: "notice error" }, document.error) : null);
}

async function upload(file: File, title: string): Promise<void> {
  if (!host || !launch) return;
  showProgress(0);
  try {
    const ticket = await host.call<Ticket>("upload_ticket_ui", { space: launch.space });
    const sent = await send(ticket, file, title, (fraction) => showProgress(fraction));
    await follow(host, sent.id);
  } catch (error) {
    fill(progress, h("div", { class: "notice error" }, `Upload failed: ${errorMessage(error)}`));
  }
}

async function follow(connected: Host, documentId: string): Promise<void> {
  for (;;) {
    const status = await connected.call<Status>("document_status_ui", { documentId, space: launch?.space });
    showProgress(1, status.document);
    if (status.document.status === "done" || status.document.status === "failed") {
      showFacts(status);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function showFacts({ document, facts: found }: Status): void {
  if (document.status !== "done") return;
  const more = document.factCount - found.length;
  fill(facts, h("section", { class: "card", "aria-label": "Facts from the document" },
    h("div", { class: "section-title" }, `${plural(document.factCount, "fact")} from ${document.title}`),
    found.length
      ? h("ul", { class: "fact-list" }, ...found.map((m) => h("li", { class: m.active ? "" : "superseded" },
        h("span", { class: "badge" }, m.category), h("span", { class: "content" }, m.content))))
      : h("p", { class: "muted" }, "Nothing in it was new to this space."),
    more > 0 ? h("p", { class: "hint" }, `and ${more} more`) : null));
}

function showRecent(documents: DocumentInfo[]): void {
  if (!documents.length) return;
  fill(recent, h("div", { class: "section-title" }, "Recent uploads"),
    h("ul", { class: "recent-list" }, ...documents.map((d) => h("li", {},
      h("span", { class: "content" }, d.title), h("span", { class: "grow" }),
      h("span", { class: d.status === "done" ? "badge success" : d.status === "failed" ? "badge danger" : "badge" }, d.status),
      h("span", { class: "meta" }, ago(d.createdAt, host?.locale))))));
}

function show(info: Launch): void {
  launch = info;
  spaceBadge.textContent = info.space;
  showRecent(info.recentDocuments);
  if (info.access !== "readwrite") {
    fill(chosen, h("div", { class: "notice warning" },
      `This key can only read ${info.space}: ask for a read-write grant to upload there.`));
    drop.classList.add("disabled");
    input.disabled = true;
  }
}

input.addEventListener("change", () => choose(input.files?.[0]));
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  if (!input.disabled) choose(e.dataTransfer?.files[0]);
});

connect("upload", {
  onResult: (data) => { if (host) show(data as Launch); else pending = data as Launch; },
  onFailure: (message) => fill(chosen, h("div", { class: "notice error" }, message)),
}).then((connected) => {
  host = connected;
  if (pending) show(pending);
}, (error) => fill(chosen, h("div", { class: "notice error" }, `Could not reach the host: ${errorMessage(error)}`)));
