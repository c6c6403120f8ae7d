import {
  AssistantFailure,
  ask,
  type ClientOptions,
  resume,
  type SiteConfig,
  type Source,
  type StreamEvent,
  sendFeedback,
  siteConfig,
} from './chat-client.ts';
import { adoptStyles, focusables, h, ICONS, icon } from './dom.ts';
import { describeFailure } from './failures.ts';
import { fill, PANEL_LABELS, type PanelLabels, withLabels } from './labels.ts';
import { currentPagePath, pageFilter } from './page-context.ts';
import type { AskContext, PanelController, PanelHost } from './panel-contract.ts';
import { openElsewhere, renderMarkdown, safeHref } from './render-markdown.ts';
import {
  type ChatMessage,
  type ChatState,
  clearChat,
  loadChat,
  newChat,
  randomId,
  saveChat,
} from './session-store.ts';
import { PANEL_STYLES } from './styles.ts';

interface Panel {
  root: HTMLElement;
  title: HTMLElement;
  log: HTMLElement;
  status: HTMLElement;
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
  send: HTMLButtonElement;
  chip: HTMLElement;
}

/** Questions asked through `?assistant=` or `ask()` are cut to this many characters. */
export const MAX_QUESTION_CHARS = 4_000;

/**
 * The panel and the conversation, in the launcher's shadow root: asks, streams and renders answers,
 * keeps the conversation in `sessionStorage`, resumes an answer a reload interrupted, and takes feedback.
 */
export class AssistantPanel implements PanelController {
  readonly #host: PanelHost;
  /** The site's words over the English ones (`labels`); set once, as the panel is built. */
  readonly #labels: PanelLabels;
  readonly #removeStyles: () => void;
  #panel: Panel | undefined;
  #state: ChatState;
  #config: Promise<SiteConfig | undefined> | undefined;
  #controller: AbortController | undefined;
  #context: AskContext | undefined;
  #returnFocus: Element | null = null;
  #renderQueued = false;
  /** Messages in the log after the last render: more now means a new question (or its answer) to show. */
  #renderedMessages = 0;
  /** The feedback sent last: the next is sent once it has settled, so they are stored in click order. */
  #feedbackSent: Promise<unknown> = Promise.resolve();

