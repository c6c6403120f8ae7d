import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { containedFolder } from './contained-file.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import { DocsFolderMovedError, pinDocsFolder } from './pinned-folder.ts';

describe('pinDocsFolder', () => {
  let temp: string;
  afterEach(() => {
    fs.rmSync(temp, { recursive: true, force: true });
  });

  /** A tenants' tree with one organization's docs folder, and a folder outside it. */
  function tree() {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-pinned-'));
    const org = path.join(temp, 'root', 'org_a');
    const docs = path.join(org, 'docs');
    const outside = path.join(temp, 'outside');
    fs.mkdirSync(docs, { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(docs, 'index.md'), '# Own\n\nThe tenant wrote this page.\n');
    fs.writeFileSync(path.join(outside, 'index.md'), '# Secret\n\nOUTSIDE-CANARY is not the tenant’s.\n');
    return { org, docs, outside };
  }

  it('reads the folder it opened, even when it is swapped for a link out of the root afterwards', async () => {
    const { org, docs, outside } = tree();
    const pinned = await pinDocsFolder(docs, org);
    try {
      fs.renameSync(docs, `${docs}.was`);
      fs.symlinkSync(outside, docs);
      const site = await loadDocsFolder(pinned.path);
      const text = JSON.stringify(site.pages);
      expect(text).toContain('The tenant wrote this page.');
      expect(text).not.toContain('OUTSIDE-CANARY');
    } finally {
      await pinned.close();
    }
  });

  it('reads nothing once the opened folder is deleted and a link takes the name its handle then shows', async () => {
    const { org, docs, outside } = tree();
    const pinned = await pinDocsFolder(docs, org);
    try {
      fs.rmSync(docs, { recursive: true, force: true });
      // The kernel names a deleted folder's handle `<path> (deleted)`, and realpath resolves that text.
      fs.symlinkSync(outside, `${docs} (deleted)`);
      // A reader whose first read comes after that (the folder was listed before it went).
      const read = await containedFolder(pinned.path).readText('index.md', 1_000_000);
      expect(JSON.stringify(read)).not.toContain('OUTSIDE-CANARY');
      expect(read.ok).toBe(false);
    } finally {
      await pinned.close();
    }
  });

  it('refuses a folder that leads out of its organization’s folder when the job begins', async () => {
    const { org, docs, outside } = tree();
    fs.renameSync(docs, `${docs}.was`);
    fs.symlinkSync(outside, docs);
    await expect(pinDocsFolder(docs, org)).rejects.toBeInstanceOf(DocsFolderMovedError);
    await expect(pinDocsFolder(path.join(org, 'missing'), org)).rejects.toThrow(/docs folder not found/);
  });
});
