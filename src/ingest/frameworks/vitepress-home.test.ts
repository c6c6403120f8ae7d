import { describe, expect, it } from 'vitest';
import { vitePressHome } from './vitepress-home.ts';

// Front matter as `vitepress init` (VitePress 1.6.4) writes it; built, the page shows "Acme VP" as its
// heading, the text and tagline under it, and one card per feature (title, then details).
describe('vitePressHome', () => {
  it('reads the hero and features of a home page as its title and text', () => {
    const home = vitePressHome({
      layout: 'home',
      hero: {
        name: 'Acme VP',
        text: 'The zephyr engine manual',
        tagline: 'Fast<br>flux capacitors',
        actions: [{ theme: 'brand', text: 'Get started', link: '/guide/' }],
      },
      features: [
        { title: 'Zephyr engine', details: 'Powers every Acme product.' },
        { icon: '⚡️', title: 'Quasar pipeline' },
        'not a feature',
      ],
    });
    expect(home).toEqual({
      title: 'Acme VP',
      blocks: [
        { kind: 'text', text: 'The zephyr engine manual\nFast flux capacitors' },
        { kind: 'text', text: 'Zephyr engine: Powers every Acme product.' },
        { kind: 'text', text: 'Quasar pipeline' },
      ],
    });
  });

  it('is null for other layouts, and copes with a home page without hero or features', () => {
    expect(vitePressHome({ layout: 'doc', hero: { name: 'X' } })).toBeNull();
    expect(vitePressHome({})).toBeNull();
    expect(vitePressHome({ layout: 'home', hero: 'odd', features: { title: 'x' } })).toEqual({
      title: null,
      blocks: [],
    });
  });
});
