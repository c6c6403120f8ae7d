import { totalmem } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  BUILTIN_MODEL_SPEC,
  type ModelSpec,
  ModelSpecError,
  parseModelSpec,
} from './assistant/providers/model-spec.ts';
import { HOSTED_PROVIDERS } from './assistant/providers/provider-models.ts';
import { DEFAULT_TENANCY_CACHE_MS } from './tenancy/tenancy-cache.ts';

/**
 * The only reader of `process.env`. Everything configurable is named here, validated once at start,
 * and handed down as a plain object so the rest of the code (and tests) never touch the environment.
 */

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const httpUrl = z
  .string()
  .url()
  .refine((url) => /^https?:\/\//i.test(url), { message: 'must be an http:// or https:// URL' });

/** One of `values`, named as such when it is not (not zod's "Invalid enum value. Expected 'a' | 'b'"). */
function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: string) {
  return z.enum(values, { errorMap: () => ({ message }) });
}

const booleanFlag = oneOf(
  ['true', 'false', '1', '0', 'yes', 'no'],
  'must be true or false (1/0 and yes/no work too)',
).transform((value) => value === 'true' || value === '1' || value === 'yes');

export const DEFAULT_DATABASE_URL = 'sqlite:.docent/docent.db';

/** Most `search` tool calls a model may make for one answer. */
export const MAX_SEARCH_STEPS = 5;

/**
 * The heap grows to 1.5× its live data between full collections: a server's live data is small (indexes
 * are off the heap), while each answer leaves garbage, and V8's own factor let 32 concurrent readers grow
 * it to 3× the live data (the production-memory benchmark in docs/guides/deployment.mdx).
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/** An integer setting in a range, named as such when it is not one (`PORT=abc`: not "received nan"). */
function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
  return z.coerce.number({ invalid_type_error: message }).int(message).min(min, message).max(max, message);
}

const envSchema = z.object({
  PORT: wholeNumber(0, 65_535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .refine((url) => /^(sqlite:|postgres(ql)?:\/\/)/.test(url), {
      message: 'must start with sqlite: (e.g. sqlite:.docent/docent.db) or postgres://',
    }),
  LOG_LEVEL: oneOf(logLevels, `must be one of ${logLevels.join(', ')}`).default('info'),
  DOCENT_DOCS_DIR: z.string().min(1).default('docs'),
  // Links readers click: http(s) only, like a site's base URL.
  DOCENT_PUBLIC_URL: httpUrl.optional(),
  DOCENT_SEED_DEMO: booleanFlag.default('true'),
  DOCENT_DEMO_PAGE: booleanFlag.default('true'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|\d{1,2})$/, 'must be true, false or the number of trusted proxy hops (e.g. 1)')
    .default('false'),
  DOCENT_DOCS_ROOT: z
    .string()
    .min(1)
    .refine(
      (root) => root.replaceAll(/(^|[\\/])\{organization\}(?=[\\/]|$)/g, '$1').indexOf('{organization}') < 0,
      '{organization} must be a whole folder name of the path (/srv/docs/{organization})',
    )
    .optional(),
  DOCENT_DATA_DIR: z.string().min(1).optional(),
  DOCENT_GIT_API_CREDENTIALS: oneOf(['none', 'server'], 'must be none or server').default('none'),
  DOCENT_TENANCY_CACHE_MS: wholeNumber(0, 300_000).default(DEFAULT_TENANCY_CACHE_MS),
  DOCENT_SHUTDOWN_GRACE_MS: wholeNumber(0, 600_000).default(30_000),
  DOCENT_REQUEST_TIMEOUT_MS: wholeNumber(1_000, 600_000).default(30_000),
  DOCENT_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
  DOCENT_MODEL: z.string().default('builtin'),
  DOCENT_MODEL_BASE_URL: httpUrl.optional(),
  DOCENT_MODEL_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: httpUrl.optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: httpUrl.optional(),
  GOOGLE_GENERATIVE_AI_API_KEY: z.string().optional(),
  GOOGLE_GENERATIVE_AI_BASE_URL: httpUrl.optional(),
  MISTRAL_API_KEY: z.string().optional(),
  MISTRAL_BASE_URL: httpUrl.optional(),
  AWS_REGION: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as us-east-1')
    .optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_SESSION_TOKEN: z.string().optional(),
  AWS_BEARER_TOKEN_BEDROCK: z.string().optional(),
  BEDROCK_BASE_URL: httpUrl.optional(),
  DOCENT_MODEL_TIMEOUT_MS: wholeNumber(100, 600_000).default(30_000),
  DOCENT_MODEL_STALL_TIMEOUT_MS: wholeNumber(100, 600_000).default(30_000),
  DOCENT_MODEL_MAX_RETRIES: wholeNumber(0, 10).default(2),
  DOCENT_MODEL_SEARCH_STEPS: wholeNumber(0, MAX_SEARCH_STEPS).default(0),
  DOCENT_EMBEDDINGS: z.string().optional(),
  DOCENT_EMBEDDINGS_BASE_URL: httpUrl.optional(),
  DOCENT_EMBEDDINGS_API_KEY: z.string().optional(),
  DOCENT_INDEX_CACHE_MB: wholeNumber(16, 1_048_576).optional(),
  DOCENT_HEAP_GROWTH_PERCENT: wholeNumber(0, 400).default(DEFAULT_HEAP_GROWTH_PERCENT),
});

