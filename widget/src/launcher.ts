import { adoptStyles, h, ICONS, icon } from './dom.ts';
import { LAUNCHER_LABELS, type LauncherLabels, withLabels } from './labels.ts';
import { LAUNCHER_STYLES } from './launcher-styles.ts';
import { readSelection } from './page-context.ts';
import {
  type AskContext,
  type MountPanel,
  PANEL_CONTRACT_VERSION,
  PANEL_REGISTRY,
  type PanelController,
  type WidgetEvent,
  type WidgetOptions,
} from './panel-contract.ts';
import { clearChat, loadChat } from './session-store.ts';

type Listener = (detail: unknown) => void;

/** After the launcher paints, the panel loads when the page is idle, or at the latest after this long. */
const PANEL_PRELOAD_MS = 2_000;

/**
 * `<docent-assistant>`: the launcher button, in a shadow root so the host page's CSS and the widget's
 * never meet. It paints at once; the panel (panel.ts, a second script) loads while the page is idle, or
 * when the reader first opens it, and renders into the same shadow root.
 */
export class DocentAssistant extends HTMLElement {
  #options: WidgetOptions | undefined;
  /** Address of the panel script. */
  #panelSrc = '';
  readonly #shadow: ShadowRoot;
  readonly #launcher: HTMLButtonElement;
  readonly #selectionButton: HTMLButtonElement;
  #panel: PanelController | undefined;
  #labels: LauncherLabels = LAUNCHER_LABELS;
  readonly #launcherText = h('span', {}, LAUNCHER_LABELS.launcher);
  #loading: Promise<PanelController | undefined> | undefined;
  #selected: AskContext | undefined;
  readonly #listeners = new Map<WidgetEvent, Set<Listener>>();
  readonly #cleanup: (() => void)[] = [];
  /** Set up (listeners on the page, the panel): from connection until it stays disconnected. */
  #live = false;

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    const shortcut = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘I' : 'Ctrl I';
    this.#launcher = h(
      'button',
      {
        type: 'button',
        class: 'launcher',
        part: 'launcher',
        'aria-haspopup': 'dialog',
        'aria-expanded': 'false',
        'aria-keyshortcuts': 'Control+I Meta+I',
      },
      icon(ICONS.spark),
      this.#launcherText,
      h('kbd', { 'aria-hidden': 'true' }, shortcut),
    );
    this.#launcher.addEventListener('click', () => this.open());
    this.#launcher.addEventListener('pointerenter', () => void this.#load().catch(() => {}), { once: true });
    this.#selectionButton = h(
      'button',
      { type: 'button', class: 'ask-selection', hidden: true },
      LAUNCHER_LABELS.askAboutThis,
    );
    // Keeps the selection: a mousedown on the button would otherwise clear it first.
    this.#selectionButton.addEventListener('mousedown', (event) => event.preventDefault());
    this.#selectionButton.addEventListener('click', () => {
      const context = this.#selected;
      this.#selectionButton.hidden = true;
      if (context) this.#withPanel((panel) => panel.open(context));
    });
    this.#shadow.append(this.#launcher, this.#selectionButton);
    adoptStyles(this.#shadow, LAUNCHER_STYLES, LAUNCHER_NONCE);
  }

  configure(options: WidgetOptions, panelSrc: string): void {
    this.#options = options;
    this.#panelSrc = panelSrc;
    this.#labels = withLabels(LAUNCHER_LABELS, options.labels);
    this.#launcherText.textContent = this.#labels.launcher;
    this.#selectionButton.textContent = this.#labels.askAboutThis;
    // Read by the styles (`:host([data-position=bottom-left])`), as the theme is.
    if (options.position === 'bottom-left') this.dataset.position = 'bottom-left';
    else delete this.dataset.position;
    this.#theme();
  }

  /**
   * `light` or `dark` as configured; `auto`: the page's own dark mode when it shows one (`<html
   * data-theme>`: Docusaurus, Starlight; `<html class="dark">`: VitePress, Tailwind; `<body
   * data-md-color-scheme>`: MkDocs Material), else the reader's `prefers-color-scheme` (the CSS).
   */
  #theme(): void {
    const html = document.documentElement;
    const page = html.dataset.theme;
    const md = document.body?.dataset.mdColorScheme;
    const theme =
      this.#options?.theme !== 'auto' && this.#options?.theme
        ? this.#options.theme
        : page === 'dark' || page === 'light'
          ? page
          : html.classList.contains('dark') || md === 'slate'
            ? 'dark'
            : md === 'default'
              ? 'light'
              : undefined;
    if (theme) this.dataset.theme = theme;
    else delete this.dataset.theme;
  }

  connectedCallback(): void {
    // Moved, not removed: put straight back (main.ts, a router swapping the body), it is still set up.
    if (this.#live) return;
    // A copy the page made of the element (a router's snapshot of the body, Turbo's page cache) has no
    // configuration: it leaves, and the configured one stays the only widget.
    if (!this.#options) {
      this.remove();
      return;
    }
    this.#live = true;
    const options = this.#required();
    const onKey = (event: KeyboardEvent) => {
      // The key's place (`code`) counts only when the key types no Latin letter (Arabic, Cyrillic, Greek
      // layouts): on Dvorak or Colemak that place is C or U, whose shortcuts are the reader's own.
      const key = event.key.toLowerCase();
      const isI = key === 'i' || (!/^[a-z]$/.test(key) && event.code === 'KeyI');
      // Not under the page's own modal <dialog> (Starlight's search): the panel would open inert behind it.
      if ((event.metaKey || event.ctrlKey) && !event.altKey && isI && !modalOpen()) {
        event.preventDefault();
        if (this.isOpen) this.close();
        else this.open();
      }
    };
    document.addEventListener('keydown', onKey);
    this.#cleanup.push(() => document.removeEventListener('keydown', onKey));
    // The page's theme switch: the widget follows it.
    const themes = new MutationObserver(() => this.#theme());
    const watched = { attributeFilter: ['class', 'data-theme', 'data-md-color-scheme'] };
    themes.observe(document.documentElement, watched);
    if (document.body) themes.observe(document.body, watched);
    this.#theme();
    this.#cleanup.push(() => themes.disconnect());
    if (options.askAboutSelection !== false) {
      const onSelect = () => setTimeout(() => this.#showSelectionButton(), 0);
      const onScroll = () => {
        this.#selectionButton.hidden = true;
      };
      document.addEventListener('mouseup', onSelect);
      document.addEventListener('keyup', onSelect);
      window.addEventListener('scroll', onScroll, { passive: true });
      this.#cleanup.push(() => {
        document.removeEventListener('mouseup', onSelect);
        document.removeEventListener('keyup', onSelect);
        window.removeEventListener('scroll', onScroll);
      });
    }
    // The page was reloaded (or a link followed) while an answer streamed: show it going on (opening
    // loads the panel, which resumes it). Its server stops it a few seconds after its reader left
    // unless someone resumes it.
    if (answerInFlight(options.domain)) this.open();
    const question = new URLSearchParams(location.search).get('assistant');
    if (question?.trim()) {
      const url = new URL(location.href);
      url.searchParams.delete('assistant');
      // Taken out of the address so a reload does not ask it again.
      history.replaceState(history.state, '', url);
      this.ask(question);
    } else {
      const preload = () => void this.#load().catch(() => {});
      const timer = setTimeout(() => {
        if ('requestIdleCallback' in window) {
          const idle = requestIdleCallback(preload, { timeout: PANEL_PRELOAD_MS });
          this.#cleanup.push(() => cancelIdleCallback(idle));
        } else preload();
      }, 0);
      this.#cleanup.push(() => clearTimeout(timer));
    }
  }

  disconnectedCallback(): void {
    // Torn down only if it stays out: after a body swap it is back before this runs, and the open
    // panel and its streaming answer carry on in the new body.
    queueMicrotask(() => {
      if (this.isConnected || !this.#live) return;
      this.#live = false;
      for (const undo of this.#cleanup.splice(0)) undo();
      this.#panel?.destroy();
      this.#panel = undefined;
      // A panel still loading is not mounted on an element that left (see #load).
      this.#loading = undefined;
      this.#launcher.removeAttribute('aria-busy');
    });
  }

  get isOpen(): boolean {
    return this.#panel?.isOpen ?? false;
  }

  open(): void {
    this.#selectionButton.hidden = true;
    this.#withPanel((panel) => panel.open());
  }

  close(): void {
    this.#panel?.close();
  }

  /** Opens the panel and asks `question`. */
  ask(question: string): void {
    this.#withPanel((panel) => panel.ask(question));
  }

  /** Page awareness a single-page app changes as the reader moves. */
  update(patch: {
    currentPath?: string;
    filter?: { version?: string; language?: string };
    fp?: string;
  }): void {
    const options = this.#required();
    // The reader signed in or out: the next question starts a new conversation (see the panel's #send).
    if (patch.fp !== undefined) options.fp = patch.fp;
    if (patch.filter?.version !== undefined) options.version = patch.filter.version;
    if (patch.filter?.language !== undefined) options.language = patch.filter.language;
    if (patch.currentPath !== undefined) options.currentPath = patch.currentPath;
  }

  /** "New chat": forgets the thread (stops an answer in progress). */
  reset(): void {
    if (this.#panel) this.#panel.reset();
    else clearChat(this.#required().domain);
  }

  on(event: WidgetEvent, listener: Listener): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  #emit(event: WidgetEvent, detail: unknown): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        listener(detail);
      } catch (error) {
        console.error('docent: a listener failed', error);
      }
    }
    this.dispatchEvent(new CustomEvent(`docent:${event}`, { detail, bubbles: true, composed: true }));
  }

  #required(): WidgetOptions {
    if (!this.#options) throw new Error('docent: the widget needs configure() before use');
    return this.#options;
  }

  #withPanel(use: (panel: PanelController) => void): void {
    if (this.#panel) {
      use(this.#panel);
      return;
    }
    this.#launcher.setAttribute('aria-busy', 'true');
    this.#load().then(
      (panel) => {
        if (panel) use(panel);
      },
      (error: unknown) => {
        this.#launcher.removeAttribute('aria-busy');
        this.#launcher.title = this.#labels.loadFailed;
        this.#emit('error', { kind: 'unreachable', message: String(error) });
      },
    );
  }

  /** Loads the panel script once (again after a failure) and mounts the panel. */
  #load(): Promise<PanelController | undefined> {
    if (this.#loading) return this.#loading;
    const loading: Promise<PanelController | undefined> = loadPanelScript(this.#panelSrc).then(
      (mount) => {
        // Taken off the page while the script loaded (Docent.destroy()): nothing to mount it on.
        if (!this.#live) {
          if (this.#loading === loading) this.#loading = undefined;
          return undefined;
        }
        if (!this.#panel) {
          this.#panel = mount({
            contract: PANEL_CONTRACT_VERSION,
            shadow: this.#shadow,
            nonce: LAUNCHER_NONCE,
            options: this.#required(),
            launcher: this.#launcher,
            emit: (event, detail) => this.#emit(event, detail),
          });
        }
        this.#launcher.removeAttribute('aria-busy');
        this.#launcher.removeAttribute('title');
        return this.#panel;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    this.#loading = loading;
    return loading;
  }

  #showSelectionButton(): void {
    const selected = readSelection(this);
    const button = this.#selectionButton;
    if (!selected || this.isOpen) {
      button.hidden = true;
      this.#selected = undefined;
      return;
    }
    this.#selected = { type: selected.type, value: selected.value };
    button.hidden = false;
    const top = Math.min(window.innerHeight - 40, selected.rect.bottom + 8);
    const left = Math.min(window.innerWidth - 130, Math.max(8, selected.rect.left));
    button.style.top = `${Math.max(8, top)}px`;
    button.style.left = `${left}px`;
  }
}