  constructor(host: PanelHost) {
    this.#host = host;
    this.#labels = withLabels(PANEL_LABELS, host.options.labels);
    this.#removeStyles = adoptStyles(host.shadow, PANEL_STYLES, host.nonce);
    document.addEventListener('keydown', this.#documentKey);
    this.#state = loadChat(host.options.domain);
    this.#ensurePanel();
    const last = this.#state.messages.at(-1);
    if (last?.role === 'assistant' && last.status === 'streaming') void this.#resume(last);
  }

  get isOpen(): boolean {
    return this.#panel !== undefined && !this.#panel.root.hidden;
  }

  open(context?: AskContext): void {
    const panel = this.#ensurePanel();
    if (this.#config === undefined) this.#loadConfig(panel.title);
    if (context) this.#context = context;
    if (!this.isOpen) {
      this.#returnFocus = deepActiveElement();
      panel.root.hidden = false;
      this.#host.launcher.hidden = true;
      this.#host.launcher.setAttribute('aria-expanded', 'true');
      this.#host.emit('open', {});
    }
    this.#render();
    panel.input.focus();
  }

  close(): void {
    if (!this.#panel || !this.isOpen) return;
    this.#panel.root.hidden = true;
    this.#host.launcher.hidden = false;
    this.#host.launcher.setAttribute('aria-expanded', 'false');
    const back = this.#returnFocus;
    this.#returnFocus = null;
    if (back instanceof HTMLElement && back.isConnected) back.focus();
    else this.#host.launcher.focus();
    this.#host.emit('close', {});
  }

  ask(question: string): void {
    const text = question.trim().slice(0, MAX_QUESTION_CHARS);
    const panel = this.#ensurePanel();
    this.open();
    if (!text) return;
    // While an answer streams, the question waits in the box, as one typed then does (Enter leaves it).
    if (this.#controller) {
      panel.input.value = text;
      fitHeight(panel.input);
    } else void this.#send(text);
  }

  reset(): void {
    this.#controller?.abort();
    // Free at once: a question asked right after (`Docent.reset(); Docent.ask(q)`) is sent, not dropped
    // while the stopped answer settles.
    this.#controller = undefined;
    clearChat(this.#host.options.domain);
    this.#state = newChat();
    this.#renderedMessages = 0;
    this.#context = undefined;
    this.#render();
    if (this.#panel) fitHeight(this.#panel.input);
    this.#panel?.input.focus();
  }

  destroy(): void {
    this.#controller?.abort();
    this.#panel?.root.remove();
    // The launcher is the host's and may be shown again (the element put back in a page).
    this.#host.launcher.hidden = false;
    this.#host.launcher.setAttribute('aria-expanded', 'false');
    this.#removeStyles();
    document.removeEventListener('keydown', this.#documentKey);
  }

  #client(): ClientOptions {
    const { server, domain, key } = this.#host.options;
    return { server, domain, key };
  }

  #ensurePanel(): Panel {
    if (this.#panel) return this.#panel;
    const title = h('h2', { id: 'docent-title' }, this.#host.options.title ?? this.#labels.title);
    const log = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-relevant': 'additions',
      'aria-label': this.#labels.conversation,
      tabindex: '0',
    });
    const status = h('div', { class: 'vh', role: 'status' });
    const input = h('textarea', {
      id: 'docent-question',
      rows: '1',
      placeholder: this.#labels.placeholder,
      autocomplete: 'off',
      maxlength: String(MAX_QUESTION_CHARS),
      // Right-to-left questions (Arabic, Hebrew) are typed and shown right to left.
      dir: 'auto',
    });
    const send = h('button', { type: 'submit', class: 'send' }, this.#labels.send);
    const chipText = h('span', {});
    const chipClear = h(
      'button',
      { type: 'button', class: 'icon', 'aria-label': this.#labels.removeSelection },
      '×',
    );
    const chip = h('div', { class: 'chip', hidden: true }, chipText, chipClear);
    // The box takes no more than the limit: a longer paste is cut, and the reader is told so.
    const limit = h(
      'p',
      { class: 'note limit', 'aria-live': 'polite', hidden: true },
      fill(this.#labels.questionCut, {
        count: MAX_QUESTION_CHARS.toLocaleString(),
      }),
    );
    const form = h(
      'form',
      {},
      chip,
      h('label', { class: 'vh', for: 'docent-question' }, this.#labels.yourQuestion),
      h('div', { class: 'row' }, input, send),
      limit,
    );
    const newChatButton = h('button', { type: 'button', class: 'ghost' }, this.#labels.newChat);
    const closeButton = h('button', { type: 'button', class: 'icon', 'aria-label': this.#labels.close }, '×');
    const root = h(
      'div',
      {
        class: 'panel',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-labelledby': 'docent-title',
        hidden: true,
      },
      h('header', {}, title, newChatButton, closeButton),
      log,
      status,
      form,
      h('p', { class: 'note' }, this.#labels.disclaimer),
    );
    this.#host.shadow.append(root);
    this.#panel = { root, title, log, status, form, input, send, chip };

    closeButton.addEventListener('click', () => this.close());
    newChatButton.addEventListener('click', () => this.reset());
    chipClear.addEventListener('click', () => {
      this.#context = undefined;
      this.#renderChip();
      input.focus();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (this.#controller) {
        this.#controller.abort();
        return;
      }
      const question = input.value.trim();
      if (!question) return;
      input.value = '';
      fitHeight(input);
      limit.hidden = true;
      void this.#send(question);
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        // While an answer streams the button stops it; Enter in the question box is for sending, so the
        // next question waits in the box instead of stopping the answer.
        if (!this.#controller) form.requestSubmit();
      }
    });
    input.addEventListener('input', () => {
      fitHeight(input);
      limit.hidden = input.value.length < MAX_QUESTION_CHARS;
    });
    root.addEventListener('keydown', (event) => this.#panelKey(event));
    log.addEventListener('click', (event) => this.#logClick(event));
    this.#loadConfig(title);
    return this.#panel;
  }

  /**
   * The site's name and starter questions. A failed read (rate-limited, offline) is forgotten, so the
   * next time the panel opens reads it again instead of keeping the generic title for the session; a
   * read from before the panel opened that fails once it is open is tried again at once (once: a
   * read made while open that fails waits for the next open).
   */
  #loadConfig(title: HTMLElement): void {
    const beforeOpen = !this.isOpen;
    const config = siteConfig(this.#client()).catch(() => {
      if (this.#config === config) {
        this.#config = undefined;
        if (beforeOpen && this.isOpen) this.#loadConfig(title);
      }
      return undefined;
    });
    this.#config = config;
    void config.then((found) => {
      // A site that gave its own title label but none with the name keeps its own words.
      const own = this.#host.options.labels ?? {};
      if (found && this.#host.options.title === undefined && (!own.title || own.titleWithName))
        title.textContent = fill(this.#labels.titleWithName, { name: found.name });
      this.#render();
    });
  }

  /**
   * Keys pressed while focus is outside the open dialog (the reader clicked the page): Escape still closes
   * it and Tab brings focus back into it, as a modal dialog's keys do. Escape in something the page
   * focused (its own search opened over the panel with Ctrl+K) is the page's.
   */
  readonly #documentKey = (event: KeyboardEvent): void => {
    if (!this.isOpen || !this.#panel || event.defaultPrevented) return;
    if (event.composedPath().includes(this.#panel.root)) return;
    if (event.key === 'Tab' || (event.key === 'Escape' && event.target === document.body))
      this.#panelKey(event);
  };

  #panelKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close();
      return;
    }
    if (event.key !== 'Tab' || !this.#panel) return;
    const items = focusables(this.#panel.root);
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    const active = this.#host.shadow.activeElement;
    if (event.shiftKey && (active === first || !this.#panel.root.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !this.#panel.root.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  #logClick(event: Event): void {
    const target = event.target instanceof Element ? event.target.closest('button') : null;
    if (!target) return;
    const pre = target.parentElement?.querySelector('pre');
    if (target.classList.contains('copy') && pre) {
      void copyText(pre).then(
        () => {
          target.textContent = this.#labels.copied;
          // Its label names the button for screen readers; the status region says it worked.
          this.#announce(this.#labels.codeCopied);
          setTimeout(() => {
            target.textContent = this.#labels.copy;
          }, 1500);
        },
        () => {
          target.textContent = this.#labels.copyFailed;
          this.#announce(this.#labels.copyingFailed);
        },
      );
    }
  }

  #renderChip(): void {
    if (!this.#panel) return;
    const chip = this.#panel.chip;
    const context = this.#context;
    chip.hidden = context === undefined;
    const label = chip.querySelector('span');
    if (label && context)
      label.textContent = fill(context.type === 'code' ? this.#labels.aboutCode : this.#labels.aboutText, {
        text: context.value,
      });
  }

  async #send(question: string, retryOfAsked?: ChatMessage): Promise<void> {
    if (this.#controller) return;
    const options = this.#host.options;
    const fp = options.fp ?? 'anonymous';
    // The reader signed in or out (`Docent.update({fp})`): the server keeps a thread to the fingerprint
    // it began under, so the question starts a new conversation instead of being refused as ended.
    const fpChanged =
      this.#state.threadId !== undefined && this.#state.fp !== undefined && this.#state.fp !== fp;
    if (fpChanged) {
      this.#state = newChat();
      this.#renderedMessages = 0;
    }
    const retryOf = fpChanged ? undefined : retryOfAsked;
    const state = this.#state;
    // A retry after the server stored the failed answer regenerates it; otherwise the question goes again.
    const regenerate =
      retryOf !== undefined && !retryOf.id.startsWith('pending_') && state.threadId !== undefined;
    const context = retryOf ? undefined : this.#context;
    this.#context = undefined;
    if (retryOf) state.messages.splice(state.messages.indexOf(retryOf), 1);
    if (!regenerate && !retryOf) {
      state.messages.push({
        id: `u_${randomId()}`,
        role: 'user',
        text: question,
        sources: [],
        status: 'done',
        ...(context ? { about: context.value } : {}),
      });
    }
    const answer: ChatMessage = {
      id: `pending_${randomId()}`,
      role: 'assistant',
      text: '',
      sources: [],
      status: 'streaming',
    };
    state.messages.push(answer);
    const controller = new AbortController();
    this.#controller = controller;
    this.#announce(this.#labels.answering);
    this.#render();
    const path = options.currentPath ?? currentPagePath(options);
    try {
      await ask(
        this.#client(),
        {
          chatId: state.chatId,
          fp,
          question,
          ...(state.threadId ? { threadId: state.threadId } : {}),
          ...(state.threadKey ? { threadKey: state.threadKey } : {}),
          regenerate,
          currentPath: path,
          filter: pageFilter(options),
          ...(context ? { context: [{ ...context, path }] } : {}),
        },
        (event) => this.#onEvent(answer, event),
        controller.signal,
      );
      if (answer.status === 'streaming') answer.status = 'done';
    } catch (error) {
      this.#failed(answer, error, controller.signal.aborted);
    } finally {
      // A New chat may have started another answer since.
      if (this.#controller === controller) this.#controller = undefined;
    }
    this.#finished(answer, question);
  }

  async #resume(answer: ChatMessage): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    try {
      const found = await resume(
        this.#client(),
        this.#state.chatId,
        (event) => this.#onEvent(answer, event),
        controller.signal,
      );
      if (!found) answer.status = answer.text ? 'stopped' : 'error';
      if (!found && !answer.text)
        answer.failure = {
          title: this.#labels.interrupted,
          detail: this.#labels.interruptedDetail,
          retry: true,
        };
      else if (answer.status === 'streaming') answer.status = 'done';
    } catch (error) {
      this.#failed(answer, error, controller.signal.aborted);
    } finally {
      // A New chat may have started another answer since.
      if (this.#controller === controller) this.#controller = undefined;
    }
    const question = this.#questionBefore(answer);
    this.#finished(answer, question ?? '');
  }

  #failed(answer: ChatMessage, error: unknown, stopped: boolean): void {
    if (stopped) {
      answer.status = 'stopped';
      return;
    }
    answer.status = 'error';
    answer.failure = describeFailure(error, this.#labels);
    if (error instanceof AssistantFailure && error.kind === 'thread_not_found') {
      delete this.#state.threadId;
      delete this.#state.threadKey;
    }
    this.#host.emit('error', {
      kind: error instanceof AssistantFailure ? error.kind : 'unknown',
      message: error instanceof Error ? error.message : String(error),
      requestId: error instanceof AssistantFailure ? error.requestId : undefined,
    });
  }

  #finished(answer: ChatMessage, question: string): void {
    // An answer a New chat left behind: nothing to save or say (another may be streaming already).
    if (!this.#state.messages.includes(answer)) return;
    saveChat(this.#host.options.domain, this.#state);
    this.#render();
    if (answer.status === 'done') {
      this.#announce(this.#labels.answerReady);
      this.#host.emit('answer', {
        question,
        text: answer.text,
        sources: answer.sources,
        messageId: answer.id,
        threadId: this.#state.threadId,
      });
    } else if (answer.status === 'stopped') this.#announce(this.#labels.answerStopped);
    else if (answer.failure) this.#announce(`${answer.failure.title} ${answer.failure.detail}`);
  }

  #onEvent(answer: ChatMessage, event: StreamEvent): void {
    switch (event.type) {
      case 'start':
        // A resumed stream replays from its start: what was shown is replaced, not appended to.
        answer.text = '';
        answer.sources = [];
        if (event.messageId) answer.id = event.messageId;
        if (event.threadId) {
          this.#state.threadId = event.threadId;
          this.#state.fp = this.#host.options.fp ?? 'anonymous';
        }
        if (event.threadKey) this.#state.threadKey = event.threadKey;
        saveChat(this.#host.options.domain, this.#state);
        break;
      case 'text':
        answer.text += event.delta;
        break;
      case 'source':
        if (!answer.sources.some((s) => s.id === event.source.id)) answer.sources.push(event.source);
        break;
      case 'error':
        answer.status = 'error';
        answer.failure = { title: this.#labels.stoppedEarly, detail: event.message, retry: true };
        break;
      case 'finish':
        break;
    }
    this.#queueRender();
  }

  #questionBefore(answer: ChatMessage): string | undefined {
    const index = this.#state.messages.indexOf(answer);
    for (let i = index - 1; i >= 0; i--) {
      const message = this.#state.messages[i];
      if (message?.role === 'user') return message.text;
    }
    return undefined;
  }

  #announce(text: string): void {
    if (this.#panel) this.#panel.status.textContent = text;
  }

  #queueRender(): void {
    if (this.#renderQueued) return;
    this.#renderQueued = true;
    requestAnimationFrame(() => {
      this.#renderQueued = false;
      saveChat(this.#host.options.domain, this.#state);
      this.#render();
    });
  }

  #render(): void {
    const panel = this.#panel;
    if (!panel || panel.root.hidden) return;
    const streaming = this.#controller !== undefined;
    panel.send.textContent = streaming ? this.#labels.stop : this.#labels.send;
    panel.send.classList.toggle('stop', streaming);
    panel.send.setAttribute('aria-label', streaming ? this.#labels.stopAnswer : this.#labels.sendQuestion);
    panel.log.setAttribute('aria-busy', String(streaming));
    // The streaming answer is redrawn frame by frame, each redraw an addition to a live log: screen
    // readers that ignore aria-busy would read it over and over. The log is silent while it streams and
    // live again for the finished answer, which is then read once.
    panel.log.setAttribute('aria-live', streaming ? 'off' : 'polite');
    this.#renderChip();
    const messages = this.#state.messages;
    if (messages.length === 0) {
      panel.log.replaceChildren(this.#emptyState());
      return;
    }
    const atBottom = panel.log.scrollHeight - panel.log.scrollTop - panel.log.clientHeight < 40;
    const focusedKey = (this.#host.shadow.activeElement as HTMLElement | null)?.dataset?.key;
    const existing = new Map<string, HTMLElement>();
    for (const child of panel.log.children) {
      if (child instanceof HTMLElement && child.dataset.id) existing.set(child.dataset.id, child);
    }
    const nodes = messages.map((message, index) => {
      const signature = `${message.status}|${message.text.length}|${message.sources.length}|${message.feedback?.rating ?? ''}|${message.feedback?.comment ?? ''}|${index === messages.length - 1}`;
      const old = existing.get(message.id);
      if (old && old.dataset.signature === signature) return old;
      const node = this.#messageNode(message, index === messages.length - 1);
      node.dataset.id = message.id;
      node.dataset.signature = signature;
      return node;
    });
    const focusedInLog = panel.log.contains(this.#host.shadow.activeElement);
    // Only what changed is taken out: an unchanged answer (a link or code block a reader has focused in
    // it) stays in the page while another one streams.
    const kept = new Set(nodes);
    for (const child of [...panel.log.children]) if (!kept.has(child as HTMLElement)) child.remove();
    nodes.forEach((node, i) => {
      if (panel.log.children[i] !== node) panel.log.insertBefore(node, panel.log.children[i] ?? null);
    });
    if (focusedKey) panel.log.querySelector<HTMLElement>(`[data-key="${focusedKey}"]`)?.focus();
    // The focused control itself was replaced (a sent comment's form): focus stays in the dialog, on the
    // question box, instead of falling to the page, where Escape and Tab no longer reach us.
    if (focusedInLog && !panel.root.contains(this.#host.shadow.activeElement) && keyboardFocus())
      panel.input.focus();
    // Follows the answer while the reader is at the end of the log, and goes to a new question; a reader
    // who scrolled up to read stays where they are.
    const added = messages.length > this.#renderedMessages;
    this.#renderedMessages = messages.length;
    if (atBottom || added) panel.log.scrollTop = panel.log.scrollHeight;
  }

  #emptyState(): HTMLElement {
    const starters = this.#host.options.starterQuestions;
    const list = h('ul', { class: 'starters' });
    const fill = (questions: string[]) => {
      list.replaceChildren(
        ...questions.map((question) => {
          const button = h('button', { type: 'button' }, question);
          button.addEventListener('click', () => {
            // The list goes once the question is sent: the reader types the follow-up next.
            if (keyboardFocus()) this.#panel?.input.focus();
            void this.#send(question);
          });
          return h('li', {}, button);
        }),
      );
    };
    if (starters) fill(starters);
    else void this.#config?.then((config) => fill(config?.starterQuestions ?? []));
    return h('div', { class: 'empty' }, h('p', {}, this.#labels.empty), list);
  }

  #messageNode(message: ChatMessage, last: boolean): HTMLElement {
    if (message.role === 'user') {
      return h(
        'div',
        { class: 'msg user', dir: 'auto' },
        message.about
          ? h('span', { class: 'about' }, fill(this.#labels.about, { text: truncate(message.about, 120) }))
          : undefined,
        message.text,
      );
    }
    const body = h('div', { class: 'body', dir: 'auto' });
    if (message.text)
      renderMarkdown(
        body,
        message.text,
        message.sources,
        message.status === 'streaming' || message.status === 'stopped',
        this.#labels,
      );
    else if (message.status === 'streaming') body.append(h('p', { class: 'typing' }, this.#labels.searching));
    const node = h('div', { class: 'msg answer' }, body);
    if (message.sources.length > 0 && message.status !== 'streaming') {
      // Numbered as the answer cites them ("[2]" is source 2), not by their place in the list: an answer
      // cites only some of the sources it was given, so its list can start at 2.
      const items = [...message.sources].sort(bySourceNumber).map((source) => {
        const link = h('a', { href: safeUrl(source.url) }, source.title);
        openElsewhere(link);
        return h('li', { value: sourceNumber(source) === null ? undefined : source.id }, link);
      });
      // Right to left when its titles are (an Arabic or Hebrew site's), as the answer above it is.
      node.append(
        h('div', { class: 'sources' }, h('h3', {}, this.#labels.sources), h('ol', { dir: 'auto' }, ...items)),
      );
    }
    if (message.status === 'stopped') node.append(h('p', { class: 'typing' }, this.#labels.stopped));
    if (message.failure) node.append(this.#failureNode(message, last));
    if (message.status === 'done' && !message.id.startsWith('pending_'))
      node.append(this.#feedbackNode(message));
    // The last answer, finished or stopped, can be asked for again (the server replaces the stored one).
    if (last && (message.status === 'done' || message.status === 'stopped') && !message.failure)
      node.append(this.#tryAgainButton(message));
    return node;
  }

  #failureNode(message: ChatMessage, last: boolean): HTMLElement {
    const failure = message.failure;
    // Not an alert: the status region says a failure once, as it happens (#finished). An alert is read
    // whenever it is put in the page, and the log redraws an answer whenever the next question is asked
    // (it is no longer the last), so an old failure was read out again over the new question.
    const box = h(
      'div',
      { class: 'failure' },
      h('strong', {}, failure?.title ?? ''),
      ` ${failure?.detail ?? ''}`,
    );
    if (failure?.retry && last) box.append(this.#tryAgainButton(message));
    return box;
  }

  /** Asks the question before `message` again in its place (a regenerate once the server stored it). */
  #tryAgainButton(message: ChatMessage): HTMLElement {
    const button = h(
      'button',
      { type: 'button', class: 'ghost', 'data-key': `retry:${message.id}` },
      this.#labels.tryAgain,
    );
    button.addEventListener('click', () => {
      const question = this.#questionBefore(message);
      if (question) void this.#send(question, message);
    });
    return button;
  }

  #feedbackNode(message: ChatMessage): HTMLElement {
    const rating = message.feedback?.rating;
    const vote = (value: 'up' | 'down', label: string) => {
      const button = h(
        'button',
        {
          type: 'button',
          'aria-pressed': String(rating === value),
          'aria-label': label,
          'data-key': `${value}:${message.id}`,
        },
        icon(value === 'up' ? ICONS.up : ICONS.down, 15),
      );
      button.addEventListener('click', () => void this.#vote(message, value, message.feedback?.comment));
      return button;
    };
    const actions = h(
      'div',
      { class: 'actions' },
      h('span', {}, this.#labels.wasThisHelpful),
      vote('up', this.#labels.helpful),
      vote('down', this.#labels.notHelpful),
    );
    if (!rating) return actions;
    const wrap = h('div', {}, actions);
    if (message.feedback?.comment !== undefined) {
      wrap.append(h('p', { class: 'typing' }, this.#labels.thanks));
      return wrap;
    }
    const input = h('input', {
      type: 'text',
      'aria-label': this.#labels.tellUsMore,
      placeholder: this.#labels.tellUsMore,
      maxlength: '2000',
    });
    const send = h('button', { type: 'submit', class: 'ghost' }, this.#labels.send);
    const form = h('form', { class: 'comment' }, input, send);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#vote(message, rating, input.value.trim());
    });
    wrap.append(form);
    return wrap;
  }

  async #vote(message: ChatMessage, rating: 'up' | 'down', comment: string | undefined): Promise<void> {
    const options = this.#host.options;
    const state = this.#state;
    if (!state.threadId) return;
    const previous = message.feedback;
    message.feedback = { rating, ...(comment !== undefined ? { comment } : {}) };
    this.#render();
    // A vote and then its comment are two requests; sent at once, the first could be stored last.
    const sending = this.#feedbackSent.then(() =>
      sendFeedback(this.#client(), {
        fp: options.fp ?? 'anonymous',
        threadId: state.threadId ?? '',
        ...(state.threadKey ? { threadKey: state.threadKey } : {}),
        messageId: message.id,
        rating,
        ...(comment ? { comment } : {}),
      }),
    );
    this.#feedbackSent = sending.catch(() => {});
    try {
      await sending;
      saveChat(options.domain, state);
      this.#announce(this.#labels.thanks);
      this.#host.emit('feedback', {
        messageId: message.id,
        threadId: state.threadId,
        rating,
        comment: comment || undefined,
      });
    } catch (error) {
      if (previous) message.feedback = previous;
      else delete message.feedback;
      this.#render();
      this.#announce(
        fill(this.#labels.feedbackNotSent, { title: describeFailure(error, this.#labels).title }),
      );
      this.#host.emit('error', {
        kind: error instanceof AssistantFailure ? error.kind : 'unknown',
        message: String(error),
      });
    }
  }
}

/**
 * Puts `pre`'s text on the clipboard. A page over plain HTTP (an intranet host) has no
 * `navigator.clipboard`, a secure contexts' API: there the code is selected and copied the old way.
 */
function copyText(pre: HTMLElement): Promise<void> {
  if (navigator.clipboard) return navigator.clipboard.writeText(pre.textContent ?? '');
  getSelection()?.selectAllChildren(pre);
  return document.execCommand('copy') ? Promise.resolve() : Promise.reject();
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function safeUrl(url: string): string {
  return safeHref(url) ? url : '#';
}

/** The focused element, looking inside shadow roots (the host page may have its own components). */
function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * Whether moving focus to the question box helps: with a mouse or keyboard it does; on a touch screen it
 * would open the on-screen keyboard over the answer that is starting.
 */
/** The question box as tall as its text, up to 140 px. */
function fitHeight(input: HTMLTextAreaElement): void {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 140)}px`;
}

function keyboardFocus(): boolean {
  return !matchMedia('(pointer: coarse)').matches;
}

/** A source's citation number (`[2]`), or null for an id that is not one. */
function sourceNumber(source: Source): number | null {
  return /^[1-9]\d{0,2}$/.test(source.id) ? Number(source.id) : null;
}

function bySourceNumber(a: Source, b: Source): number {
  return (sourceNumber(a) ?? Number.POSITIVE_INFINITY) - (sourceNumber(b) ?? Number.POSITIVE_INFINITY);
}
