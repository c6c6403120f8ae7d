import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveDocsDirUnderRoot } from './docs-dir.ts';

describe('resolveDocsDirUnderRoot', () => {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-docs-dir-'));
  const root = path.join(tree, 'root');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  // A server folder beside the root, and a path that does not exist beside it.
  const elsewhere = path.join(tree, 'elsewhere');
  fs.mkdirSync(elsewhere);
  afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

  const refusal = (requested: string) =>
    resolveDocsDirUnderRoot(requested, root).then(
      () => 'accepted',
      (error: Error) => error.message,
    );

  it('says the same of a path outside the root whether it exists or not (no probing of the server)', async () => {
    for (const [existing, missing] of [
      [elsewhere, path.join(tree, 'missing')],
      ['../elsewhere', '../missing'],
      [os.tmpdir(), path.join(os.tmpdir(), 'docent-no-such-folder-anywhere')],
    ] as const) {
      expect(await refusal(existing)).toBe(`docsDir "${existing}" is outside DOCENT_DOCS_ROOT`);
      expect(await refusal(missing)).toBe(`docsDir "${missing}" is outside DOCENT_DOCS_ROOT`);
    }
  });

  it('accepts a folder inside the root, and says when one inside it does not exist', async () => {
    expect(await resolveDocsDirUnderRoot('docs', root)).toBe(fs.realpathSync(path.join(root, 'docs')));
    expect(await refusal('missing')).toBe('docsDir "missing" does not exist under DOCENT_DOCS_ROOT');
  });

  it('takes a path through the root as configured when the root is reached through a link', async () => {
    const linked = path.join(tree, 'linked-root');
    fs.symlinkSync(root, linked);
    const docs = path.join(linked, 'docs');
    expect(await resolveDocsDirUnderRoot(docs, linked)).toBe(fs.realpathSync(path.join(root, 'docs')));
    expect(await resolveDocsDirUnderRoot(path.join(root, 'docs'), linked)).toBe(
      fs.realpathSync(path.join(root, 'docs')),
    );
  });
});