function registered(): MountPanel | undefined {
  return (globalThis as unknown as Record<symbol, MountPanel | undefined>)[PANEL_REGISTRY];
}

let loadingScript: Promise<MountPanel> | undefined;

/** Read while `widget.js` runs, the only time `currentScript` names it. */
const LAUNCHER_NONCE = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;

/** Adds the panel script to the page once; its nonce is the launcher's, for pages with a nonce CSP. */
function loadPanelScript(src: string): Promise<MountPanel> {
  const ready = registered();
  if (ready) return Promise.resolve(ready);
  loadingScript ??= new Promise<MountPanel>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.async = true;
    if (LAUNCHER_NONCE) script.nonce = LAUNCHER_NONCE;
    script.onload = () => {
      const mount = registered();
      if (mount) resolve(mount);
      else reject(new Error(`${src} did not register the panel`));
    };
    script.onerror = () => {
      script.remove();
      loadingScript = undefined;
      reject(new Error(`the assistant's panel (${src}) could not be loaded`));
    };
    document.head.append(script);
  });
  return loadingScript;
}

/** Whether the stored conversation ends in an answer that was still streaming. */
function answerInFlight(domain: string): boolean {
  const last = loadChat(domain).messages.at(-1);
  return last?.role === 'assistant' && last.status === 'streaming';
}

/** Whether the page shows a modal `<dialog>` (`:modal` is newer than some browsers the widget runs in). */
function modalOpen(): boolean {
  return CSS.supports('selector(:modal)') && document.querySelector(':modal') !== null;
}