/** Credentials and address of one provider; null where the environment does not set them. */
export interface ProviderAccess {
  apiKey: string | null;
  baseUrl: string | null;
}

/**
 * Amazon Bedrock: a region, and either an access key pair (SigV4 signing, optionally with a session
 * token) or a Bedrock API key (`apiKey`, sent as a bearer token).
 */
export interface BedrockAccess extends ProviderAccess {
  region: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
}

export interface ModelConfig {
  /** The server-wide model (`DOCENT_MODEL`); a site's own `model` setting overrides it. */
  default: ModelSpec;
  /** OpenAI, for both `openai:` (chat completions) and `openai-responses:` (the Responses API). */
  openai: ProviderAccess;
  anthropic: ProviderAccess;
  /** Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter…: `baseUrl` is required to use it. */
  openaiCompatible: ProviderAccess;
  google: ProviderAccess;
  mistral: ProviderAccess;
  bedrock: BedrockAccess;
  /** Longest wait for the provider's response headers, per attempt. */
  connectTimeoutMs: number;
  /** Longest silence on the provider's response body (between tokens) before the answer is abandoned. */
  stallTimeoutMs: number;
  /** Retries on 408/409/429/5xx and connection failures, before any of the answer was received. */
  maxRetries: number;
  /** Searches a real model may run itself through the `search` tool per answer (0: no tool). */
  searchSteps: number;
}

/**
 * Which `X-Forwarded-For` entry is the client: `false` ignores the header (the socket address is the
 * client), `true` takes the left-most entry, a number n takes the n-th entry from the right (n proxies
 * you run, each appending the address it saw).
 */
export type TrustProxy = boolean | number;

function parseTrustProxy(value: string): TrustProxy {
  if (value === 'true') return true;
  if (value === 'false') return false;
  const hops = Number(value);
  return hops === 0 ? false : hops;
}

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  logLevel: (typeof logLevels)[number];
  docsDir: string;
  publicUrl: string | null;
  seedDemo: boolean;
  /**
   * Serve the demo site's docs with the widget at `/` (when a site `demo` exists). Each start makes a
   * new key for it and revokes the last, so turn it off where several processes share a database.
   */
  demoPage: boolean;
  /** Shared rate-limit store for several processes; null keeps counters in the process. */
  redisUrl: string | null;
  trustProxy: TrustProxy;
  /**
   * The only folder (and its subfolders) the admin API may point an ingestion at; null means the API
   * cannot name a folder at all and only re-ingests the folder an operator set with the CLI.
   */
  docsRoot: string | null;
  /** How long the assistant route reuses key, site and plan rows (tenancy/tenancy-cache.ts). */
  tenancyCacheMs: number;
  /** On SIGTERM, how long answers in progress may run on before they are ended (stored `aborted`). */
  shutdownGraceMs: number;
  /**
   * How long a client has to send a whole request, headers and body; one still sending is answered
   * `408 request_timeout`. The answer it then streams is not counted.
   */
  requestTimeoutMs: number;
  /** Bearer token for `GET /metrics`; null: no metrics endpoint. */
  metricsToken: string | null;
  /** Language-model providers. Holds API keys: never log this object. */
  model: ModelConfig;
  /** Clones of sites' git sources (sources/), and what the `git` processes that make them may see. */
  git: GitConfig;
  /** Semantic retrieval (`DOCENT_EMBEDDINGS`); null: off, search is lexical only. Holds an API key. */
  embeddings: EmbeddingsConfig | null;
  /** Byte budget of loaded search indexes (`DOCENT_INDEX_CACHE_MB`, default `defaultIndexCacheMb`). */
  indexCacheBytes: number;
  /**
   * How far V8's heap may grow past its live data before a full collection, in percent
   * (`DOCENT_HEAP_GROWTH_PERCENT`, default `DEFAULT_HEAP_GROWTH_PERCENT`); 0 leaves V8's own factor
   * (up to 4×). See heap-growth.ts.
   */
  heapGrowthPercent: number;
}

