import { describe, expect, it } from 'vitest';
import { everyDay } from './usage-screen.tsx';

describe('the usage chart', () => {
  it('has every day of the month so far, zeros where nothing was used', () => {
    const used = { day: '2026-11-03', requests: 4, credits: 4, overage: 0 };
    const days = everyDay({ from: '2026-11-01', to: '2026-11-04' }, [used]);
    expect(days.map((d) => d.day)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
    expect(days.map((d) => d.requests)).toEqual([0, 0, 4, 0]);
    expect(everyDay({ from: '2026-11-01', to: '2026-11-01' }, [])).toHaveLength(1);
  });
});
