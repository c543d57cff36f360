import type { ReactElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { Global } from 'recharts';

/*
 * A document object model just large enough for react-dom to render the charts into. Recharts 3
 * draws nothing through react-dom/server: its charts register their parts with a store in effects,
 * which server rendering never runs. Rendering for real needs a DOM, and Node has none; this one
 * only builds the tree, with no layout (ChartContainer gives the charts fixed sizes, and Recharts
 * is told it is server-side so that it does not measure text).
 */

export const SVG_NS = 'http://www.w3.org/2000/svg';
const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Changes to any tree, to tell when React has stopped updating it. */
let mutations = 0;

export class StaticNode {
  parentNode: StaticNode | null = null;
  childNodes: StaticNode[] = [];
  constructor(
    readonly nodeType: number,
    readonly nodeName: string,
    readonly ownerDocument: StaticDocument | null,
  ) {}
  get firstChild(): StaticNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): StaticNode | null {
    return this.childNodes.at(-1) ?? null;
  }
  get nextSibling(): StaticNode | null {
    const siblings = this.parentNode?.childNodes ?? [];
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
  appendChild<T extends StaticNode>(child: T): T {
    return this.insertBefore(child, null);
  }
  insertBefore<T extends StaticNode>(child: T, before: StaticNode | null): T {
    child.parentNode?.removeChild(child);
    const at = before ? this.childNodes.indexOf(before) : -1;
    this.childNodes.splice(at < 0 ? this.childNodes.length : at, 0, child);
    child.parentNode = this;
    mutations++;
    return child;
  }
  removeChild<T extends StaticNode>(child: T): T {
    this.childNodes.splice(this.childNodes.indexOf(child), 1);
    child.parentNode = null;
    mutations++;
    return child;
  }
  // React delegates events to the root; nothing here is ever clicked.
  addEventListener(): void {}
  removeEventListener(): void {}
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    for (const c of [...this.childNodes]) this.removeChild(c);
    if (text) this.appendChild(new StaticText(text, this.ownerDocument));
  }
}

export class StaticText extends StaticNode {
  constructor(
    private data: string,
    doc: StaticDocument | null,
  ) {
    super(3, '#text', doc);
  }
  get nodeValue(): string {
    return this.data;
  }
  set nodeValue(text: string) {
    this.data = text;
    mutations++;
  }
  override get textContent(): string {
    return this.data;
  }
  override set textContent(text: string) {
    this.nodeValue = text;
  }
}

/** react-dom assigns camel-case properties and sets custom properties with setProperty. */
class StaticStyle {
  [property: string]: unknown;
  setProperty(name: string, value: string): void {
    this[name] = value;
  }
  removeProperty(name: string): void {
    delete this[name];
  }
}

export class StaticElement extends StaticNode {
  readonly attributes = new Map<string, string>();
  readonly style = new StaticStyle();
  constructor(
    readonly localName: string,
    readonly namespaceURI: string,
    doc: StaticDocument,
  ) {
    super(1, namespaceURI === HTML_NS ? localName.toUpperCase() : localName, doc);
  }
  get tagName(): string {
    return this.nodeName;
  }
  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name, String(value));
    mutations++;
  }
  setAttributeNS(_ns: string | null, name: string, value: unknown): void {
    this.setAttribute(name, value);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
    mutations++;
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }
  hasClass(name: string): boolean {
    return (this.attributes.get('class') ?? '').split(/\s+/).includes(name);
  }
  /** No layout: every box is empty, which Recharts reads as "nothing to adjust". */
  getBoundingClientRect() {
    return { x: 0, y: 0, top: 0, left: 0, right: 0, bottom: 0, width: 0, height: 0 };
  }
  /** Recharts looks up an axis' tick labels by class to measure them. */
  getElementsByClassName(name: string): StaticElement[] {
    return descendants(this).filter((e) => e.hasClass(name));
  }
  /** react-dom selects the `<select>`'s option by value. */
  get options(): StaticElement[] {
    return descendants(this).filter((e) => e.localName === 'option');
  }
}

