import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_DATABASE_URL,
  defaultIndexCacheMb,
  loadConfig,
  resolveDataDir,
} from './config.ts';

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
    expect(config.demoPage).toBe(true);
  });

  it('reads and normalises values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://localhost/docent',
      DOCENT_PUBLIC_URL: 'https://docs.example.com/',
      DOCENT_SEED_DEMO: 'false',
      DOCENT_DEMO_PAGE: '0',
      LOG_LEVEL: '',
    });
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBe('postgres://localhost/docent');
    expect(config.publicUrl).toBe('https://docs.example.com');
    expect(config.seedDemo).toBe(false);
    expect(config.demoPage).toBe(false);
    expect(config.logLevel).toBe('info');
  });

  it('reads a variable of blanks as not set, not as 0', () => {
    const config = loadConfig({
      PORT: ' ',
      DOCENT_SHUTDOWN_GRACE_MS: ' ',
      DOCENT_TENANCY_CACHE_MS: '\t',
      DOCENT_MODEL_MAX_RETRIES: '  ',
      HOST: ' ',
    });
    expect(config.port).toBe(3000);
    expect(config.shutdownGraceMs).toBe(30_000);
    expect(config.tenancyCacheMs).toBe(loadConfig({}).tenancyCacheMs);
    expect(config.model.maxRetries).toBe(2);
    expect(config.host).toBe('0.0.0.0');
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
    // A number that is not one is called what it should be, not "Expected number, received nan".
    for (const value of ['abc', '70000', '80.5'])
      expect(() => loadConfig({ PORT: value })).toThrow('PORT: must be a whole number from 0 to 65,535');
  });

  it('names the values a setting of a fixed list takes, in words', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(() => loadConfig({ DOCENT_DEMO_PAGE: 'nah' })).toThrow('DOCENT_DEMO_PAGE: must be true or false');
    expect(() => loadConfig({ DOCENT_GIT_API_CREDENTIALS: 'all' })).toThrow(
      'DOCENT_GIT_API_CREDENTIALS: must be none or server',
    );
  });

  it('names a bad model or embeddings setting beside the other bad variables, not after a restart', () => {
    // Found starting with DOCENT_SEED_DEMO=maybe DOCENT_MODEL=foo: only DOCENT_SEED_DEMO was named.
    let message = '';
    try {
      loadConfig({
        DOCENT_SEED_DEMO: 'maybe',
        DOCENT_MODEL: 'foo',
        DOCENT_EMBEDDINGS: 'openai:text-embedding-3-small',
      });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/DOCENT_SEED_DEMO: must be true or false \(1\/0 and yes\/no work too\)/);
    expect(message).toMatch(/DOCENT_MODEL: "foo" is not a model/);
    expect(message).toMatch(
      /OPENAI_API_KEY: required when DOCENT_EMBEDDINGS is openai:text-embedding-3-small/,
    );
    expect(() => loadConfig({ PORT: 'abc', DOCENT_MODEL: 'anthropic:claude-haiku-4-5' })).toThrow(
      /ANTHROPIC_API_KEY: required when DOCENT_MODEL/,
    );
    // Each problem once, where the schema passes and the refinement names it itself.
    try {
      loadConfig({ DOCENT_MODEL: 'foo' });
    } catch (error) {
      expect(String(error).match(/DOCENT_MODEL:/g)).toHaveLength(1);
    }
  });

  it('takes only an http(s) public URL: it is put in front of links readers click', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'ftp://docs.example.com']) {
      expect(() => loadConfig({ DOCENT_PUBLIC_URL: url }), url).toThrow(/DOCENT_PUBLIC_URL/);
    }
    expect(loadConfig({ DOCENT_SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
    expect(() => loadConfig({ DOCENT_SHUTDOWN_GRACE_MS: '-1' })).toThrow(/DOCENT_SHUTDOWN_GRACE_MS/);
  });
});

describe('loadConfig: the search index cache', () => {
  it('takes DOCENT_HEAP_GROWTH_PERCENT, 50 unless set, 0 for V8 own factor', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ DOCENT_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ DOCENT_HEAP_GROWTH_PERCENT: '100' }).heapGrowthPercent).toBe(100);
    for (const bad of ['-1', '401', 'lots', '1.5'])
      expect(() => loadConfig({ DOCENT_HEAP_GROWTH_PERCENT: bad }), bad).toThrow(
        /DOCENT_HEAP_GROWTH_PERCENT/,
      );
  });

  it('takes DOCENT_INDEX_CACHE_MB in megabytes, else a quarter of memory between 256 MB and 8 GB', () => {
    expect(loadConfig({ DOCENT_INDEX_CACHE_MB: '512' }).indexCacheBytes).toBe(512 * 1_048_576);
    expect(loadConfig({}).indexCacheBytes).toBe(defaultIndexCacheMb() * 1_048_576);
    expect(defaultIndexCacheMb(24 * 1024 ** 3)).toBe(6_144);
    expect(defaultIndexCacheMb(512 * 1024 ** 2)).toBe(256);
    expect(defaultIndexCacheMb(256 * 1024 ** 3)).toBe(8_192);
    for (const bad of ['0', '15', '1.5', 'lots'])
      expect(() => loadConfig({ DOCENT_INDEX_CACHE_MB: bad }), bad).toThrow(/DOCENT_INDEX_CACHE_MB/);
  });
});

