/**
 * The layering the code is organised by, checked on every import: HTTP at the top, the use cases
 * (src/assistant) free of Hono, and nothing below HTTP reaching up into it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './testing/paths.ts';

const src = path.join(repoRoot, 'src');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return /\.(ts|mts)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file imports, as written (`'../http/errors.ts'`, `'hono'`), resolved when relative. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map(
    (m) => m[1] ?? '',
  );
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(m[1] ?? '');
  return specifiers.map((s) =>
    s.startsWith('.') ? path.relative(src, path.resolve(path.dirname(file), s)) : s,
  );
}

/** Folders below the HTTP layer. */
const BELOW_HTTP = [
  'agents',
  'assistant',
  'analytics',
  'limits',
  'tenancy',
  'search',
  'ingest',
  'storage',
  'streams',
  'errors',
  'pages',
  'recovery',
  'metrics',
  'widget-assets',
  'sources',
];

describe('layering', () => {
  it('no module below the HTTP layer imports from src/http', () => {
    const offending: string[] = [];
    for (const folder of BELOW_HTTP) {
      const dir = path.join(src, folder);
      if (!fs.existsSync(dir)) continue;
      for (const file of filesUnder(dir)) {
        for (const target of importsOf(file))
          if (target === 'http' || target.startsWith(`http${path.sep}`))
            offending.push(`${path.relative(src, file)} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the use cases (src/assistant, src/agents, src/analytics) do not know Hono', () => {
    const files = ['assistant', 'agents', 'analytics'].flatMap((folder) =>
      filesUnder(path.join(src, folder)),
    );
    const offending = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => target === 'hono' || target.startsWith('hono/') || target.startsWith('@hono/'))
        .map((target) => `${path.relative(src, file)} → ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the assistant and agent route files stay short: parse, call the use case, encode', () => {
    const routes = [
      'assistant-message.ts',
      'assistant-message-v2.ts',
      'assistant-feedback.ts',
      'agent-api.ts',
      'mcp.ts',
    ].map((name) => path.join(src, 'http', 'routes', name));
    for (const file of routes) {
      const lines = fs.readFileSync(file, 'utf8').split('\n').length;
      expect(lines, path.basename(file)).toBeLessThanOrEqual(120);
    }
  });

  it('finds the imports it checks (the check itself works)', () => {
    expect(importsOf(path.join(src, 'app.ts'))).toContain(path.join('http', 'app-env.ts'));
    expect(importsOf(path.join(src, 'http', 'assistant-access.ts'))).toContain('hono');
  });
});
