import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A site with two versions, a language, and a hidden group, in a temporary folder: setup pages under
 * `v2/` and `v1/`, a Spanish page, and an internal page whose group is hidden (never indexed).
 */
export function versionedDocs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-versioned-docs-'));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write(
    'docs.json',
    JSON.stringify({
      name: 'Versioned',
      navigation: {
        versions: [
          {
            version: 'v2',
            groups: [
              { group: 'Guides', pages: ['v2/setup', 'v2/tokens'] },
              { group: 'Internal', hidden: true, pages: ['internal/secret'] },
            ],
          },
          { version: 'v1', groups: [{ group: 'Guides', pages: ['v1/setup'] }] },
        ],
        languages: [{ language: 'es', groups: [{ group: 'Guías', pages: ['es/instalar'] }] }],
      },
    }),
  );
  write(
    'v2/setup.mdx',
    '---\ntitle: Set up the widget\ndescription: Install the widget in two minutes.\n---\n\nRun `acme install --widget` to install the widget.\n\n## Configure the installer\n\nThe installer reads `acme.toml` for the widget colour and position.\n\n### Proxy settings\n\nSet `HTTPS_PROXY` before running the installer behind a proxy.\n',
  );
  write(
    'v2/tokens.mdx',
    '---\ntitle: Access tokens\n---\n\nCreate an access token with `acme tokens create`. Tokens expire after thirty days.\n',
  );
  write(
    'v1/setup.mdx',
    '---\ntitle: Set up the legacy widget\n---\n\nRun `acme setup` to install the legacy widget installer.\n',
  );
  write(
    'es/instalar.mdx',
    '---\ntitle: Instalar el widget\n---\n\nEjecute `acme install` para instalar el widget.\n',
  );
  write(
    'internal/secret.mdx',
    '---\ntitle: Internal runbook\n---\n\nThe zebrafish rotation password lives in the vault.\n',
  );
  return dir;
}
