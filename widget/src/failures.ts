import { AssistantFailure } from './chat-client.ts';
import type { ShownFailure } from './session-store.ts';

/** Every failure the API can give, in words for a reader; never a raw JSON body. */
export function describeFailure(error: unknown): ShownFailure {
  if (!(error instanceof AssistantFailure)) {
    return { title: 'Something went wrong.', detail: 'The answer could not be shown.', retry: true };
  }
  const ref = error.requestId ? ` (reference ${error.requestId})` : '';
  switch (error.kind) {
    case 'rate_limited':
      return {
        title: 'Too many questions right now.',
        detail:
          error.retryAfterSeconds !== undefined
            ? `Please try again in ${waitText(error.retryAfterSeconds)}.`
            : 'Please try again in a little while.',
        retry: true,
      };
    case 'credits_exhausted':
      return {
        title: 'The assistant is resting.',
        detail: 'This site has used all of its answers for now. The docs themselves are still here.',
        retry: false,
      };
    case 'unauthorized':
      return {
        title: 'The assistant is not set up for this page.',
        detail: 'Its key or allowed sites need attention from the site owner.',
        retry: false,
      };
    case 'thread_not_found':
      return {
        title: 'This conversation has ended.',
        detail: 'Start a new chat to keep asking.',
        retry: false,
      };
    case 'offline':
      return { title: 'You are offline.', detail: 'Check your connection, then try again.', retry: true };
    case 'unreachable':
      return {
        title: 'The assistant cannot be reached.',
        detail: 'It may be restarting. Try again in a moment.',
        retry: true,
      };
    case 'invalid_request':
      return { title: 'That question could not be sent.', detail: `${error.message}${ref}`, retry: false };
    default:
      return {
        title: 'Something went wrong on our side.',
        detail: `Please try again${ref}.`,
        retry: true,
      };
  }
}

export function waitText(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} seconds`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  const hours = Math.ceil(minutes / 60);
  return hours === 1 ? 'an hour' : `${hours} hours`;
}
