import { AssistantFailure } from './chat-client.ts';
import { fill, type PanelLabels } from './labels.ts';
import type { ShownFailure } from './session-store.ts';

/** Every failure the API can give, in words for a reader (the site's labels); never a raw JSON body. */
export function describeFailure(error: unknown, labels: PanelLabels): ShownFailure {
  if (!(error instanceof AssistantFailure)) {
    return { title: labels.failed, detail: labels.failedDetail, retry: true };
  }
  const reference = error.requestId ? fill(labels.reference, { id: error.requestId }) : '';
  switch (error.kind) {
    case 'rate_limited':
      return {
        title: labels.rateLimited,
        detail:
          // A second or less reads better as "a little while" than as "1 seconds".
          error.retryAfterSeconds !== undefined && error.retryAfterSeconds > 1
            ? fill(labels.rateLimitedWait, { wait: waitText(error.retryAfterSeconds, labels) })
            : labels.rateLimitedLater,
        retry: true,
      };
    case 'credits_exhausted':
      return { title: labels.creditsExhausted, detail: labels.creditsExhaustedDetail, retry: false };
    case 'unauthorized':
      return { title: labels.unauthorized, detail: labels.unauthorizedDetail, retry: false };
    case 'thread_not_found':
      return { title: labels.threadEnded, detail: labels.threadEndedDetail, retry: false };
    case 'offline':
      return { title: labels.offline, detail: labels.offlineDetail, retry: true };
    case 'unreachable':
      return { title: labels.unreachable, detail: labels.unreachableDetail, retry: true };
    case 'invalid_request':
      // The server's own message: it names the field the site sent wrong, for the site's developer.
      return { title: labels.notSent, detail: `${error.message}${reference}`, retry: false };
    default:
      return {
        title: labels.serverError,
        detail: fill(labels.serverErrorDetail, { reference }),
        retry: true,
      };
  }
}

export function waitText(seconds: number, labels: PanelLabels): string {
  if (seconds < 60) return fill(labels.seconds, { count: Math.max(1, Math.ceil(seconds)) });
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return minutes === 1 ? labels.minute : fill(labels.minutes, { count: minutes });
  const hours = Math.ceil(minutes / 60);
  return hours === 1 ? labels.hour : fill(labels.hours, { count: hours });
}
