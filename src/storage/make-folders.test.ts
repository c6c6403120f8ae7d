import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolders } from './make-folders.ts';

describe('makeFolders', () => {
  it('makes a folder and its missing parents, and leaves an existing one as it is', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-folders-'));
    try {
      const deep = path.join(root, 'a', 'b', 'c');
      makeFolders(deep);
      expect(fs.statSync(deep).isDirectory()).toBe(true);
      fs.writeFileSync(path.join(deep, 'kept'), 'x');
      makeFolders(deep);
      expect(fs.readFileSync(path.join(deep, 'kept'), 'utf8')).toBe('x');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('fails at once, with the reason, where a recursive mkdir never returns (under /proc)', () => {
    expect(() => makeFolders('/proc/docent-cannot-make-this/data')).toThrow(/ENOENT|EACCES|EPERM/);
  });

  it('fails with the reason when a parent is a file', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-folders-'));
    try {
      fs.writeFileSync(path.join(root, 'file'), '');
      expect(() => makeFolders(path.join(root, 'file', 'data'))).toThrow(/ENOTDIR/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
