import { describe, expect, it } from 'vitest';
import {
  mentionedVersions,
  versionIdentifiers,
  versionMentions,
  withoutVersionMentions,
} from './version-mentions.ts';

const LABELS = ['Version 2025-06-18', 'Version 2026-07-28 (latest)', 'Draft', 'v1.15', 'v1.1', 'v1.15.17'];

describe('version mentions', () => {
  it("reads a label's identifiers: a v and a digit, or three parts", () => {
    expect(versionIdentifiers('Version 2026-07-28 (latest)')).toEqual(['2026-07-28', 'v2026-07-28']);
    expect(versionIdentifiers('v1.15.17')).toEqual(['v1.15.17', '1.15.17']);
    expect(versionIdentifiers('V2')).toEqual(['v2']);
    // Too often something else when written bare: "2 retries", "HTTP/1.1", "Python 3".
    expect(versionIdentifiers('Version 3 (latest)')).toEqual([]);
    expect(versionIdentifiers('1.1')).toEqual([]);
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
    expect(mentionedVersions(LABELS, 'upgrading from 1.15.17 to v1.15.2')).toEqual(['v1.15.17']);
    // Part of a longer version or number: not a mention.
    expect(mentionedVersions(LABELS, 'is v1.15.2 out? and v1.1.0? 2025-06-180')).toEqual([]);
    // A bare number, or a label without a digit, is never a mention.
    expect(mentionedVersions(['v1', 'v2', 'v1.1'], 'set 2 retries over HTTP/1.1, error 1')).toEqual([]);
    expect(mentionedVersions(LABELS, 'write a draft of the server')).toEqual([]);
    expect(mentionedVersions(LABELS, 'no numbers here')).toEqual([]);
    expect(mentionedVersions([], '2025-06-18')).toEqual([]);
  });

  it('reads any question in one pass, however long its runs', () => {
    // A backtracking pattern took seconds on runs of tens of thousands of letters before a digit.
    expect(mentionedVersions(LABELS, `${'a'.repeat(1_000_000)} 1`)).toEqual([]);
    expect(mentionedVersions(LABELS, `1${'.'.repeat(1_000_000)}1 2025-06-18`)).toEqual([
      'Version 2025-06-18',
    ]);
  });

  it('blanks the mentions of the labels asked for, and only those', () => {
    expect(withoutVersionMentions(LABELS, 'tool names in 2025-06-18?', ['Version 2025-06-18'])).toBe(
      'tool names in  ?',
    );
    expect(
      withoutVersionMentions(LABELS, '2025-06-18 vs 2026-07-28: what changed', ['Version 2025-06-18']),
    ).toBe('  vs 2026-07-28: what changed');
    expect(withoutVersionMentions(LABELS, 'nothing named', ['Version 2025-06-18'])).toBe('nothing named');
    expect(versionMentions(LABELS, 'v1.1 and (V1.1.)')).toEqual([
      { label: 'v1.1', start: 0, end: 4 },
      { label: 'v1.1', start: 10, end: 14 },
    ]);
  });
});
