import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A two-page Mintlify site in a temporary folder: API key rotation and billing. */
export function smallDocs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-small-docs-'));
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({
      name: 'Acme',
      navigation: { groups: [{ group: 'Guides', pages: ['keys', 'billing'] }] },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'keys.mdx'),
    '---\ntitle: Rotate API keys\n---\n\nRotate an API key with the `acme keys rotate` command. The old key stops working after one hour.\n',
  );
  fs.writeFileSync(
    path.join(dir, 'billing.mdx'),
    '---\ntitle: Billing\n---\n\nInvoices are sent on the first day of each month to the billing email address.\n',
  );
  return dir;
}
