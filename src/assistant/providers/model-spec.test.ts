import { describe, expect, it } from 'vitest';
import { formatModelSpec, ModelSpecError, parseModelSpec } from './model-spec.ts';

describe('parseModelSpec', () => {
  it('splits at the first colon only, so model ids keep theirs', () => {
    expect(parseModelSpec('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseModelSpec('openai-compatible:llama3.1:8b')).toEqual({
      provider: 'openai-compatible',
      model: 'llama3.1:8b',
    });
    expect(parseModelSpec(' anthropic:claude-3-5-haiku-latest ')).toEqual({
      provider: 'anthropic',
      model: 'claude-3-5-haiku-latest',
    });
  });

  it('accepts builtin alone', () => {
    expect(parseModelSpec('builtin')).toEqual({ provider: 'builtin', model: 'builtin' });
    expect(formatModelSpec(parseModelSpec('builtin'))).toBe('builtin');
  });

  it('quotes at most 80 characters of a refused spec back (an admin API body could echo 60 KB)', () => {
    for (const junk of ['a'.repeat(60_000), `${'p'.repeat(60_000)}:model`, `openai${' '.repeat(60_000)}:`]) {
      let message = '';
      try {
        parseModelSpec(junk);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message.length).toBeLessThan(400);
    }
    expect(() => parseModelSpec('cohere:command-r')).toThrow(/unknown provider "cohere":/);
  });

  it('rejects unknown providers, missing models and junk with a message saying what is expected', () => {
    expect(() => parseModelSpec('gpt-4o')).toThrow(/expected <provider>:<model>/);
    expect(() => parseModelSpec('cohere:command-r')).toThrow(/unknown provider "cohere"/);
    expect(() => parseModelSpec('openai:')).toThrow(ModelSpecError);
    expect(() => parseModelSpec('openai:gpt 4')).toThrow(/printable ASCII/);
    expect(() => parseModelSpec('builtin:other')).toThrow(/unknown provider "builtin"/);
    expect(() => parseModelSpec(`openai:${'x'.repeat(201)}`)).toThrow(/longer than 200/);
  });
});
