import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { setHeapGrowth } from '../../heap-growth.ts';
import { createStdoutLogger, startServer } from '../../server.ts';
import { databaseUrlFrom, type GlobalOptions } from '../context.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (same as npm start)')
    .option('--port <port>', 'port to listen on (default PORT or 3000)')
    .action(async (options: { port?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const config = loadConfig();
      setHeapGrowth(config.heapGrowthPercent);
      const { logger, print } = createStdoutLogger(config);
      const server = await startServer(
        {
          ...config,
          databaseUrl: databaseUrlFrom(globals),
          port: options.port === undefined ? config.port : Number(options.port),
        },
        { logger },
      );
      if (server.banner !== '') print(server.banner);
      const stop = () => void server.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
