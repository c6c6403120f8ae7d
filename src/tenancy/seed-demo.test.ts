import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL } from '../config.ts';
import { databaseOption } from './seed-demo.ts';

describe('the database option the start-up banner prints', () => {
  it('is nothing for the default file, the URL for another, and never a password', () => {
    expect(databaseOption(DEFAULT_DATABASE_URL)).toBe('');
    expect(databaseOption('sqlite:/srv/docent.db')).toBe(" --database-url 'sqlite:/srv/docent.db'");
    expect(databaseOption('postgres://docent@db:5432/docent')).toBe(
      " --database-url 'postgres://docent@db:5432/docent'",
    );
    const withPassword = databaseOption('postgres://docent:s3cret@db:5432/docent');
    expect(withPassword).not.toContain('s3cret');
    expect(withPassword).toBe(
      " --database-url 'postgres://docent:***@db:5432/docent' (your password for ***)",
    );
    const inQuery = databaseOption('postgres://db:5432/docent?user=docent&password=s3cret&sslmode=require');
    expect(inQuery).not.toContain('s3cret');
    expect(inQuery).toContain('password=***');
  });
});