describe('loadConfig: models', () => {
  it('defaults to the built-in answerer and reads provider access', () => {
    expect(loadConfig({}).model.default).toEqual({ provider: 'builtin', model: 'builtin' });
    const config = loadConfig({
      DOCENT_MODEL: 'openai-compatible:llama3.1:8b',
      DOCENT_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_API_KEY: 'sk-1',
      DOCENT_MODEL_STALL_TIMEOUT_MS: '5000',
    });
    expect(config.model.default).toEqual({ provider: 'openai-compatible', model: 'llama3.1:8b' });
    expect(config.model.openaiCompatible).toEqual({ apiKey: null, baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(config.model.openai).toEqual({ apiKey: 'sk-1', baseUrl: null });
    expect(config.model.stallTimeoutMs).toBe(5000);
    const bedrock = loadConfig({
      DOCENT_MODEL: 'bedrock:amazon.nova-lite-v1:0',
      AWS_REGION: 'eu-central-1',
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key',
    });
    expect(bedrock.model.bedrock).toEqual({
      region: 'eu-central-1',
      accessKeyId: null,
      secretAccessKey: null,
      sessionToken: null,
      apiKey: 'bedrock-key',
      baseUrl: null,
    });
    expect(config.model.maxRetries).toBe(2);
  });

  it.each([
    [{ DOCENT_MODEL: 'gpt-4o' }, /DOCENT_MODEL: .*expected <provider>:<model>/],
    [{ DOCENT_MODEL: 'cohere:command-r' }, /DOCENT_MODEL: unknown provider "cohere"/],
    [{ DOCENT_MODEL: 'mistral:mistral-small-latest' }, /MISTRAL_API_KEY: required/],
    [{ DOCENT_MODEL: 'google:gemini-2.5-flash' }, /GOOGLE_GENERATIVE_AI_API_KEY: required/],
    [{ DOCENT_MODEL: 'openai-responses:gpt-5-mini' }, /OPENAI_API_KEY: required/],
    [{ DOCENT_MODEL: 'bedrock:amazon.nova-lite-v1:0' }, /AWS_REGION: required/],
    [
      { DOCENT_MODEL: 'bedrock:amazon.nova-lite-v1:0', AWS_REGION: 'us-east-1' },
      /AWS_ACCESS_KEY_ID: required .*AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK/,
    ],
    // The half of the key pair that is missing is named, not the one that is set.
    [
      { DOCENT_MODEL: 'bedrock:amazon.nova-lite-v1:0', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKID' },
      /AWS_SECRET_ACCESS_KEY: required .*AWS_ACCESS_KEY_ID, or AWS_BEARER_TOKEN_BEDROCK/,
    ],
    [
      { DOCENT_MODEL: 'bedrock:amazon.nova-lite-v1:0', AWS_REGION: 'us-east-1', AWS_SECRET_ACCESS_KEY: 's' },
      /AWS_ACCESS_KEY_ID: required .*AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK/,
    ],
    [{ AWS_REGION: 'mars' }, /AWS_REGION: must be an AWS region/],
    [{ DOCENT_MODEL: 'openai:gpt-4o' }, /OPENAI_API_KEY: required when DOCENT_MODEL is openai:gpt-4o/],
    [{ DOCENT_MODEL: 'anthropic:claude-x' }, /ANTHROPIC_API_KEY: required/],
    [{ DOCENT_MODEL: 'openai-compatible:llama3' }, /DOCENT_MODEL_BASE_URL: required/],
    [{ DOCENT_MODEL_BASE_URL: 'ftp://x' }, /DOCENT_MODEL_BASE_URL: must be an http/],
    [{ DOCENT_MODEL_MAX_RETRIES: '-1' }, /DOCENT_MODEL_MAX_RETRIES/],
  ])('fails at start on %o, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads Redis, proxy trust and the docs root', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ redisUrl: null, trustProxy: false, docsRoot: null });
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      TRUST_PROXY: '2',
      DOCENT_DOCS_ROOT: '/srv/docs',
    });
    expect(config).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      trustProxy: 2,
      docsRoot: '/srv/docs',
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(() => loadConfig({ REDIS_URL: 'http://x' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
    for (const root of ['/srv/docs/{organization}', '/srv/{organization}/docs', '{organization}'])
      expect(loadConfig({ DOCENT_DOCS_ROOT: root }).docsRoot, root).toBe(root);
    for (const root of ['/srv/docs-{organization}', '/srv/{organization}x', '/srv/{org}/{organization}s'])
      expect(() => loadConfig({ DOCENT_DOCS_ROOT: root }), root).toThrow(/whole folder name/);
  });
});

describe('loadConfig: git sources', () => {
  it('keeps clones next to a SQLite database unless DOCENT_DATA_DIR says otherwise', () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite:/var/lib/docent/docent.db' });
    expect(config.git.dataDir).toBeNull();
    expect(resolveDataDir(config.git.dataDir, config.databaseUrl)).toBe('/var/lib/docent');
    expect(resolveDataDir(null, 'postgres://db/docent')).toBe(path.resolve('.docent'));
    expect(resolveDataDir(null, 'sqlite::memory:')).toBe(path.resolve('.docent'));
    const set = loadConfig({ DOCENT_DATA_DIR: '/srv/docent-data' });
    expect(resolveDataDir(set.git.dataDir, set.databaseUrl)).toBe('/srv/docent-data');
  });

  it('hands git the path, home and proxies, never model keys or the database URL', () => {
    const config = loadConfig({
      PATH: '/usr/bin',
      HOME: '/home/docent',
      HTTPS_PROXY: 'http://proxy:3128',
      OPENAI_API_KEY: 'sk-secret',
      DATABASE_URL: 'postgres://user:pw@db/docent',
    });
    expect(config.git.env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/docent',
      HTTPS_PROXY: 'http://proxy:3128',
    });
  });
});

