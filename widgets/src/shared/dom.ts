// Building the DOM from data. Memory content is data, never markup: every string passed here
// becomes a text node or an attribute value, so `<img src=x onerror=…>` or `</script>` in a
// memory shows as those characters. No view uses innerHTML (the build refuses it).

export type Child = Node | string | number | null | undefined | false;

type Handler = (event: Event) => void;

export interface Props {
  class?: string;
  /** Event listeners: `on: { click: fn }`. Inline `on*` attributes are refused below. */
  on?: Partial<Record<keyof HTMLElementEventMap, Handler>>;
  [attribute: string]: string | number | boolean | null | undefined | Props["on"];
}

/** `h("button", { class: "primary", on: { click } }, "Save")` */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "on") {
      for (const [type, handler] of Object.entries(value as Props["on"] ?? {})) {
        element.addEventListener(type, handler as Handler);
      }
    } else if (/^on/i.test(name)) {
      throw new Error(`inline event attribute ${name}: pass it in props.on`);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace everything inside `parent` with `children`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export function byId<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as T;
}

/** Focus `element` where it is. A view grows by asking the host for a taller frame
 * (autoResize); a plain focus() would first scroll the still-short frame to the element, and the
 * host's resize then scrolls it back, so the content jumps under the pointer and a click aimed
 * at it lands elsewhere. The grown frame shows the element without a scroll. */
export function focusInPlace(element: HTMLElement | null | undefined): void {
  element?.focus({ preventScroll: true });
}
