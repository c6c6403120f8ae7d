import { describe, expect, it } from 'vitest';
import { chartOptions } from './chart-options.ts';

describe('chartOptions', () => {
  it('shows the buckets in UTC, whatever the browser’s time zone', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      const start = Date.UTC(2026, 10, 1) / 1000; // the bucket of 1 November, UTC
      const options = chartOptions(
        { title: 't', x: [start], series: [{ label: 'Questions', values: [3] }] },
        400,
      );
      const shown = options.tzDate?.(start);
      expect(new Date(start * 1000).getDate()).toBe(31); // the zone took effect: local time is 31 October
      expect([shown?.getDate(), shown?.getHours(), shown?.getMinutes()]).toEqual([1, 0, 0]);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
