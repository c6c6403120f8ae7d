import { describe, expect, it } from 'vitest';
import {
  mentionedVersions,
  versionIdentifiers,
  versionMentions,
  withoutVersionMentions,
} from './version-mentions.ts';

const LABELS = ['Version 2025-06-18', 'Version 2026-07-28 (latest)', 'Draft', 'v1.15', 'v1.1'];

describe('version mentions', () => {
  it("reads a label's identifiers: the runs that hold a digit, with and without a leading v", () => {
    expect(versionIdentifiers('Version 2026-07-28 (latest)')).toEqual(['2026-07-28']);
    expect(versionIdentifiers('v1.15.17')).toEqual(['v1.15.17', '1.15.17']);
    expect(versionIdentifiers('Draft')).toEqual([]);
    expect(versionIdentifiers('Edge')).toEqual([]);
  });

  it('finds whole identifiers only, in any case', () => {
    expect(mentionedVersions(LABELS, 'max length for tool names in 2025-06-18?')).toEqual([
      'Version 2025-06-18',
    ]);
    expect(mentionedVersions(LABELS, 'Does V1.15 support it (and 2026-07-28).')).toEqual([
      'v1.15',
      'Version 2026-07-28 (latest)',
    ]);
    // Part of a longer version or number: not a mention.
    expect(mentionedVersions(LABELS, 'is v1.15.2 out? and 1.1.0? 2025-06-180')).toEqual([]);
    expect(mentionedVersions(LABELS, 'in v1.1, or 1.1.')).toEqual(['v1.1']);
    // A label without a digit is never a mention: "draft" is also just a word.
    expect(mentionedVersions(LABELS, 'write a draft of the server')).toEqual([]);
    expect(mentionedVersions(LABELS, 'no numbers here')).toEqual([]);
    expect(mentionedVersions([], '2025-06-18')).toEqual([]);
  });

  it('blanks the mentions of the labels asked for, and only those', () => {
    expect(withoutVersionMentions(LABELS, 'tool names in 2025-06-18?', ['Version 2025-06-18'])).toBe(
      'tool names in  ?',
    );
    expect(
      withoutVersionMentions(LABELS, '2025-06-18 vs 2026-07-28: what changed', ['Version 2025-06-18']),
    ).toBe('  vs 2026-07-28: what changed');
    expect(withoutVersionMentions(LABELS, 'nothing named', ['Version 2025-06-18'])).toBe('nothing named');
    expect(versionMentions(LABELS, 'v1.1 and 1.1')).toEqual([
      { label: 'v1.1', start: 0, end: 4 },
      { label: 'v1.1', start: 9, end: 12 },
    ]);
  });
});