/**
 * A quarter of the machine's memory, between 256 MB and 8 GB: room for the rest of the process (answers,
 * ingestion, the runtime) and for other processes on the machine. Indexes cost about 15 KB per page.
 */
export function defaultIndexCacheMb(totalMemoryBytes: number = totalmem()): number {
  return Math.min(8_192, Math.max(256, Math.floor(totalMemoryBytes / 4 / 1_048_576)));
}

export const EMBEDDINGS_PROVIDERS = ['openai', 'openai-compatible'] as const;
export type EmbeddingsProvider = (typeof EMBEDDINGS_PROVIDERS)[number];

/** An embeddings model and how to reach it. */
export interface EmbeddingsConfig {
  provider: EmbeddingsProvider;
  /** The provider's model name, e.g. `text-embedding-3-small` or `nomic-embed-text`. */
  model: string;
  apiKey: string | null;
  baseUrl: string | null;
}

export interface GitConfig {
  /**
   * `DOCENT_DATA_DIR`; null: next to the SQLite database, or `./.docent` with PostgreSQL (see
   * `resolveDataDir`, which the CLI calls with its own `--database-url`).
   */
  dataDir: string | null;
  /**
   * The environment `git` runs with: only what git, ssh and proxies read (PATH, HOME, SSH_AUTH_SOCK,
   * proxies, CA bundles). Model keys and database URLs stay out of a process that talks to hosts a
   * site owner chose.
   */
  env: Record<string, string>;
  /**
   * `DOCENT_GIT_API_CREDENTIALS=server`: git may use the server user's credentials for sources set over
   * the admin API too, not only for those the operator set from the CLI (sources/git-sources.ts).
   */
  serverCredentialsForApiSources: boolean;
}

/** Variables handed to `git` as they are set for Docent (see GitConfig.env). */
const GIT_ENV_PASSTHROUGH = [
  'PATH',
  'HOME',
  'USER',
  'LANG',
  'LC_ALL',
  'TMPDIR',
  'SSH_AUTH_SOCK',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
] as const;

/**
 * Where git clones live: `DOCENT_DATA_DIR` when set, else the folder of a SQLite database file (so
 * `.docent/docent.db` keeps its clones in `.docent/`), else `./.docent`.
 */
export function resolveDataDir(dataDir: string | null, databaseUrl: string): string {
  if (dataDir !== null) return path.resolve(dataDir);
  const file = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : '';
  if (file !== '' && file !== ':memory:') return path.dirname(path.resolve(file.replace(/^\/\/(?=\/)/, '')));
  return path.resolve('.docent');
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as shells and .env files commonly leave them; so does one of
  // blanks (`KEY= ` in an env file), which z.coerce read as 0: PORT a random port, no shutdown grace.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  );
  const parsed = envSchema
    .superRefine(checkModelAccess)
    .superRefine(checkEmbeddingsAccess)
    .safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    for (const problem of modelProblemsOf(present)) if (!problems.includes(problem)) problems.push(problem);
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
    demoPage: e.DOCENT_DEMO_PAGE,
    redisUrl: e.REDIS_URL ?? null,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    docsRoot: e.DOCENT_DOCS_ROOT ?? null,
    tenancyCacheMs: e.DOCENT_TENANCY_CACHE_MS,
    shutdownGraceMs: e.DOCENT_SHUTDOWN_GRACE_MS,
    requestTimeoutMs: e.DOCENT_REQUEST_TIMEOUT_MS,
    metricsToken: e.DOCENT_METRICS_TOKEN ?? null,
    model: modelConfigOf(e),
    embeddings: embeddingsConfigOf(e),
    indexCacheBytes: (e.DOCENT_INDEX_CACHE_MB ?? defaultIndexCacheMb()) * 1_048_576,
    heapGrowthPercent: e.DOCENT_HEAP_GROWTH_PERCENT,
    git: {
      dataDir: e.DOCENT_DATA_DIR ?? null,
      env: Object.fromEntries(
        GIT_ENV_PASSTHROUGH.flatMap((name) => {
          const value = present[name];
          return value === undefined ? [] : [[name, value]];
        }),
      ),
      serverCredentialsForApiSources: e.DOCENT_GIT_API_CREDENTIALS === 'server',
    },
  };
}

