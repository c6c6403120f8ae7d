import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001-initial.ts';
import * as threads from './0002-threads.ts';
import * as tenancyLimits from './0003-tenancy-limits.ts';
import * as siteModel from './0004-site-model.ts';
import * as agentAccess from './0005-agent-access.ts';
import * as crashRecovery from './0006-crash-recovery.ts';
import * as widget from './0007-widget.ts';
import * as analytics from './0008-analytics.ts';
import * as consoleSessions from './0009-console-sessions.ts';
import * as modelOptions from './0010-model-options.ts';
import * as gitSources from './0011-git-sources.ts';
import * as repositoryInstructions from './0012-repository-instructions.ts';
import * as chunkEmbeddings from './0013-chunk-embeddings.ts';
import * as searchIndexes from './0014-search-indexes.ts';
import * as ingestionStaging from './0015-ingestion-staging.ts';
import * as pageStamps from './0016-page-stamps.ts';
import * as answerPlaces from './0017-answer-places.ts';
import * as keptVotes from './0018-kept-votes.ts';
import * as gitSourceSetBy from './0019-git-source-set-by.ts';
import * as threadsById from './0020-threads-by-id.ts';

/**
 * The one migration set for both dialects, in order. Add new files here; never edit an applied one.
 * On SQLite all pending migrations run in one transaction (database.ts `migrate`), where
 * `PRAGMA foreign_keys = OFF` does nothing: a table rebuild must not drop a table that other tables
 * reference, since dropping it deletes its rows and runs their `on delete` actions (0018 rebuilds
 * `message_feedback`, which nothing references).
 */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-threads': threads,
  '0003-tenancy-limits': tenancyLimits,
  '0004-site-model': siteModel,
  '0005-agent-access': agentAccess,
  '0006-crash-recovery': crashRecovery,
  '0007-widget': widget,
  '0008-analytics': analytics,
  '0009-console-sessions': consoleSessions,
  '0010-model-options': modelOptions,
  '0011-git-sources': gitSources,
  '0012-repository-instructions': repositoryInstructions,
  '0013-chunk-embeddings': chunkEmbeddings,
  '0014-search-indexes': searchIndexes,
  '0015-ingestion-staging': ingestionStaging,
  '0016-page-stamps': pageStamps,
  '0017-answer-places': answerPlaces,
  '0018-kept-votes': keptVotes,
  '0019-git-source-set-by': gitSourceSetBy,
  '0020-threads-by-id': threadsById,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
