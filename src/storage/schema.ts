/**
 * Table types for Kysely. Timestamps are ISO-8601 strings and lists/objects are JSON text in both
 * dialects, so rows read the same whichever database is behind them.
 */

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  /** Added by migration 0008: threads idle longer than this many days are deleted; null keeps them. */
  retention_days?: number | null;
}

export interface SitesTable {
  id: string;
  organization_id: string;
  domain: string;
  name: string;
  /** Folder the site was last ingested from, for re-ingestion without naming it again. */
  docs_dir: string | null;
  /** Prefix for deep links (`https://docs.example.com`); null gives root-relative links. */
  base_url: string | null;
  /** Bumped in the same transaction as every change to the site's pages: the search cache key. */
  index_generation: number;
  created_at: string;
  /** JSON array of origins (`https://docs.example.com`) browsers may call the assistant from; `[]` = any. */
  allowed_origins: string;
  /*
   * Added by migration 0004. Optional in the type so code that creates sites need not name them (the
   * columns default to null); null means "the server's default".
   */
  /** `provider:model` overriding `DOCENT_MODEL` for this site (`builtin` forces the built-in answerer). */
  model?: string | null;
  /** The site owner's instructions added to the model's system prompt. */
  instructions?: string | null;
  /** 1: the site's MCP server answers without a key, and its pages are published (its docs are public anyway). */
  public?: number;
  /** Added by migration 0007: JSON array of questions the widget offers on an empty panel; null: none. */
  starter_questions?: string | null;
  /** Added by migration 0010: JSON of the site's model call options (temperature, …); null: defaults. */
  model_options?: string | null;
  /** Added by migration 0012: the docs repository's `Assistant.md`, as its last ingestion read it. */
  repository_instructions?: string | null;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  site_id: string | null;
  kind: 'assistant' | 'admin';
  name: string | null;
  /** Shown in listings instead of the key: e.g. `svc_dsc_` and the last four characters. */
  prefix: string;
  last_four: string;
  /** sha256 of the full key, hex; the key itself is never stored. */
  key_hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** What an organization may spend and how fast. Integers; booleans are 0/1 in both dialects. */
export interface PlansTable {
  id: string;
  name: string;
  /** Credits included each calendar month (UTC). */
  monthly_credits: number;
  /** 1 lets requests go on past the included credits as overage; 0 answers 402 instead. */
  overage_enabled: number;
  /** Most overage credits per month; null = no cap. */
  overage_cap: number | null;
  /** Credits one assistant request costs. */
  credit_cost: number;
  org_requests_per_hour: number;
  ip_requests_per_day: number;
  admin_requests_per_minute: number;
  created_at: string;
}

export type LedgerKind = 'charge' | 'refund';

/** One row per charged request and at most one refund of it: `(request_id, kind)` is unique. */
export interface CreditLedgerTable {
  id: string;
  organization_id: string;
  site_id: string | null;
  request_id: string;
  kind: LedgerKind;
  /** Positive for a charge, negative for a refund. */
  credits: number;
  /** The part of `credits` beyond the included credits (same sign). */
  overage: number;
  /** `YYYY-MM` (UTC) the entry counts against. */
  period: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  created_at: string;
}

/** Running totals of the ledger per organization and month, read and written under the same lock. */
export interface CreditBalancesTable {
  organization_id: string;
  period: string;
  used: number;
  overage: number;
}

export interface PagesTable {
  site_id: string;
  path: string;
  title: string;
  description: string | null;
  /** JSON arrays of labels. */
  versions: string;
  languages: string;
  content_hash: string;
  updated_at: string;
  /** Position of the page's first place in the navigation; null when the navigation does not list it. */
  nav_order?: number | null;
  /** The navigation group that first lists the page (its `group` name); null outside any group. */
  nav_group?: string | null;
}

export interface ChunksTable {
  site_id: string;
  page_path: string;
  ord: number;
  anchor: string | null;
  /** JSON array of headings under the page title. */
  headings: string;
  text: string;
  /** JSON output of the search analyzer, computed once at ingestion. */
  analyzed: string;
}

/** A chunk's vector under one embeddings model (migration 0013; see search/embeddings/). */
export interface ChunkEmbeddingsTable {
  site_id: string;
  page_path: string;
  ord: number;
  /** `provider:model` (`EmbeddingModel.id`). */
  model: string;
  /** Hash of the text that was embedded: a vector is reused only for the same text. */
  text_hash: string;
  dimensions: number;
  /** Little-endian float32, `dimensions` × 4 bytes. */
  vector: Uint8Array;
}

/** Part of a site's serialized search index for one generation (migration 0014; search/stored-index.ts). */
export interface SearchIndexesTable {
  site_id: string;
  generation: number;
  /** The serialization's format version: another one is ignored and rebuilt. */
  format: number;
  part: number;
  parts: number;
  data: Uint8Array;
}

/**
 * The stamp of the files a page was read from, and the content hash it vouches for (migration 0016;
 * ingest/source-stamps.ts): lets an unchanged re-ingestion skip reading the page.
 */
export interface PageStampsTable {
  site_id: string;
  path: string;
  content_hash: string;
  stamp: string;
  /** JSON array of the files the stamp covers, the page's own first. */
  files: string;
}

/**
 * A page an ingestion parsed and has not published yet (migration 0015; ingest/page-staging.ts): the
 * `pages` row it will become, under its job instead of its site.
 */
export interface IngestionStagedPagesTable extends Omit<PagesTable, 'site_id'> {
  job_id: string;
}

/** A chunk of a staged page: the `chunks` row it will become, under its job instead of its site. */
export interface IngestionStagedChunksTable extends Omit<ChunksTable, 'site_id'> {
  job_id: string;
}

export type IngestionStatus = 'queued' | 'in_progress' | 'success' | 'failure';

export interface IngestionJobsTable {
  id: string;
  site_id: string;
  status: IngestionStatus;
  source_dir: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON object of counts (pages added/updated/removed/unchanged, chunks …). */
  counts: string;
  /** JSON array of warnings `{file, line?, message}`. */
  warnings: string;
  error: string | null;
  /** The server process running it (`server_instances.id`); null before it starts or from the CLI. */
  instance_id: string | null;
  /** Added by migration 0011: the commit a git source's ingestion read; null for a folder. */
  commit_sha?: string | null;
}

/** A site's docs in a git repository (migration 0011): cloned into the data folder, then ingested. */
export type GitSourceSetBy = 'cli' | 'api';

export interface SiteGitSourcesTable {
  site_id: string;
  /** As checked by sources/git-url.ts: https, http, ssh, scp-like, or an absolute local path. */
  url: string;
  /** null: the remote's default branch, until the first clone names it. */
  branch: string | null;
  /** Folder inside the repository holding the docs, `/`-separated, no `..`; '' is the whole clone. */
  subdir: string;
  /** Kept as is: GitHub signs pushes with an HMAC of it, so it cannot be stored as a hash. */
  hook_secret: string;
  /** Check the remote every this many minutes; null: only on demand (webhook, admin API, CLI). */
  poll_minutes: number | null;
  /** When the next check is due; moving it is how one server of several claims a check. */
  next_poll_at: string | null;
  /** The commit of the last successful fetch into the clone. */
  checked_out_commit: string | null;
  /**
   * Who set the source: the operator from the CLI (`cli`; git may use the server user's credentials) or
   * an organization's admin over the API (`api`; git gets none of them, see sources/git.ts).
   */
  set_by: GitSourceSetBy;
  created_at: string;
  updated_at: string;
}

/** A running server process, alive while it keeps `heartbeat_at` fresh. */
export interface ServerInstancesTable {
  id: string;
  /** Host name and PID namespace: where `pid` can be checked directly. */
  host: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
}

/** A charged answer not yet stored: written with the charge, deleted with the answer or its refund. */
export interface AnswersInFlightTable {
  request_id: string;
  organization_id: string;
  thread_id: string;
  instance_id: string;
  created_at: string;
  /** The answer's streamed message id, stored as its id (migration 0007; null on older rows). */
  message_id: string | null;
  /** Its question's place in the thread (migration 0017; null on older rows). */
  question_seq: number | null;
}

export interface ThreadsTable {
  id: string;
  organization_id: string;
  site_id: string;
  /** The reader fingerprint the thread is bound to (`anonymous` or a user id). */
  fp: string;
  /** sha256 of the thread key handed out when the thread was created. */
  key_hash: string;
  created_at: string;
  /** When the last question was asked (answers follow within seconds and do not move it). */
  updated_at: string;
}

export type ThreadMessageStatus = 'complete' | 'aborted' | 'error';

export interface ThreadMessagesTable {
  id: string;
  thread_id: string;
  /** Position in the thread, 0-based; unique per thread. */
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  status: ThreadMessageStatus;
  /** JSON array of `{id, url, title, path}` cited by an assistant message. */
  sources: string;
  finish_reason: string | null;
  /** JSON `{promptTokens, completionTokens}`. */
  usage: string | null;
  /** JSON `{retrievalMs, firstTokenMs, totalMs}`. */
  timings: string | null;
  request_id: string | null;
  created_at: string;
  /*
   * Added by migration 0008, null on older rows. A question carries where and how it was asked and its
   * group; an answer whether it answered and how strong its retrieval was.
   */
  /** Question: the page the reader was on: the page id its `currentPath` named, else `currentPath` as sent. */
  current_path?: string | null;
  /** Question: the `filter.version` and `filter.language` it was asked with. */
  filter_version?: string | null;
  filter_language?: string | null;
  /** Question: its `question_groups` row. */
  question_group_id?: string | null;
  /** Answer: 1 answered, 0 not (see src/assistant/answered.ts); null: stored before the rule existed. */
  answered?: number | null;
  /** Answer: the retrieval strength it was judged with (0–1); null when unknown. */
  retrieval_score?: number | null;
}

/** Questions that mean the same thing, per site (src/analytics/question-grouping.ts). */
export interface QuestionGroupsTable {
  id: string;
  organization_id: string;
  site_id: string;
  /** The group's first question, as asked. */
  label: string;
  /** JSON of the group's terms and how many of its questions have each (see question-grouping.ts). */
  signature: string;
  created_at: string;
  /** When a question last joined it. */
  last_seen_at: string;
}

export type FeedbackRating = 'up' | 'down';

/** A reader's vote on an answer: one per (answer, fingerprint); voting again replaces it. */
export interface MessageFeedbackTable {
  message_id: string;
  fp: string;
  /** The answer's thread, site and organization, copied for listings without a join. */
  thread_id: string;
  site_id: string;
  organization_id: string;
  rating: FeedbackRating;
  /** The reader's words, trimmed; null when none. */
  comment: string | null;
  created_at: string;
  /** When the vote last changed. */
  updated_at: string;
  /** When the site's owner dealt with it; a changed vote clears it. */
  resolved_at: string | null;
  /**
   * Set when the answer voted on was regenerated (and deleted): the answer now in its place, which links
   * the vote to its question, and the replaced answer's text, kept for the owner to read.
   */
  replaced_by?: string | null;
  replaced_answer?: string | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the session secret the cookie holds. */
  id_hash: string;
  organization_id: string;
  /** The admin key signed in with: revoking it ends the session. */
  key_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface Database {
  organizations: OrganizationsTable;
  sites: SitesTable;
  api_keys: ApiKeysTable;
  plans: PlansTable;
  credit_ledger: CreditLedgerTable;
  credit_balances: CreditBalancesTable;
  pages: PagesTable;
  chunks: ChunksTable;
  chunk_embeddings: ChunkEmbeddingsTable;
  search_indexes: SearchIndexesTable;
  page_stamps: PageStampsTable;
  ingestion_jobs: IngestionJobsTable;
  ingestion_staged_pages: IngestionStagedPagesTable;
  ingestion_staged_chunks: IngestionStagedChunksTable;
  site_git_sources: SiteGitSourcesTable;
  threads: ThreadsTable;
  thread_messages: ThreadMessagesTable;
  server_instances: ServerInstancesTable;
  answers_in_flight: AnswersInFlightTable;
  message_feedback: MessageFeedbackTable;
  question_groups: QuestionGroupsTable;
  console_sessions: ConsoleSessionsTable;
}
