import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, headless, with the flags this sandbox needs: no sandbox as root, and none of the
 * background networking a closed network answers with refused connections.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface HostPages {
  /** The host site's origin: another origin than Docent's, as a docs site embedding the widget is. */
  origin: string;
  /** Serves `body` (HTML unless another type is given) at `path`, `?…` ignored, until replaced. */
  set(path: string, body: string | Buffer, contentType?: string): void;
  close(): Promise<void>;
}

/** A docs site of our own making on a loopback port, for pages that embed the widget. */
export async function startHostPages(): Promise<HostPages> {
  const pages = new Map<string, { body: string | Buffer; type: string }>();
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    const page = pages.get(path);
    response.writeHead(page === undefined ? 404 : 200, {
      'Content-Type': page?.type ?? 'text/plain',
      'Cache-Control': 'no-store',
    });
    response.end(page?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set: (path, body, type = 'text/html; charset=utf-8') => void pages.set(path, { body, type }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A docs page embedding the widget with one script tag, as the README tells owners to. */
export function hostPage(options: {
  docentUrl: string;
  domain: string;
  key: string;
  attributes?: Record<string, string>;
  head?: string;
  body?: string;
  lang?: string;
}): string {
  const extra = Object.entries(options.attributes ?? {})
    .map(([name, value]) => ` ${name}="${value.replace(/"/g, '&quot;')}"`)
    .join('');
  return `<!doctype html><html lang="${options.lang ?? 'en'}"><head><meta charset="utf-8"><title>Host docs</title>${options.head ?? ''}</head>
<body><main><h1>Host docs</h1>${options.body ?? '<p>Some documentation text to read and select.</p>'}</main>
<script src="${options.docentUrl}/widget.js" data-domain="${options.domain}" data-key="${options.key}"${extra} defer></script></body></html>`;
}
