/**
 * Every word the widget shows or reads out, in English by default. A site in another language passes its
 * own (`labels` in `Docent.init`, or `data-labels` as JSON on the script tag); a label it leaves out stays
 * English. `{name}`-style fields are filled in where the label is used. The launcher's and the panel's are
 * apart so that the launcher, loaded by every page, carries only its own three.
 */
export const LAUNCHER_LABELS = {
  launcher: 'Ask AI',
  askAboutThis: 'Ask about this',
  loadFailed: 'The assistant could not be loaded. Try again in a moment.',
};

export const PANEL_LABELS = {
  title: 'Ask the docs',
  /** The title once the site's name is known (and no `title` option was given). */
  titleWithName: 'Ask {name}',
  conversation: 'Conversation',
  placeholder: 'Ask a question…',
  yourQuestion: 'Your question',
  send: 'Send',
  sendQuestion: 'Send the question',
  stop: 'Stop',
  stopAnswer: 'Stop the answer',
  removeSelection: 'Remove the selection',
  questionCut: 'Questions are cut at {count} characters.',
  newChat: 'New chat',
  close: 'Close the assistant',
  disclaimer: 'Answers are written from the docs by AI and can be wrong. Check the sources.',
  empty: 'Ask anything about these docs. Answers cite their sources.',
  aboutCode: 'About this code: {text}',
  aboutText: 'About this text: {text}',
  about: 'About: {text}',
  searching: 'Searching the docs…',
  answering: 'Answering…',
  answerReady: 'Answer ready.',
  answerStopped: 'Answer stopped.',
  stopped: 'Stopped.',
  sources: 'Sources',
  copy: 'Copy',
  copyCode: 'Copy code',
  /** A citation marker's name for screen readers. */
  citation: 'Source {number}: {title}',
  copied: 'Copied',
  copyFailed: 'Copy failed',
  codeCopied: 'Code copied',
  copyingFailed: 'Copying the code failed',
  tryAgain: 'Try again',
  wasThisHelpful: 'Was this helpful?',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  tellUsMore: 'Tell us more (optional)',
  thanks: 'Thanks for the feedback.',
  feedbackNotSent: '{title} The feedback was not sent.',
  interrupted: 'The answer was interrupted.',
  interruptedDetail: 'Ask again to get it.',
  stoppedEarly: 'The answer stopped early.',
  failed: 'Something went wrong.',
  failedDetail: 'The answer could not be shown.',
  rateLimited: 'Too many questions right now.',
  rateLimitedWait: 'Please try again in {wait}.',
  rateLimitedLater: 'Please try again in a little while.',
  seconds: '{count} seconds',
  minute: '1 minute',
  minutes: '{count} minutes',
  hour: 'an hour',
  hours: '{count} hours',
  creditsExhausted: 'The assistant is resting.',
  creditsExhaustedDetail:
    'This site has used all of its answers for now. The docs themselves are still here.',
  unauthorized: 'The assistant is not set up for this page.',
  unauthorizedDetail: 'Its key or allowed sites need attention from the site owner.',
  threadEnded: 'This conversation has ended.',
  threadEndedDetail: 'Start a new chat to keep asking.',
  offline: 'You are offline.',
  offlineDetail: 'Check your connection, then try again.',
  unreachable: 'The assistant cannot be reached.',
  unreachableDetail: 'It may be restarting. Try again in a moment.',
  notSent: 'That question could not be sent.',
  serverError: 'Something went wrong on our side.',
  serverErrorDetail: 'Please try again{reference}.',
  /** Appended where a request id is known, as `{reference}`. */
  reference: ' (reference {id})',
};

export type LauncherLabels = typeof LAUNCHER_LABELS;
export type PanelLabels = typeof PANEL_LABELS;
export type WidgetLabels = LauncherLabels & PanelLabels;

/** Longest label a site may set: a label is a button or a sentence, not a page. */
export const MAX_LABEL_CHARS = 300;

/**
 * `defaults` with the site's own labels over them: only labels `defaults` has, and only strings of 1 to
 * `MAX_LABEL_CHARS` characters (anything else, such as a label from a newer widget, is left out).
 */
export function withLabels<T extends Record<string, string>>(
  defaults: T,
  own: Partial<Record<string, unknown>> | undefined,
): T {
  const merged = { ...defaults };
  if (!own || typeof own !== 'object') return merged;
  for (const key of Object.keys(defaults) as (keyof T & string)[]) {
    const value = own[key];
    if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_LABEL_CHARS)
      merged[key] = value as T[typeof key];
  }
  return merged;
}

/** A label with its `{field}`s filled in; a field it does not name is left as written. */
export function fill(label: string, fields: Record<string, string | number>): string {
  return label.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(fields, name) ? String(fields[name]) : whole,
  );
}
