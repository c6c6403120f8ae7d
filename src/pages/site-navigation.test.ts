import { describe, expect, it } from 'vitest';
import { type ListedPage, sectionsOf } from './site-navigation.ts';

const listed = (path: string, navOrder: number | null, navGroup: string | null = null): ListedPage => ({
  path,
  title: path,
  description: null,
  navOrder,
  navGroup,
});
const names = (pages: ListedPage[]) =>
  sectionsOf(pages).map((section) => [section.name, section.pages.map((page) => page.path)]);

describe('sectionsOf', () => {
  it('keeps a home page the navigation lists first, outside any group, first', () => {
    expect(
      names([
        listed('notes', null),
        listed('guides/deploy', 2, 'Guides'),
        listed('intro', 1),
        listed('guides/setup', 3, 'Guides'),
      ]),
    ).toEqual([
      ['Pages', ['intro']],
      ['Guides', ['guides/deploy', 'guides/setup']],
      ['Other pages', ['notes']],
    ]);
  });

  it('lists a folder without navigation by path, each index page before the pages beside it', () => {
    expect(
      names([
        listed('b', null),
        listed('guides/a', null),
        listed('guides/index', null),
        listed('index', null),
      ]),
    ).toEqual([['Pages', ['index', 'b', 'guides/index', 'guides/a']]]);
  });
});
