import { DocentAssistant } from './launcher.ts';
import type { WidgetEvent, WidgetOptions } from './panel-contract.ts';

/**
 * `widget.js`: `<script src=".../widget.js" data-domain="…" data-key="svc_dsc_…" defer>` puts the
 * assistant on the page; `window.Docent` is the API for pages that want control. This script is the
 * launcher only; it loads the panel (`widget/panel-<hash>.js`, named at build time) from beside itself.
 */
declare const __DOCENT_PANEL_FILE__: string;

const TAG = 'docent-assistant';
if (!customElements.get(TAG)) customElements.define(TAG, DocentAssistant);

const script = document.currentScript as HTMLScriptElement | null;
/**
 * Where Docent is: the script's address without `widget.js` (or `widget/<hash>.js`), so a Docent behind
 * a path prefix works too.
 */
const scriptBase = script?.src
  ? new URL(script.src, location.href).href.replace(/(widget\.js|widget\/[0-9a-f]{16}\.js)([?#].*)?$/, '')
  : `${location.origin}/`;

export type InitOptions = Omit<WidgetOptions, 'server'> & { server?: string };

let current: DocentAssistant | undefined;

function init(options: InitOptions): DocentAssistant {
  if (!options.domain || !options.key) throw new Error('Docent.init needs a domain and a key');
  destroy();
  const element = document.createElement(TAG) as DocentAssistant;
  // Turbo leaves elements so marked out of the snapshots it caches for the back button.
  element.setAttribute('data-turbo-temporary', '');
  const server = (options.server ?? scriptBase).replace(/\/+$/, '');
  element.configure({ ...options, server }, `${scriptBase}widget/${__DOCENT_PANEL_FILE__}`);
  document.body.append(element);
  current = element;
  keepAcrossBodySwaps();
  // The frame that paints the launcher: what `npm run bench:widget` measures from the script's arrival.
  requestAnimationFrame(() => performance.mark('docent:launcher-frame'));
  return element;
}

let bodyWatch: MutationObserver | undefined;

/**
 * A site whose router swaps the whole `<body>` on navigation (Turbo, pjax) would take the assistant with
 * the old one: it is put in the new body, as after a page load (launcher shown, conversation kept).
 */
function keepAcrossBodySwaps(): void {
  if (bodyWatch) return;
  bodyWatch = new MutationObserver((records) => {
    const element = current;
    if (!element || element.isConnected || !document.body) return;
    // Only when it left with a body that was swapped out: an element the page removed itself stays out.
    const swapped = records.some((record) =>
      [...record.removedNodes].some((node) => node.nodeName === 'BODY' && node.contains(element)),
    );
    if (swapped) document.body.append(element);
  });
  bodyWatch.observe(document.documentElement, { childList: true });
}

function destroy(): void {
  current?.remove();
  current = undefined;
}

function need(): DocentAssistant {
  if (!current) throw new Error('Docent is not initialised: call Docent.init({domain, key}) first');
  return current;
}

function optionsFromScript(element: HTMLScriptElement): InitOptions | undefined {
  const data = element.dataset;
  if (!data.domain || !data.key) return undefined;
  const theme = data.theme === 'light' || data.theme === 'dark' ? data.theme : 'auto';
  return {
    domain: data.domain,
    key: data.key,
    theme,
    ...(data.server ? { server: data.server } : {}),
    ...(data.fp ? { fp: data.fp } : {}),
    ...(data.title ? { title: data.title } : {}),
    ...(data.pathPrefix ? { pathPrefix: data.pathPrefix } : {}),
    ...(data.version ? { version: data.version } : {}),
    ...(data.language ? { language: data.language } : {}),
    ...(data.askAboutSelection === 'false' ? { askAboutSelection: false } : {}),
    ...(data.position === 'bottom-left' || data.position === 'bottom-right'
      ? { position: data.position }
      : {}),
    ...(data.labels ? { labels: labelsFromAttribute(data.labels) } : {}),
  };
}

/** `data-labels`: a JSON object of labels (labels.ts); anything else is ignored (English labels). */
function labelsFromAttribute(text: string): InitOptions['labels'] {
  try {
    return JSON.parse(text);
  } catch {
    console.warn('Docent: data-labels is not JSON');
  }
}

const api = {
  init,
  destroy,
  open: () => need().open(),
  close: () => need().close(),
  ask: (question: string) => need().ask(question),
  update: (patch: Parameters<DocentAssistant['update']>[0]) => need().update(patch),
  reset: () => need().reset(),
  on: (event: WidgetEvent, listener: (detail: unknown) => void) => need().on(event, listener),
  get element(): DocentAssistant | undefined {
    return current;
  },
};

declare global {
  interface Window {
    Docent: typeof api;
  }
}

/** Set by the first `widget.js` of a page: `window.Docent` alone may be an element with id "Docent". */
const LOADED = Symbol.for('docent.widget.loaded');
const marked = window as unknown as Record<symbol, boolean | undefined>;

// One widget per page: a second `widget.js` (a layout and a plugin both adding the tag) would add a
// second launcher and panel over the first, sharing its stored conversation. The first stays in charge.
// A router that renders the body anew (innerHTML) takes the widget with it; the tag it runs again puts
// it back, as the first copy would (conversation kept).
const taken = marked[LOADED] && window.Docent.element?.isConnected === false;
const fromTag = script ? optionsFromScript(script) : undefined;
if (taken && fromTag) window.Docent.init(fromTag);
else if (marked[LOADED]) {
  console.warn('Docent: widget.js is on this page twice; the second copy does nothing');
} else {
  marked[LOADED] = true;
  window.Docent = api;
  if (fromTag) {
    if (document.body) init(fromTag);
    else document.addEventListener('DOMContentLoaded', () => init(fromTag), { once: true });
  }
}
