/**
 * Building the page: `h()` makes an element from a tag, its attributes and its children. Text is
 * always set as text (never parsed as HTML), so nothing an API answers can become markup.
 *
 * @module console/dom
 */

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A state as a coloured pill. */
export const pill = (state: string): HTMLElement => h('span', { class: `state state-${state}` }, state);

/** An instant as the reader's local time, with the exact instant on hover. */
export function when(iso: string | null | undefined): Child {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString());
}

/** The values of a form's named fields, empty ones left out. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new FormData(form).entries()) if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  return out;
}