describe('loadConfig: embeddings', () => {
  it('is off unless DOCENT_EMBEDDINGS is set', () => {
    expect(loadConfig({}).embeddings).toBeNull();
    expect(loadConfig({ DOCENT_EMBEDDINGS: '' }).embeddings).toBeNull();
  });

  it('reads openai: with the OpenAI key and address, and refuses it without a key', () => {
    expect(
      loadConfig({
        DOCENT_EMBEDDINGS: 'openai:text-embedding-3-small',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'https://proxy.example.com/v1',
      }).embeddings,
    ).toEqual({
      provider: 'openai',
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      baseUrl: 'https://proxy.example.com/v1',
    });
    expect(() => loadConfig({ DOCENT_EMBEDDINGS: 'openai:text-embedding-3-small' })).toThrow(
      /OPENAI_API_KEY: required when DOCENT_EMBEDDINGS is openai:text-embedding-3-small/,
    );
    expect(() =>
      loadConfig({
        DOCENT_EMBEDDINGS: 'openai:text-embedding-3-small',
        OPENAI_API_KEY: 'sk-test',
        DOCENT_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1',
      }),
    ).toThrow(/DOCENT_EMBEDDINGS_BASE_URL: is for openai-compatible/);
  });

  it('reads openai-compatible: with its own address and key, else the answer model’s pair', () => {
    expect(
      loadConfig({
        DOCENT_EMBEDDINGS: 'openai-compatible:nomic-embed-text',
        DOCENT_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1',
        DOCENT_MODEL_BASE_URL: 'http://chat.internal/v1',
        DOCENT_MODEL_API_KEY: 'chat-key',
      }).embeddings,
    ).toEqual({
      provider: 'openai-compatible',
      model: 'nomic-embed-text',
      // The chat server's key is not sent to another server.
      apiKey: null,
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
    expect(
      loadConfig({
        DOCENT_EMBEDDINGS: 'openai-compatible:nomic-embed-text',
        DOCENT_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
        DOCENT_MODEL_API_KEY: 'ollama',
      }).embeddings,
    ).toMatchObject({ apiKey: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(() => loadConfig({ DOCENT_EMBEDDINGS: 'openai-compatible:nomic-embed-text' })).toThrow(
      /DOCENT_EMBEDDINGS_BASE_URL: required when DOCENT_EMBEDDINGS is openai-compatible:nomic-embed-text/,
    );
    expect(() =>
      loadConfig({ DOCENT_EMBEDDINGS: 'openai-compatible:x', DOCENT_EMBEDDINGS_BASE_URL: 'file:///etc' }),
    ).toThrow(/DOCENT_EMBEDDINGS_BASE_URL/);
  });

  it('names DOCENT_EMBEDDINGS when it is not provider:model', () => {
    for (const value of ['text-embedding-3-small', 'anthropic:voyage', 'openai:', 'openai: ']) {
      expect(() => loadConfig({ DOCENT_EMBEDDINGS: value, OPENAI_API_KEY: 'k' }), value).toThrow(
        /DOCENT_EMBEDDINGS: must be openai:<model> or openai-compatible:<model>/,
      );
    }
  });
});
