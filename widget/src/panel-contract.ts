import type { WidgetLabels } from './labels.ts';
import type { PageOptions } from './page-context.ts';

/**
 * What the launcher (`widget.js`, loaded by every docs page) and the panel (loaded when the launcher has
 * painted, or at the first open) agree on. The launcher stays small so it paints at once; everything
 * that reads and renders answers lives in the panel.
 */

export interface WidgetOptions extends PageOptions {
  domain: string;
  key: string;
  /** Docent's address; where `widget.js` was loaded from when not given. */
  server: string;
  /** The reader's fingerprint: `anonymous`, or the site's own user id. */
  fp?: string;
  /** The panel's title; "Ask <site name>" when not given. */
  title?: string;
  theme?: 'auto' | 'light' | 'dark';
  /** The corner the launcher and the panel sit in (default `bottom-right`). */
  position?: 'bottom-right' | 'bottom-left';
  /** Questions shown on an empty panel instead of the site's configured ones. */
  starterQuestions?: string[];
  /** The "Ask about this" button on selected text and code (default on). */
  askAboutSelection?: boolean;
  /** Set by `update()` in a single-page app; `location.pathname` otherwise. */
  currentPath?: string;
  /** The site's own words for the widget's (labels.ts); English where one is left out. */
  labels?: Partial<WidgetLabels>;
}

export type WidgetEvent = 'answer' | 'feedback' | 'error' | 'open' | 'close';

export interface AskContext {
  type: 'code' | 'textSelection';
  value: string;
}

/**
 * This contract's version: bump it when `PanelHost`, `PanelController` or the conversation kept in
 * `sessionStorage` change shape. After an upgrade, a page still running the old build's launcher is sent
 * this build's panel (src/http/routes/widget-script.ts); the panel mounts only for a launcher of its own
 * version. Launchers from before the field existed are version 1.
 */
export const PANEL_CONTRACT_VERSION = 1;

export interface PanelHost {
  /** The launcher's `PANEL_CONTRACT_VERSION`; absent from launchers of version 1. */
  contract?: number;
  shadow: ShadowRoot;
  /** The nonce of the page's `widget.js` tag, for a `<style>` where stylesheets cannot be constructed. */
  nonce: string | undefined;
  /** Shared with the launcher: `update()` changes it in place. */
  options: WidgetOptions;
  launcher: HTMLButtonElement;
  emit(event: WidgetEvent, detail: unknown): void;
}

export interface PanelController {
  readonly isOpen: boolean;
  /** Opens the panel; with `context`, the next question is asked about it. */
  open(context?: AskContext): void;
  close(): void;
  ask(question: string): void;
  /** "New chat": forgets the thread and stops an answer in progress. */
  reset(): void;
  destroy(): void;
}

export type MountPanel = (host: PanelHost) => PanelController;

/** Where the panel script leaves its `mount` for the launcher to pick up. */
export const PANEL_REGISTRY = Symbol.for('docent.widget.panel');
