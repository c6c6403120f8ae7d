import { describe, expect, it } from 'vitest';
import { creditsLeft } from '../../../analytics/overview.ts';
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

describe('credits left', () => {
  it('counts the overage the plan still allows, as the overview does', () => {
    const balance = { remaining: 0, overage: 10 };
    expect(creditsLeft({ overageEnabled: true, overageCap: 50 }, balance)).toBe(40);
    expect(creditsLeft({ overageEnabled: true, overageCap: null }, balance)).toBeNull();
    expect(creditsLeft({ overageEnabled: false, overageCap: 50 }, { remaining: 7, overage: 0 })).toBe(7);
    expect(creditsLeft({ overageEnabled: true, overageCap: 5 }, { remaining: 3, overage: 9 })).toBe(3);
  });
});
