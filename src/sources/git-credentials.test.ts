import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutServerCredentials } from './git.ts';
import { type GitCheckoutRequest, type GitWorkspace, remoteHead, syncClone } from './git-checkout.ts';
import { parseGitUrl } from './git-url.ts';

/**
 * The server user's git credentials (a credential helper and `.netrc` in its HOME, its ssh agent and
 * keys) reach the remotes of sources the operator set, and never those an organization's admin set over
 * the API (git-sources.ts `usesServerCredentials`), with the real git.
 */
describe('the server user’s git credentials', () => {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-git-credentials-'));
  const home = path.join(temp, 'home');
  const mark = path.join(temp, 'helper-ran');
  const sshCalls = path.join(temp, 'ssh-calls');
  const bin = path.join(temp, 'bin');
  const logins: (string | null)[] = [];
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    fs.mkdirSync(home);
    fs.writeFileSync(
      path.join(home, '.gitconfig'),
      `[credential]\n\thelper = "!f() { echo ran >> '${mark}'; echo username=server-user; echo password=server-secret; }; f"\n`,
    );
    fs.writeFileSync(
      path.join(home, '.netrc'),
      'machine 127.0.0.1 login netrc-user password netrc-secret\n',
      {
        mode: 0o600,
      },
    );
    // An `ssh` first on PATH that writes down how it was run and with which agent, then fails.
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'ssh'),
      `#!/bin/sh\necho "agent=$SSH_AUTH_SOCK args=$*" >> '${sshCalls}'\nexit 255\n`,
      { mode: 0o755 },
    );
    // A private repository: every request is asked for a login, and every login refused.
    server = http.createServer((request, response) => {
      logins.push(request.headers.authorization ?? null);
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="private docs"' });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs.git`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(temp, { recursive: true, force: true });
  });

  const workspace: GitWorkspace = {
    dataDir: path.join(temp, 'data'),
    env: {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: home,
      SSH_AUTH_SOCK: '/run/server-user-agent.sock',
      GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -i /srv/deploy-key',
    },
    serverCredentialsForApiSources: false,
  };
  const request = (remote: string, serverCredentials: boolean): GitCheckoutRequest => ({
    siteId: serverCredentials ? 'site_operator' : 'site_tenant',
    organizationId: 'org_credentials',
    remote: parseGitUrl(remote, { allowLocal: false }),
    branch: 'main',
    subdir: '',
    serverCredentials,
  });
  const reset = (): void => {
    logins.length = 0;
    fs.rmSync(mark, { force: true });
    fs.rmSync(sshCalls, { force: true });
  };

  it('are used over https for a source the operator set', async () => {
    reset();
    await expect(syncClone(workspace, request(url, true))).rejects.toThrow();
    expect(fs.existsSync(mark)).toBe(true);
    expect(logins.some((login) => login !== null)).toBe(true);
  });

  it('are not used over https for a source an admin set: no helper, no .netrc, no login sent', async () => {
    reset();
    await expect(syncClone(workspace, request(url, false))).rejects.toThrow();
    await expect(remoteHead(workspace, request(url, false))).rejects.toThrow();
    expect(fs.existsSync(mark)).toBe(false);
    expect(logins.length).toBeGreaterThan(0);
    expect(logins).toEqual(logins.map(() => null));
  });

  it('are not read from a repository the server happens to run in (its local config) for a source an admin set', async () => {
    // A server started from a checkout: that repository's own config (actions/checkout leaves a token as
    // http.extraHeader there) is read by `git ls-remote` run in it, the poller's check.
    const checkout = path.join(temp, 'server-checkout');
    fs.mkdirSync(path.join(checkout, 'src'), { recursive: true });
    execFileSync('git', ['init', '--quiet', checkout]);
    execFileSync('git', [
      '-C',
      checkout,
      'config',
      'http.extraHeader',
      'Authorization: Basic c2VydmVyOnNlY3JldA==',
    ]);
    const started = process.cwd();
    process.chdir(path.join(checkout, 'src'));
    try {
      reset();
      await expect(remoteHead(workspace, request(url, false))).rejects.toThrow();
      await expect(syncClone(workspace, request(url, false))).rejects.toThrow();
    } finally {
      process.chdir(started);
    }
    expect(logins.length).toBeGreaterThan(0);
    expect(logins).toEqual(logins.map(() => null));
  });

  it('run the operator’s own GIT_SSH program for a source the operator set', async () => {
    const wrapper = path.join(temp, 'ssh-wrapper');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho "wrapper args=$*" >> '${sshCalls}'\nexit 255\n`, {
      mode: 0o755,
    });
    const { GIT_SSH_COMMAND: _command, ...env } = workspace.env;
    reset();
    await expect(
      syncClone(
        { ...workspace, env: { ...env, GIT_SSH: wrapper } },
        request('ssh://git@127.0.0.1/docs.git', true),
      ),
    ).rejects.toThrow();
    expect(fs.readFileSync(sshCalls, 'utf8')).toMatch(/^wrapper args=.*127\.0\.0\.1/);
  });

  it('give ssh the operator’s key and agent only for a source the operator set', async () => {
    const ssh = 'ssh://git@127.0.0.1/docs.git';
    reset();
    await expect(syncClone(workspace, request(ssh, true))).rejects.toThrow();
    expect(fs.readFileSync(sshCalls, 'utf8')).toContain(
      'agent=/run/server-user-agent.sock args=-o BatchMode=yes -i /srv/deploy-key',
    );
    reset();
    await expect(syncClone(workspace, request(ssh, false))).rejects.toThrow();
    await expect(remoteHead(workspace, request(ssh, false))).rejects.toThrow();
    const calls = fs.readFileSync(sshCalls, 'utf8').trim().split('\n');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call).toMatch(
        /^agent= args=-F \/dev\/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityFile=\/dev\/null -o IdentityAgent=none /,
      );
      expect(call).not.toContain('deploy-key');
    }
  });
});

describe('withoutServerCredentials', () => {
  it('keeps the network settings and none of the logins: agent, keys, global config, .netrc, Kerberos', () => {
    const env = withoutServerCredentials({
      PATH: '/usr/bin',
      HOME: '/home/docent',
      SSH_AUTH_SOCK: '/run/agent.sock',
      GIT_SSH: '/usr/local/bin/ssh-wrapper',
      GIT_SSH_COMMAND: 'ssh -i /srv/deploy-key',
      HTTPS_PROXY: 'http://proxy:3128',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://proxy:3128',
      HOME: '/nonexistent',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_SSH_COMMAND:
        'ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityFile=/dev/null -o IdentityAgent=none',
      KRB5CCNAME: 'FILE:/nonexistent/krb5cc',
      KRB5_CLIENT_KTNAME: '/nonexistent/client.keytab',
    });
  });
});
