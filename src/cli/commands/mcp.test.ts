import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../storage/database.ts';
import type { TemporaryDatabase } from '../../storage/temporary-database.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { createTemporaryTestDatabase, dialects } from '../../testing/databases.ts';
import { repoRoot } from '../../testing/paths.ts';
import { versionedDocs } from '../../testing/versioned-docs.ts';

describe.each(dialects)('docent mcp --site (stdio) on %s', (dialect) => {
  let database: TemporaryDatabase;
  let storage: Storage;
  let client: Client;

  beforeAll(async () => {
    database = await createTemporaryTestDatabase(dialect);
    storage = await openStorage(database.url);
    await bootstrapSite(storage, { domain: 'versioned', docsDir: versionedDocs() });
    client = new Client({ name: 'docent-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          '--import',
          'tsx',
          'src/cli/main.ts',
          '--database-url',
          database.url,
          'mcp',
          '--site',
          'versioned',
        ],
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH ?? '',
          LOG_LEVEL: 'warn',
          DOCENT_PUBLIC_URL: 'https://docs-ai.example.com',
        },
        stderr: 'pipe',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await storage?.close();
    await database?.remove();
  });

  it('lists the tools and calls each one', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_docs', 'get_page', 'search_docs']);
    const found = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'access token' },
    })) as unknown as {
      structuredContent: { results: { path: string; url: string }[] };
    };
    expect(found.structuredContent.results[0]?.path).toBe('v2/tokens');
    expect(found.structuredContent.results[0]?.url).toBe(
      'https://docs-ai.example.com/sites/versioned/pages/v2/tokens',
    );
    const page = (await client.callTool({ name: 'get_page', arguments: { path: 'v2/tokens' } })) as {
      content: { text: string }[];
    };
    expect(page.content[0]?.text).toMatch(/^# Access tokens\n/);
    const answer = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'How do I create an access token?' },
    })) as unknown as { isError?: boolean; structuredContent: { answer: string; sources: unknown[] } };
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent.answer).toMatch(/acme tokens create/);
    expect(answer.structuredContent.sources.length).toBeGreaterThan(0);
  });

  // Found by QA: over stdio nothing refused a NUL character before ask_docs stored the question or looked
  // the thread up, so on PostgreSQL the call failed with the database's own message ("invalid byte
  // sequence for encoding \"UTF8\": 0x00"), and on SQLite the question was answered and stored.
  it('refuses a NUL character in what ask_docs stores or looks up, as an invalid argument', async () => {
    for (const args of [
      { question: 'How do I create an access\u0000 token?' },
      { question: 'How do I create an access token?', threadId: 'thr_\u0000', threadKey: 'thk_x' },
      { question: 'How do I create an access token?', threadId: 'thr_x', threadKey: 'thk_\u0000' },
    ]) {
      const result = (await client.callTool({ name: 'ask_docs', arguments: args })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/Input validation error.*NUL character \(U\+0000\)/);
    }
  });

  it('answers params of the wrong shape -32602, as over HTTP (the SDK alone says -32603)', async () => {
    const sent = client.request(
      { method: 'tools/call', params: { name: 5 } as unknown as { name: string } },
      CallToolResultSchema,
    );
    await expect(sent).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.name:'),
    });
  });

  it('exits on its own, with status 0, when the client closes stdin', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', '--database-url', database.url, 'mcp', '--site', 'versioned'],
      { cwd: repoRoot, env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'ignore'] },
    );
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const firstLine = new Promise<string>((resolve) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const end = buffered.indexOf('\n');
        if (end >= 0) resolve(buffered.slice(0, end));
      });
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      })}\n`,
    );
    expect(JSON.parse(await firstLine)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'docent-versioned' } },
    });
    child.stdin.end();
    const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
    expect(await exited).toEqual({ code: 0, signal: null });
    clearTimeout(timeout);
  }, 30_000);

  it('stops an answer still running when the client closes stdin, refunds it and exits', async () => {
    // A model server that takes the request and never answers (the model's own timeout is 30 s).
    let asked: () => void = () => {};
    const modelAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const hanging = http.createServer(() => asked());
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const { port } = hanging.address() as AddressInfo;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', '--database-url', database.url, 'mcp', '--site', 'versioned'],
      {
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH ?? '',
          DOCENT_MODEL: 'openai-compatible:hanging',
          DOCENT_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`,
        },
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask_docs', arguments: { question: 'How do I create an access token?' } },
    });
    await modelAsked;
    const started = Date.now();
    child.stdin.end();
    const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
    try {
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(timeout);
      hanging.closeAllConnections();
      hanging.close();
    }
    // Before, it waited for the model's 30 s timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    // The answer that was stopped is refunded: of this call's charge (the last), a refund is recorded.
    const ledger = await storage.db
      .selectFrom('credit_ledger')
      .select(['kind', 'request_id', 'created_at'])
      .orderBy('created_at')
      .execute();
    const lastCharge = ledger.filter((row) => row.kind === 'charge').at(-1)?.request_id;
    expect(ledger.some((row) => row.kind === 'refund' && row.request_id === lastCharge)).toBe(true);
  }, 40_000);
});
