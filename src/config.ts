import { z } from 'zod';

/**
 * The only reader of `process.env`. Everything configurable is named here, validated once at start,
 * and handed down as a plain object so the rest of the code (and tests) never touch the environment.
 */

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const DEFAULT_DATABASE_URL = 'sqlite:.docent/docent.db';

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .refine((url) => /^(sqlite:|postgres(ql)?:\/\/)/.test(url), {
      message: 'must start with sqlite: (e.g. sqlite:.docent/docent.db) or postgres://',
    }),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  DOCENT_DOCS_DIR: z.string().min(1).default('docs'),
  DOCENT_PUBLIC_URL: z.string().url().optional(),
  DOCENT_SEED_DEMO: booleanFlag.default('true'),
  DOCENT_TEST_POSTGRES_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  logLevel: (typeof logLevels)[number];
  docsDir: string;
  publicUrl: string | null;
  seedDemo: boolean;
  /** Server that test suites create throwaway PostgreSQL databases on. */
  testPostgresUrl: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as shells and .env files commonly leave them.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    docsDir: e.DOCENT_DOCS_DIR,
    publicUrl: e.DOCENT_PUBLIC_URL?.replace(/\/+$/, '') ?? null,
    seedDemo: e.DOCENT_SEED_DEMO,
    testPostgresUrl: e.DOCENT_TEST_POSTGRES_URL,
  };
}
