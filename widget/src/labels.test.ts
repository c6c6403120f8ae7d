import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../src/testing/paths.ts';
import { fill, LAUNCHER_LABELS, MAX_LABEL_CHARS, PANEL_LABELS, withLabels } from './labels.ts';

describe('widget labels', () => {
  it('takes a site’s own labels over the English ones, only known names and text of 1 to 300 characters', () => {
    const merged = withLabels(PANEL_LABELS, {
      send: 'Envoyer',
      stop: '',
      copy: '   ',
      newChat: 42,
      sources: 'x'.repeat(MAX_LABEL_CHARS + 1),
      notALabel: 'ignored',
    });
    expect(merged.send).toBe('Envoyer');
    expect(merged.stop).toBe(PANEL_LABELS.stop);
    expect(merged.copy).toBe(PANEL_LABELS.copy);
    expect(merged.newChat).toBe(PANEL_LABELS.newChat);
    expect(merged.sources).toBe(PANEL_LABELS.sources);
    expect(merged).not.toHaveProperty('notALabel');
    for (const own of [undefined, null, 'Envoyer', ['Envoyer']])
      expect(withLabels(LAUNCHER_LABELS, own as never)).toEqual(LAUNCHER_LABELS);
  });

  it('fills the fields a label names and leaves the others as written', () => {
    expect(fill('Demandez à {name} ({name})', { name: 'Acme' })).toBe('Demandez à Acme (Acme)');
    expect(fill('{count} secondes {wait}', { count: 3 })).toBe('3 secondes {wait}');
    expect(fill('{constructor}', {})).toBe('{constructor}');
  });

  it('are all listed in the widget guide with their English', () => {
    const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'guides', 'widget.mdx'), 'utf8');
    for (const [name, english] of Object.entries({ ...LAUNCHER_LABELS, ...PANEL_LABELS }))
      expect(guide, name).toContain(`  ${name}: ${JSON.stringify(english)},`);
  });
});
