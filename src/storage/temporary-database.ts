import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Throwaway databases for `eval`, benchmarks and tests: a SQLite file in a temp folder, or a fresh
 * database on the PostgreSQL server that `serverUrl` points at.
 */
export interface TemporaryDatabase {
  url: string;
  remove(): Promise<void>;
}

export async function createTemporaryDatabase(
  dialect: 'sqlite' | 'postgres',
  serverUrl?: string,
): Promise<TemporaryDatabase> {
  const name = `docent_tmp_${crypto.randomBytes(6).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-'));
    return {
      url: `sqlite:${path.join(dir, `${name}.db`)}`,
      remove: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!serverUrl) throw new Error('a PostgreSQL server URL is needed for a temporary PostgreSQL database');
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    remove: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
