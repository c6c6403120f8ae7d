import { afterEach, describe, expect, it, vi } from 'vitest';
import { FALLBACK_PLAN } from '../tenancy/plans.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type LogLine, loggerInto } from '../testing/log-lines.ts';
import { createCreditGuard } from './credit-guard.ts';
import { createTenant } from './limits-fixtures.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('settling an answer while the database is unreachable', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  async function charged() {
    database = await createTestDatabase('sqlite');
    const storage = database.storage;
    const tenant = await createTenant(database.storage, { domain: 'settle' });
    const lines: LogLine[] = [];
    const guard = createCreditGuard(storage, loggerInto(lines), {
      outageRetryDelaysMs: [5, 5, 5],
    });
    const request = {
      organizationId: tenant.organization.id,
      requestId: 'req_settle',
      siteId: tenant.site.id,
    };
    await guard.charge({ ...request, plan: FALLBACK_PLAN }, async () => {});
    const ledger = () =>
      storage.db
        .selectFrom('credit_ledger')
        .select(['kind', 'credits'])
        .where('request_id', '=', 'req_settle')
        .orderBy('kind')
        .execute();
    return { guard, request, lines, ledger };
  }

  it('stores a delivered answer once the database is back, keeping its charge, without holding up the stream', async () => {
    const { guard, request, lines, ledger } = await charged();
    let tries = 0;
    let stored = false;
    await guard.settle(request, false, async () => {
      tries++;
      if (tries < 3) throw refused();
      stored = true;
    });
    // Returned after the first failed try: the reader's stream ends at once.
    expect(tries).toBe(1);
    await vi.waitFor(() => expect(stored).toBe(true));
    expect(tries).toBe(3);
    expect(await ledger()).toEqual([{ kind: 'charge', credits: 1 }]);
    await vi.waitFor(() =>
      expect(lines.map((l) => l.msg)).toContain('answer stored after the database came back'),
    );
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('refunds an unread answer with its storing once the database is back', async () => {
    const { guard, request, ledger } = await charged();
    let tries = 0;
    await guard.settle(request, true, async () => {
      tries++;
      if (tries < 2) throw refused();
    });
    await vi.waitFor(async () =>
      expect(await ledger()).toEqual([
        { kind: 'charge', credits: 1 },
        { kind: 'refund', credits: -1 },
      ]),
    );
  });

  it('gives up after its retries and says so', async () => {
    const { guard, request, lines, ledger } = await charged();
    let tries = 0;
    await guard.settle(request, false, async () => {
      tries++;
      throw refused();
    });
    await vi.waitFor(() => expect(lines.map((l) => l.msg)).toContain('storing the answer failed'));
    expect(tries).toBe(4);
    expect(await ledger()).toEqual([{ kind: 'charge', credits: 1 }]);
  });
});