/**
 * The model and embeddings problems of an environment whose other variables failed validation: zod runs
 * the refinements only on a valid object, so `DOCENT_MODEL=foo` beside `PORT=abc` would be reported
 * only after PORT was fixed and Docent restarted. These checks read names and keys, which need no other
 * variable to be valid.
 */
function modelProblemsOf(present: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const ctx = {
    addIssue: (issue: { path?: (string | number)[]; message?: string }) =>
      problems.push(`  ${(issue.path ?? []).join('.')}: ${issue.message ?? ''}`),
    path: [],
  } as unknown as z.RefinementCtx;
  const e = { DOCENT_MODEL: 'builtin', ...present } as unknown as z.infer<typeof envSchema>;
  checkModelAccess(e, ctx);
  checkEmbeddingsAccess(e, ctx);
  return problems;
}

/** The model settings of a validated environment. */
function modelConfigOf(e: z.infer<typeof envSchema>): ModelConfig {
  return {
    default: parseModelSpec(e.DOCENT_MODEL),
    openai: { apiKey: e.OPENAI_API_KEY ?? null, baseUrl: e.OPENAI_BASE_URL ?? null },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY ?? null, baseUrl: e.ANTHROPIC_BASE_URL ?? null },
    openaiCompatible: { apiKey: e.DOCENT_MODEL_API_KEY ?? null, baseUrl: e.DOCENT_MODEL_BASE_URL ?? null },
    google: {
      apiKey: e.GOOGLE_GENERATIVE_AI_API_KEY ?? null,
      baseUrl: e.GOOGLE_GENERATIVE_AI_BASE_URL ?? null,
    },
    mistral: { apiKey: e.MISTRAL_API_KEY ?? null, baseUrl: e.MISTRAL_BASE_URL ?? null },
    bedrock: {
      region: e.AWS_REGION ?? null,
      accessKeyId: e.AWS_ACCESS_KEY_ID ?? null,
      secretAccessKey: e.AWS_SECRET_ACCESS_KEY ?? null,
      sessionToken: e.AWS_SESSION_TOKEN ?? null,
      apiKey: e.AWS_BEARER_TOKEN_BEDROCK ?? null,
      baseUrl: e.BEDROCK_BASE_URL ?? null,
    },
    connectTimeoutMs: e.DOCENT_MODEL_TIMEOUT_MS,
    stallTimeoutMs: e.DOCENT_MODEL_STALL_TIMEOUT_MS,
    maxRetries: e.DOCENT_MODEL_MAX_RETRIES,
    searchSteps: e.DOCENT_MODEL_SEARCH_STEPS,
  };
}

/** A model configuration that would fail on the first question is refused at start instead. */
function checkModelAccess(e: z.infer<typeof envSchema>, ctx: z.RefinementCtx): void {
  let spec: ModelSpec;
  try {
    spec = parseModelSpec(e.DOCENT_MODEL);
  } catch (error) {
    if (!(error instanceof ModelSpecError)) throw error;
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['DOCENT_MODEL'], message: error.message });
    return;
  }
  const missing = (variable: string, why: string): void =>
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [variable],
      message: `required when DOCENT_MODEL is ${e.DOCENT_MODEL} (${why})`,
    });
  if (spec.provider === 'builtin') return;
  for (const { variable, why } of HOSTED_PROVIDERS[spec.provider].missing(modelConfigOf(e)))
    missing(variable, why);
}