class StaticDocument extends StaticNode {
  readonly body: StaticElement;
  /** What react-dom reads from the document's window (focus, the current event). */
  readonly defaultView = {
    document: this as StaticDocument,
    event: undefined,
    HTMLIFrameElement: class {},
    getComputedStyle: () => ({ fontSize: '', letterSpacing: '' }),
  };
  readonly activeElement = null;
  constructor() {
    super(9, '#document', null);
    this.body = this.appendChild(this.createElement('body'));
  }
  createElement(tag: string): StaticElement {
    return new StaticElement(tag.toLowerCase(), HTML_NS, this);
  }
  createElementNS(ns: string, tag: string): StaticElement {
    return new StaticElement(tag, ns, this);
  }
  createTextNode(text: string): StaticText {
    return new StaticText(text, this);
  }
}

export function descendants(node: StaticNode): StaticElement[] {
  return node.childNodes.flatMap((c) => (c instanceof StaticElement ? [c, ...descendants(c)] : []));
}

/**
 * Resolves once React has left the DOM alone for a few turns of the event loop: effects register the
 * charts' parts in their store, and each registration renders again, on React's own schedule.
 */
async function settled(): Promise<void> {
  let quietRounds = 0;
  for (let round = 0, last = -1; quietRounds < 3; round++) {
    if (round > 2000) throw new Error('the chart did not stop updating');
    await new Promise((resolve) => setTimeout(resolve, 0));
    quietRounds = mutations === last ? quietRounds + 1 : 0;
    last = mutations;
  }
}

type ComputedStyle = (element: unknown, pseudo?: string | null) => unknown;

/** The page window's getComputedStyle, answering for static elements as the static window does; returns the undo. */
function answerStaticStyles(doc: StaticDocument): () => void {
  const target = globalThis as unknown as { getComputedStyle: ComputedStyle };
  const own = Object.getOwnPropertyDescriptor(target, 'getComputedStyle');
  const real = target.getComputedStyle;
  target.getComputedStyle = (element, pseudo) => (element instanceof StaticNode ? doc.defaultView.getComputedStyle() : real.call(globalThis, element, pseudo));
  return () => {
    if (own) Object.defineProperty(target, 'getComputedStyle', own);
    else Reflect.deleteProperty(target, 'getComputedStyle');
  };
}

/** Renders `element` into a fresh static DOM, waits until React has stopped changing it, and reads it. */
export async function renderStatic<T>(element: ReactElement, read: (container: StaticElement) => T): Promise<T> {
  const doc = new StaticDocument();
  const container = doc.body.appendChild(doc.createElement('div'));
  const errors: unknown[] = [];
  const root = createRoot(container as unknown as HTMLElement, {
    onUncaughtError: (error) => errors.push(error),
    onCaughtError: (error) => errors.push(error),
  });
  // react-dom reads `window.event` while scheduling, and Recharts asks the window for an axis tick's
  // computed style. Under Node the static document's window stands in, set only while rendering: code
  // that looks for a global window would otherwise take Node for a browser. A browser's own window
  // cannot be replaced (the app's export draws here too): only its getComputedStyle is wrapped, to
  // answer for static elements.
  const hadWindow = 'window' in globalThis;
  const previous: unknown = Reflect.get(globalThis, 'window');
  const replaced = Reflect.set(globalThis, 'window', doc.defaultView) && (Reflect.get(globalThis, 'window') as unknown) === doc.defaultView;
  const restoreStyle = replaced ? () => {} : answerStaticStyles(doc);
  const wasSsr = Global.isSsr;
  Global.isSsr = true;
  try {
    flushSync(() => root.render(element));
    await settled();
    if (errors.length > 0) throw errors[0];
    return read(container);
  } finally {
    root.unmount();
    await settled();
    Global.isSsr = wasSsr;
    restoreStyle();
    if (hadWindow) Reflect.set(globalThis, 'window', previous);
    else Reflect.deleteProperty(globalThis, 'window');
  }
}
