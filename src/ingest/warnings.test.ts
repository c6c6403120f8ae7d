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
});