/** `provider:model` of `DOCENT_EMBEDDINGS`, or why it is not one. */
function parseEmbeddingsSpec(spec: string): { provider: EmbeddingsProvider; model: string } | string {
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon);
  const model = spec.slice(colon + 1).trim();
  if (colon < 0 || !(EMBEDDINGS_PROVIDERS as readonly string[]).includes(provider) || model === '')
    return `must be ${EMBEDDINGS_PROVIDERS.map((p) => `${p}:<model>`).join(' or ')} (e.g. openai:text-embedding-3-small or openai-compatible:nomic-embed-text)`;
  return { provider: provider as EmbeddingsProvider, model };
}

/**
 * The embeddings settings of a validated environment. `openai:` uses the OpenAI key and address of
 * the answer model. `openai-compatible:` uses `DOCENT_EMBEDDINGS_BASE_URL` (and
 * `DOCENT_EMBEDDINGS_API_KEY`); with no address of its own it takes the answer model's
 * `DOCENT_MODEL_BASE_URL` and `DOCENT_MODEL_API_KEY` together, as one Ollama serving both would.
 * Address and key go as a pair so a key is never sent to a server it was not given for.
 */
function embeddingsConfigOf(e: z.infer<typeof envSchema>): EmbeddingsConfig | null {
  if (e.DOCENT_EMBEDDINGS === undefined) return null;
  const spec = parseEmbeddingsSpec(e.DOCENT_EMBEDDINGS);
  if (typeof spec === 'string') return null;
  if (spec.provider === 'openai')
    return { ...spec, apiKey: e.OPENAI_API_KEY ?? null, baseUrl: e.OPENAI_BASE_URL ?? null };
  return e.DOCENT_EMBEDDINGS_BASE_URL !== undefined
    ? { ...spec, apiKey: e.DOCENT_EMBEDDINGS_API_KEY ?? null, baseUrl: e.DOCENT_EMBEDDINGS_BASE_URL }
    : { ...spec, apiKey: e.DOCENT_MODEL_API_KEY ?? null, baseUrl: e.DOCENT_MODEL_BASE_URL ?? null };
}

/** Embeddings that could not be computed are refused at start, not found out at the first ingestion. */
function checkEmbeddingsAccess(e: z.infer<typeof envSchema>, ctx: z.RefinementCtx): void {
  if (e.DOCENT_EMBEDDINGS === undefined) return;
  const spec = parseEmbeddingsSpec(e.DOCENT_EMBEDDINGS);
  const issue = (path: string, message: string): void =>
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: [path], message });
  if (typeof spec === 'string') {
    issue('DOCENT_EMBEDDINGS', spec);
    return;
  }
  const config = embeddingsConfigOf(e);
  if (spec.provider === 'openai' && config?.apiKey === null)
    issue('OPENAI_API_KEY', `required when DOCENT_EMBEDDINGS is ${e.DOCENT_EMBEDDINGS} (the OpenAI API key)`);
  if (spec.provider === 'openai-compatible' && config?.baseUrl === null)
    issue(
      'DOCENT_EMBEDDINGS_BASE_URL',
      `required when DOCENT_EMBEDDINGS is ${e.DOCENT_EMBEDDINGS} (the server address, e.g. http://127.0.0.1:11434/v1 for Ollama; DOCENT_MODEL_BASE_URL is used when it is unset)`,
    );
  if (spec.provider === 'openai' && e.DOCENT_EMBEDDINGS_BASE_URL !== undefined)
    issue(
      'DOCENT_EMBEDDINGS_BASE_URL',
      'is for openai-compatible: embeddings; openai: ones use OPENAI_BASE_URL',
    );
}

/** The built-in answerer and nothing else: for tools and tests that never call a provider. */
export const BUILTIN_MODEL_CONFIG: ModelConfig = Object.freeze({
  default: BUILTIN_MODEL_SPEC,
  openai: { apiKey: null, baseUrl: null },
  anthropic: { apiKey: null, baseUrl: null },
  openaiCompatible: { apiKey: null, baseUrl: null },
  google: { apiKey: null, baseUrl: null },
  mistral: { apiKey: null, baseUrl: null },
  bedrock: {
    region: null,
    accessKeyId: null,
    secretAccessKey: null,
    sessionToken: null,
    apiKey: null,
    baseUrl: null,
  },
  connectTimeoutMs: 30_000,
  stallTimeoutMs: 30_000,
  maxRetries: 2,
  searchSteps: 0,
});
