import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { setHeapGrowth } from '../../heap-growth.ts';
import { createStdoutLogger, ServerStartError, startServer } from '../../server.ts';
import { CliError, databaseUrlFrom, type GlobalOptions } from '../context.ts';

const MAX_PORT = 65_535;

/** `--port` as a number, refused as PORT is (config.ts) before anything starts. */
function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > MAX_PORT)
    throw new CliError(`--port must be a whole number from 0 to ${MAX_PORT.toLocaleString('en-US')}`);
  return port;
}

/** The failure in one line; for a port in use, naming the knob that chose the port. */
function startFailure(error: ServerStartError, portGiven: boolean): string {
  if (!error.portInUse) return `failed to start: ${error.message}`;
  const hint = portGiven ? '(choose another with --port)' : '(choose another with --port or PORT)';
  return `failed to start: ${error.message} ${hint}`;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (same as npm start)')
    .option('--port <port>', 'port to listen on (default PORT or 3000)')
    .action(async (options: { port?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const port = parsePort(options.port);
      const config = loadConfig();
      setHeapGrowth(config.heapGrowthPercent);
      const { logger, print, flush } = createStdoutLogger(config);
      const server = await startServer(
        { ...config, databaseUrl: databaseUrlFrom(globals), port: port ?? config.port },
        { logger },
      ).catch((error: unknown) => {
        if (!(error instanceof ServerStartError)) throw error;
        // A first start's demo key is shown once: here, or never.
        if (error.banner !== '') print(error.banner);
        // The log writes stdout asynchronously: unflushed, its start-up lines would follow the error.
        flush();
        throw new CliError(startFailure(error, port !== undefined));
      });
      if (server.banner !== '') print(server.banner);
      const stop = () => void server.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
