import { ConfigError, loadConfig } from './config.ts';
import { setHeapGrowth } from './heap-growth.ts';
import { createStdoutLogger, ServerStartError, startServer } from './server.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { logger, print } = createStdoutLogger(config);
  logger.info({ heapGrowthPercent: setHeapGrowth(config.heapGrowthPercent) }, 'heap growth');
  const server = await startServer(config, { logger }).catch((error: unknown) => {
    if (!(error instanceof ServerStartError)) throw error;
    if (error.banner !== '') print(error.banner);
    const hint = error.portInUse ? ' (set PORT to another)' : '';
    process.stderr.write(`docent failed to start: ${error.message}${hint}\n`);
    process.exit(1);
  });
  if (server.banner !== '') print(server.banner);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait for the grace period.
      logger.warn({ signal }, 'stopping now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`docent failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
