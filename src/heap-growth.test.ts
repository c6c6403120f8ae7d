import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', () => ({ default: { setFlagsFromString } }));

const { setHeapGrowth } = await import('./heap-growth.ts');

describe('setHeapGrowth', () => {
  beforeEach(() => setFlagsFromString.mockClear());

  it("sets V8's heap growing percent", () => {
    expect(setHeapGrowth(30, [])).toBe(30);
    expect(setHeapGrowth(12.7, [])).toBe(12);
    expect(setHeapGrowth(0, [])).toBeNull();
    expect(setFlagsFromString.mock.calls).toEqual([
      ['--heap-growing-percent=30'],
      ['--heap-growing-percent=12'],
    ]);
  });

  it('leaves a percent given to node itself', () => {
    expect(setHeapGrowth(30, ['--heap-growing-percent=80'])).toBe(80);
    expect(setHeapGrowth(30, ['--heap_growing_percent=5'])).toBe(5);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
