import { describe, expect, it } from 'vitest';
import { parseSpecText } from './openapi-spec.ts';

describe('parseSpecText versions', () => {
  const versionOf = (text: string): string => {
    const parsed = parseSpecText('api.yaml', `${text}\npaths: {}\n`);
    return parsed.ok ? parsed.version : (parsed.warnings[0]?.message ?? '');
  };

  it('reads a version written unquoted in YAML, which YAML reads as a number', () => {
    expect(versionOf('openapi: 3.1')).toBe('3.1');
    expect(versionOf('openapi: 3.0')).toBe('3.0');
    expect(versionOf('swagger: 2.0')).toBe('2.0');
    expect(versionOf("openapi: '3.1.0'")).toBe('3.1.0');
  });

  it('names a version it does not read, rather than saying there is none', () => {
    expect(versionOf('openapi: 3.9.9')).toBe(
      'OpenAPI version "3.9.9" is not read (OpenAPI 3.0 to 3.2 and Swagger 2.0 are); its operations are not indexed',
    );
    expect(versionOf('openapi: 4')).toMatch(/^OpenAPI version "4.0" is not read/);
    expect(versionOf('info: {}')).toBe(
      'not an OpenAPI 3.x or Swagger 2.0 document (no "openapi" or "swagger" version)',
    );
  });
});
