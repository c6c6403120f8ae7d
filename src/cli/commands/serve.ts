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

/**
 * The server's hint for a port in use names PORT, the only knob `npm start` has; here `--port` wins
 * over it, so the hint names the knob that chose the port. Matched as src/server.ts words it:
 * serve.test.ts fails should that change.
 */
const SERVER_PORT_HINT = ' (set PORT to another)';

function startFailure(error: ServerStartError, portGiven: boolean): string {
  if (!error.message.endsWith(SERVER_PORT_HINT)) return `failed to start: ${error.message}`;
  const hint = portGiven ? '(choose another with --port)' : '(choose another with --port or PORT)';
  return `failed to start: ${error.message.slice(0, -SERVER_PORT_HINT.length)} ${hint}`;
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
