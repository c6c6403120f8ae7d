import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DATABASE_URL, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: DEFAULT_DATABASE_URL,
      logLevel: 'info',
    });
    expect(config.publicUrl).toBeNull();
    expect(config.seedDemo).toBe(true);
  });

  it('reads and normalises values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://localhost/docent',
      DOCENT_PUBLIC_URL: 'https://docs.example.com/',
      DOCENT_SEED_DEMO: 'false',
      LOG_LEVEL: '',
    });
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBe('postgres://localhost/docent');
    expect(config.publicUrl).toBe('https://docs.example.com');
    expect(config.seedDemo).toBe(false);
    expect(config.logLevel).toBe('info');
  });

  it('fails with a message naming each bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: '70000', DATABASE_URL: 'mysql://x' });
    } catch (error) {
      expect(String(error)).toMatch(/PORT/);
      expect(String(error)).toMatch(/DATABASE_URL/);
    }
  });
});
