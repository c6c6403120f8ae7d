import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from './testing/paths.ts';

/**
 * Node's V8 pool is four threads on any machine unless told otherwise; beside the page-parsing workers,
 * which fill every core, they made cold ingestion a quarter slower on 2 cores (docs/guides/deployment.mdx).
 * Every way this repository starts Docent sizes it from the CPUs instead.
 */
const POOL_FLAG = '--v8-pool-size=0';

it('starts the server and the CLI with the V8 pool sized from the CPUs', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  for (const script of ['start', 'start:dev', 'docent']) expect(pkg.scripts[script]).toContain(POOL_FLAG);
  const dockerfile = fs.readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  // In the image's environment, so that `docker exec … node dist/cli/main.js` has it as well as the server.
  expect(dockerfile).toMatch(/^ENV NODE_OPTIONS=--v8-pool-size=0$/m);
  // Git clones go where the image's user may write, whatever DATABASE_URL says (compose uses PostgreSQL,
  // and the default next to a SQLite file would then be /app/.docent, owned by root).
  expect(dockerfile).toMatch(/^\s+DOCENT_DATA_DIR=\/data$/m);
  expect(dockerfile).toMatch(/^RUN mkdir -p \/data && chown node:node \/data$/m);
  expect(dockerfile).toMatch(/^USER node$/m);
});
