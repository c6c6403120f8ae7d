/**
 * HTTP for `npm run bench:scale`: one question through `POST /v1/assistant/{domain}/message` (the AI SDK
 * v4 data stream, read line by line as it arrives: first byte, first text part `0:`, end; the search
 * tool's result paths `a:` and the cited sources `h:`), a `/healthz` poller and percentiles. Plain
 * node:http with a keep-alive agent per use, so a poller never waits for another's socket.
 */
import http from 'node:http';

export interface AskResult {
  status: number;
  /** ms from sending to the first body byte, the first text part and the end of the stream. */
  firstByteMs: number;
  firstTextMs: number;
  totalMs: number;
  /** Page paths the search tool returned (`a:` part), in order. */
  resultPaths: string[];
  /** Page paths of the cited sources (`h:` parts), from their URLs `…/sites/{domain}/pages/{path}#…`. */
  citedPaths: string[];
  /** Domain part of each cited URL (`/sites/{domain}/pages/…`), or the URL's host when it has no such path. */
  citedDomains: string[];
  text: string;
  /** An error part (`3:`) or a non-200 body. */
  error: string | null;
}

/**
 * One connection reused request after request (`keepAlive`), or a new connection per request: pollers
 * use those, since a server whose event loop was blocked may close an idle kept-alive socket just as the
 * next request goes out on it.
 */
export function newAgent(keepAlive = true): http.Agent {
  return new http.Agent({ keepAlive, maxSockets: 1 });
}

function citedPage(url: string): { domain: string; path: string } {
  try {
    const u = new URL(url);
    const m = /^\/sites\/([^/]+)\/pages\/(.*)$/.exec(u.pathname);
    if (m) return { domain: decodeURIComponent(m[1] as string), path: decodeURIComponent(m[2] as string) };
    return { domain: u.host, path: decodeURIComponent(u.pathname.replace(/^\//, '')) };
  } catch {
    return { domain: '', path: url };
  }
}

export function askV1(
  origin: string,
  domain: string,
  key: string,
  question: string,
  agent: http.Agent,
  timeoutMs = 600_000,
): Promise<AskResult> {
  const body = JSON.stringify({
    fp: 'bench-scale',
    messages: [{ id: 'm1', role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
  });
  const started = performance.now();
  const since = () => performance.now() - started;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${origin}/v1/assistant/${encodeURIComponent(domain)}/message`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${key}`,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const result: AskResult = {
          status: res.statusCode ?? 0,
          firstByteMs: Number.NaN,
          firstTextMs: Number.NaN,
          totalMs: Number.NaN,
          resultPaths: [],
          citedPaths: [],
          citedDomains: [],
          text: '',
          error: null,
        };
        let pending = '';
        const line = (l: string) => {
          const colon = l.indexOf(':');
          if (colon < 0) return;
          const code = l.slice(0, colon);
          let value: unknown;
          try {
            value = JSON.parse(l.slice(colon + 1));
          } catch {
            return;
          }
          if (code === '0') {
            if (Number.isNaN(result.firstTextMs)) result.firstTextMs = since();
            result.text += String(value);
          } else if (code === 'a') {
            const r = (value as { result?: { results?: { path?: string }[] } }).result;
            for (const hit of r?.results ?? [])
              if (typeof hit.path === 'string') result.resultPaths.push(hit.path);
          } else if (code === 'h') {
            const url = (value as { url?: string }).url;
            if (typeof url === 'string') {
              const page = citedPage(url);
              result.citedPaths.push(page.path);
              result.citedDomains.push(page.domain);
            }
          } else if (code === '3') {
            result.error = String(value);
          }
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (Number.isNaN(result.firstByteMs)) result.firstByteMs = since();
          if (result.status !== 200) {
            pending += chunk;
            return;
          }
          pending += chunk;
          let nl = pending.indexOf('\n');
          while (nl >= 0) {
            line(pending.slice(0, nl));
            pending = pending.slice(nl + 1);
            nl = pending.indexOf('\n');
          }
        });
        res.on('end', () => {
          result.totalMs = since();
          if (result.status !== 200) result.error = `HTTP ${result.status}: ${pending.slice(0, 300)}`;
          else if (pending.trim() !== '') line(pending);
          resolve(result);
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`question timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** GET a path; resolves with the status and the body (text) and the latency in ms. */
export function getText(
  origin: string,
  pathname: string,
  agent: http.Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${pathname}`, { agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Poller {
  /** Stops polling and resolves with every latency (ms) once the request in flight has ended. */
  stop(): Promise<number[]>;
  failures: () => number;
}

/**
 * Runs `once` again and again, one at a time, starting a new call `everyMs` after the last one started
 * (at once when it took longer), and records how long each took.
 */
export function poll(once: () => Promise<unknown>, everyMs: number): Poller {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await once();
      } catch {
        failures += 1;
      }
      latencies.push(performance.now() - started);
      const wait = everyMs - (performance.now() - started);
      if (running && wait > 0) await sleep(wait);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
    failures: () => failures,
  };
}

/** Nearest-rank percentile of `values` (p in 0–100); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

export interface Distribution {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function distribution(values: readonly number[]): Distribution {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length === 0 ? Number.NaN : values.reduce((m, v) => (v > m ? v : m), -Infinity),
  };
}
