import { describe, expect, it } from 'vitest';
import { toAnalyticsFilter } from './analytics-filter.ts';
import { exportFileName } from './export.ts';

describe('exportFileName', () => {
  it('names the range by its first and last day, `to` being exclusive', () => {
    const november = toAnalyticsFilter({ from: '2026-11-01', to: '2026-11-30' });
    expect(exportFileName('conversations', november, 'csv')).toBe('conversations-2026-11-01-2026-11-30.csv');
    const oneDay = toAnalyticsFilter({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' });
    expect(exportFileName('feedback', oneDay, 'jsonl')).toBe('feedback-2026-11-01-2026-11-01.jsonl');
    // A period ends at the next whole hour: its last day is today's.
    const week = toAnalyticsFilter({ period: '7d' }, new Date('2026-11-30T03:25:00Z'));
    expect(exportFileName('feedback', week, 'csv')).toBe('feedback-2026-11-23-2026-11-30.csv');
    // A range ending just after midnight keeps that day.
    const late = toAnalyticsFilter({ from: '2026-11-01T22:00:00Z', to: '2026-11-02T00:00:00.001Z' });
    expect(exportFileName('feedback', late, 'csv')).toBe('feedback-2026-11-01-2026-11-02.csv');
  });
});
