import { describe, expect, it } from 'vitest';
import { LlmsTextCache } from './llms-text-cache.ts';
import type { LlmsTemplate } from './llms-txt.ts';

const key = (generation: number, name = 'Acme', siteId = 'site_1') => ({
  file: 'llms-full.txt',
  siteId,
  domain: 'acme',
  name,
  generation,
});

const template = (head: string, generation: number): LlmsTemplate => ({
  data: Buffer.from(head),
  headBytes: Buffer.byteLength(head),
  pieceEnds: new Uint32Array(0),
  unitPieces: Uint32Array.of(0),
  unitIsPage: new Uint8Array(0),
  generation,
  total: 0,
  verb: 'listed',
  maxBytes: 1_000_000,
});

describe('LlmsTextCache', () => {
  it('generates a text once for any number of requests, concurrent ones included', async () => {
    const cache = new LlmsTextCache();
    let runs = 0;
    const generate = async (): Promise<LlmsTemplate> => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return template('# Acme\n', 3);
    };
    const texts = await Promise.all([1, 2, 3].map(() => cache.get(key(3), generate)));
    await cache.get(key(3), generate);
    expect(runs).toBe(1);
    expect(texts.map((t) => t?.data.toString())).toEqual(['# Acme\n', '# Acme\n', '# Acme\n']);
  });

  it('generates again after an ingestion or a rename, and keeps no answer that there is no site', async () => {
    const cache = new LlmsTextCache();
    let runs = 0;
    const generate = async (): Promise<LlmsTemplate> => template(`run ${++runs}`, 3);
    await cache.get(key(3), generate);
    expect((await cache.get(key(4), generate))?.data.toString()).toBe('run 2');
    expect((await cache.get(key(4, 'Acme Docs'), generate))?.data.toString()).toBe('run 3');
    let missing = 0;
    const none = async () => {
      missing++;
      return undefined;
    };
    expect(await cache.get(key(9), none)).toBeUndefined();
    expect(await cache.get(key(9), none)).toBeUndefined();
    expect(missing).toBe(2);
  });

  it('keeps no more than its byte budget, dropping the least recently used text', async () => {
    const cache = new LlmsTextCache(1_000);
    let runs = 0;
    const text = (n: number) => async (): Promise<LlmsTemplate> => {
      runs++;
      return template(String(n).repeat(400), n);
    };
    // Three sites' files.
    const of = (n: number) => key(n, 'Acme', `site_${n}`);
    await cache.get(of(1), text(1));
    await cache.get(of(2), text(2));
    await cache.get(of(3), text(3)); // 3 × 400 bytes: the first goes
    expect(runs).toBe(3);
    await cache.get(of(3), text(3));
    await cache.get(of(2), text(2));
    expect(runs).toBe(3);
    await cache.get(of(1), text(1));
    expect(runs).toBe(4);
  });

  it("drops a site's file of an older generation as soon as a newer one is asked for", async () => {
    const cache = new LlmsTextCache();
    let runs = 0;
    const text = (n: number) => async (): Promise<LlmsTemplate> => {
      runs++;
      return template(`generation ${n}`, n);
    };
    await cache.get(key(1), text(1));
    await cache.get(key(1, 'Acme', 'site_2'), text(1));
    await cache.get(key(2), text(2));
    expect(runs).toBe(3);
    // Plenty of budget left, yet the first site's generation 1 is gone; the other site's is kept.
    await cache.get(key(1), text(1));
    await cache.get(key(1, 'Acme', 'site_2'), text(1));
    expect(runs).toBe(4);
  });
});
