import { describe, expect, it } from 'vitest';
import { citedSourceIds } from './citations.ts';

describe('citedSourceIds', () => {
  it('reads [1], [2][3] and [1, 2], not links, code or unknown ids', () => {
    expect(
      citedSourceIds('See [2][3] and [1, 2]; [x](y) [4](url) `a[5]`.', ['1', '2', '3', '4', '5']),
    ).toEqual(['2', '3', '1']);
    expect(citedSourceIds('Invented [9].', ['1'])).toEqual([]);
  });

  it('counts a citation before a colon ("run this [1]:"), not a reference definition opening a line', () => {
    // Models often cite a sentence that introduces a code block or list with a colon: without its
    // source the widget shows a bare "[1]" and no Sources list.
    expect(citedSourceIds('Run the following command [1]:\n\n```bash\nnpm start\n```')).toEqual(['1']);
    expect(citedSourceIds('Two ways [1, 2]:\n- a\n- b')).toEqual(['1', '2']);
    expect(citedSourceIds('Text.\n\n[1]: https://example.com/a\n   [2]: https://example.com/b')).toEqual([]);
  });
});
