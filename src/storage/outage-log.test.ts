import { describe, expect, it, vi } from 'vitest';
import { type LogLine, loggerInto } from '../testing/log-lines.ts';
import { logJobFailure, OutageLog } from './outage-log.ts';

describe('OutageLog', () => {
  it('writes one error with its stack per outage and one line when a probe finds the service back', async () => {
    const lines: LogLine[] = [];
    let up = false;
    const outage = new OutageLog(
      'database',
      async () => {
        if (!up) throw new Error('still down');
      },
      loggerInto(lines),
      { probeMs: 10 },
    );
    for (let i = 0; i < 5; i++) outage.failed(new Error('connect ECONNREFUSED'), { requestId: `req_${i}` });
    expect(lines.map((l) => l.msg)).toEqual(['database unreachable']);
    expect(lines[0]?.err?.stack).toMatch(/ECONNREFUSED/);
    expect(outage.down).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(lines).toHaveLength(1);
    up = true;
    await vi.waitFor(() => expect(lines.map((l) => l.msg)).toContain('database reachable again'));
    expect(lines.at(-1)?.failures).toBe(5);
    expect(outage.down).toBe(false);
    // A later outage is told again.
    up = false;
    outage.failed(new Error('connect ECONNREFUSED'));
    expect(lines.filter((l) => l.msg === 'database unreachable')).toHaveLength(2);
    outage.close();
  });

  it("tells a background job's lost database to the outage, and its other failures as errors", async () => {
    const lines: LogLine[] = [];
    let up = false;
    const logger = loggerInto(lines);
    const outage = new OutageLog(
      'database',
      async () => {
        if (!up) throw new Error('still down');
      },
      logger,
      { probeMs: 10 },
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    // A heartbeat every few seconds and a git poll, all through one outage: one line, not one each.
    for (let i = 0; i < 10; i++) logJobFailure(outage, logger, refused, 'instance heartbeat');
    logJobFailure(outage, logger, refused, 'polling git sources');
    expect(lines.map((l) => l.msg)).toEqual(['database unreachable']);
    expect(lines[0]?.job).toBe('instance heartbeat');
    // A bug is not an outage: it keeps its stack, every time.
    logJobFailure(outage, logger, new TypeError('x is undefined'), 'retention');
    expect(lines.at(-1)?.msg).toBe('retention failed');
    expect(lines.at(-1)?.err?.stack).toMatch(/TypeError: x is undefined/);
    up = true;
    await vi.waitFor(() => expect(lines.at(-1)?.msg).toBe('database reachable again'));
    expect(lines.at(-1)?.failures).toBe(11);
    outage.close();
  });
});
