// The graph view's time control (docs/time.md): draw the space as it was — facts valid at
// "as of", as the space knew them at "known at" — and a banner whenever the drawing is not
// today's view. The banner reads the slice the answer echoes, never the inputs.

import { h } from "../shared/dom";

export interface Slice { asOf?: string; knownAt?: string }

/** A datetime-local value ("2026-02-01T09:30", the user's local time) as ISO 8601 in UTC. */
function isoOf(value: string): string | undefined {
  if (!value) return undefined;
  const when = new Date(value);
  return Number.isNaN(when.getTime()) ? undefined : when.toISOString();
}

function shown(iso: string, locale?: string): string {
  return new Date(iso).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
}

export class TimeBar {
  readonly element: HTMLFormElement;
  readonly banner: HTMLElement;
  /** Called with the slice to draw; an empty slice is today's view. */
  onChange: (slice: Slice) => void = () => {};
  /** The host's locale, for the banner's dates. */
  locale: string | undefined;
  private readonly asOf = h("input", { type: "datetime-local", "aria-label": "As of", step: 60 });
  private readonly knownAt = h("input", { type: "datetime-local", "aria-label": "Known at", step: 60 });
  private readonly today = h("button", { type: "button", disabled: true }, "Today");

  constructor() {
    this.banner = h("div", { class: "past-view", role: "status", hidden: true });
    this.element = h("form", { class: "timebar", "aria-label": "Point in time" },
      h("label", {}, "As of", this.asOf), h("label", {}, "Known at", this.knownAt),
      h("button", { type: "submit" }, "Show"), this.today);
    this.element.addEventListener("submit", (event) => {
      event.preventDefault();
      this.onChange({ asOf: isoOf(this.asOf.value), knownAt: isoOf(this.knownAt.value) });
    });
    this.today.addEventListener("click", () => {
      this.asOf.value = "";
      this.knownAt.value = "";
      this.onChange({});
    });
  }

  /** What the answer says it was read at: the banner, and whether "Today" has anything to clear. */
  showing(slice: Slice): void {
    const parts = [slice.asOf ? `facts valid at ${shown(slice.asOf, this.locale)}` : "current facts",
      slice.knownAt ? `as the space knew them at ${shown(slice.knownAt, this.locale)}` : "as the space knows them now"];
    const past = Boolean(slice.asOf || slice.knownAt);
    this.banner.hidden = !past;
    this.banner.textContent = past ? `Not today's view: ${parts.join(", ")}.` : "";
    this.today.disabled = !past && !this.asOf.value && !this.knownAt.value;
  }
}
