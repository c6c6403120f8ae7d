import type { ReaderGone } from './answer-question.ts';

/**
 * The reader leaving, or `also` aborting (the early charge refused, the shutdown's grace period over):
 * either ends the answer. The combined signal is made on first use, as only a model doing I/O needs one.
 */
export function goneOr(gone: ReaderGone, also: AbortSignal): ReaderGone {
  let linked: AbortSignal | undefined;
  return {
    get aborted() {
      return gone.aborted || also.aborted;
    },
    get signal() {
      // Not `AbortSignal.any`: `also` is the server-wide shutdown signal, which would keep an entry for
      // every answer (see `linkedSignal`).
      linked ??= linkedSignal(gone.signal, also);
      return linked;
    },
  };
}

/**
 * `AbortSignal.any([signal, longLived])` without what it leaves on `longLived`: Node 20's keeps a
 * `WeakRef` to every combined signal in a set on each source and never takes it out, so one made per
 * answer with the server-wide shutdown signal grew that set by an entry (about 45 bytes of heap) per
 * answer for the life of the process (found by a soak test: 18,000 such WeakRefs after 15 minutes).
 *
 * Here `longLived` gets one listener, whatever the number of links, and holds each link's controller
 * weakly in a set pruned of collected ones as it grows, so it holds at most about twice the links alive.
 */
interface Links {
  readonly controllers: Set<WeakRef<AbortController>>;
  /** Prune when the set passes this size. */
  pruneAt: number;
}

const MIN_PRUNE_AT = 1_024;
const linksOf = new WeakMap<AbortSignal, Links>();
/** Each linked signal keeps its controller alive: whoever can still be aborted can still be stopped. */
const controllerOf = new WeakMap<AbortSignal, AbortController>();

/** A signal that aborts when `signal` or `longLived` does, with the reason of the first to abort. */
export function linkedSignal(signal: AbortSignal, longLived: AbortSignal): AbortSignal {
  const controller = new AbortController();
  if (signal.aborted || longLived.aborted) {
    controller.abort(signal.aborted ? signal.reason : longLived.reason);
    return controller.signal;
  }
  controllerOf.set(controller.signal, controller);
  signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  let links = linksOf.get(longLived);
  if (links === undefined) {
    const created: Links = { controllers: new Set(), pruneAt: MIN_PRUNE_AT };
    links = created;
    linksOf.set(longLived, created);
    longLived.addEventListener(
      'abort',
      () => {
        for (const ref of created.controllers) ref.deref()?.abort(longLived.reason);
        created.controllers.clear();
      },
      { once: true },
    );
  }
  links.controllers.add(new WeakRef(controller));
  if (links.controllers.size > links.pruneAt) {
    for (const ref of links.controllers) if (ref.deref() === undefined) links.controllers.delete(ref);
    links.pruneAt = Math.max(MIN_PRUNE_AT, links.controllers.size * 2);
  }
  return controller.signal;
}

/** How many links `longLived` holds now, collected ones not yet pruned included (for tests). */
export function linkCount(longLived: AbortSignal): number {
  return linksOf.get(longLived)?.controllers.size ?? 0;
}
