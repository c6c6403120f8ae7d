import { describe, expect, it } from 'vitest';
import { Breakable } from './breakable.tsx';

const html = (text: string): string => String(Breakable({ text }));

describe('Breakable', () => {
  it('offers a line break every 64 characters of a run without white space, and keeps the text', () => {
    const word = 'x'.repeat(150);
    const out = html(`Why ${word} <b>fails</b>`);
    expect(out.match(/<wbr\/?>/g)).toHaveLength(2);
    expect(out.replace(/<wbr\/?>/g, '')).toBe(`Why ${word} &lt;b&gt;fails&lt;/b&gt;`);
  });

  it('leaves everyday text, emoji and right-to-left text as they are', () => {
    expect(html('How do I rotate keys? 👩‍👩‍👧 مرحبا')).toBe('How do I rotate keys? 👩‍👩‍👧 مرحبا');
  });

  it('never offers a break inside an emoji (a surrogate pair)', () => {
    const out = html('😀'.repeat(100));
    expect(out.replace(/<wbr\/?>/g, '')).toBe('😀'.repeat(100));
    expect(out).not.toMatch(/[\uD800-\uDBFF]<wbr/);
  });
});
