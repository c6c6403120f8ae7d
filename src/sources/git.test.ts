import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitCommandError, runGit } from './git.ts';

/** Whether a process is still running (a zombie, dead and not yet reaped by its new parent, is not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state is the field after the command's parenthesised name.
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

describe('a git command that is stopped', () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-fake-git-'));
  afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

  it('stops with the helpers it started (they went on downloading after a timeout)', async () => {
    // A git that starts a helper (as git starts git-remote-https) and waits.
    const pidFile = path.join(bin, 'helper.pid');
    fs.writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nsleep 30 &\necho $! > ${JSON.stringify(pidFile)}\nwait\n`,
      { mode: 0o755 },
    );
    const run = runGit('https', ['clone', 'https://example.invalid/repo.git'], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
      timeoutMs: 500,
    });
    await expect(run).rejects.toThrow(GitCommandError);
    await expect(run).rejects.toThrow(/took longer than/);
    const helper = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(helper).toBeGreaterThan(0);
    await expect.poll(() => alive(helper), { timeout: 5_000 }).toBe(false);
  });
});

describe('a remote that sends endless data', () => {
  let server: http.Server;
  let url = '';
  beforeAll(async () => {
    // A ref advertisement that never ends: git-remote-http keeps it in memory, where no size watcher looks.
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) {
          // until the socket's buffer is full; 'drain' resumes
        }
      };
      res.on('drain', pump);
      res.on('error', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is stopped by the memory limit, not let grow until the timeout (it took 5 GB in 10 s)', async () => {
    const started = Date.now();
    const run = runGit('http', ['ls-remote', '--', url], {
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 60_000,
      maxMemoryBytes: 64 * 1024 * 1024,
    });
    await expect(run).rejects.toThrow('git ls-remote stopped: it needed more than 64 MB of memory');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('still says so when git is not installed', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-no-git-'));
    try {
      await expect(runGit('https', ['--version'], { env: { PATH: empty } })).rejects.toThrow(
        'git is not installed on the server',
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a remote that redirects to another host', () => {
  const seen: (string | undefined)[] = [];
  let target: http.Server;
  let origin: http.Server;
  let url = '';
  const listen = async (server: http.Server): Promise<number> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  beforeAll(async () => {
    // Another origin (another port is one to curl): it records what login it was sent, and asks for one.
    target = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'www-authenticate': 'Basic realm="elsewhere"' }).end();
    });
    const targetPort = await listen(target);
    origin = http.createServer((req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${targetPort}${req.url ?? '/'}` }).end();
    });
    url = `http://user:s3cret-token@127.0.0.1:${await listen(origin)}/repo.git`;
  });
  afterAll(async () => {
    await Promise.all([origin, target].map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it("is followed without the URL's token, which neither reaches that host nor the error", async () => {
    const run = runGit('http', ['ls-remote', '--', url], { env: { PATH: process.env.PATH ?? '' } });
    await expect(run).rejects.toThrow(/Authentication failed/);
    await expect(run).rejects.not.toThrow(/s3cret/);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((header) => header !== undefined)).toEqual([]);
  });
});
