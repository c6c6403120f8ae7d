import { describe, expect, it } from 'vitest';
import { WARNING_CAP_PER_KIND, WarningSink } from './warnings.ts';

describe('WarningSink', () => {
  it('lists each warning once, in the order first given, and counts those past the cap', () => {
    const sink = new WarningSink();
    // A sidebars file read for each version and language warns the same way each time.
    for (let i = 0; i < 3; i++) {
      sink.add({ file: 'sidebars.ts', line: 9, message: 'a spread of "apiSidebar"' });
      sink.add(() => ({ file: 'sidebars.ts', line: 10, message: 'a function call (makeCategory)' }));
    }
    sink.add({ file: 'sidebars.ts', line: 11, message: 'a spread of "apiSidebar"' });
    expect(sink.list('docusaurus')).toEqual([
      { file: 'sidebars.ts', line: 9, message: 'a spread of "apiSidebar"' },
      { file: 'sidebars.ts', line: 10, message: 'a function call (makeCategory)' },
      { file: 'sidebars.ts', line: 11, message: 'a spread of "apiSidebar"' },
    ]);
    const capped = new WarningSink();
    for (let i = 0; i < WARNING_CAP_PER_KIND + 5; i++)
      capped.add({ file: 'docs.json', message: `missing page ${i}` }, 'missing', 'missing pages');
    const listed = capped.list('docs.json');
    expect(listed).toHaveLength(WARNING_CAP_PER_KIND + 1);
    expect(listed.at(-1)).toEqual({ file: 'docs.json', message: '5 missing pages' });
  });

  it('drops repeats before they count against the cap', () => {
    const sink = new WarningSink();
    // Ten warnings, each repeated 30 times (300 adds, over the cap of 200), then one more.
    for (let round = 0; round < 30; round++)
      for (let i = 0; i < 10; i++)
        sink.add({ file: 'sidebars.ts', line: i, message: `missing ${i}` }, 'missing');
    sink.add({ file: 'sidebars.ts', line: 99, message: 'missing 99' }, 'missing');
    // Before: the list ended at the cap with "101 more warnings", the last warning lost.
    expect(sink.list('docusaurus').map((w) => w.line)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 99]);
  });
});
