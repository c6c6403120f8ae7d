import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { runEval } from '../../eval/run-eval.ts';
import { parseDatabaseUrl } from '../../storage/database.ts';
import { CliError, databaseUrlFrom, type GlobalOptions, printJson } from '../context.ts';
import { progressBar } from '../progress.ts';

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('score retrieval (and optionally answers) on an eval set: docs/ + questions.jsonl')
    .argument('<set-dir>', 'eval set folder')
    .option('--answers', 'also score built-in answers: answer_f1 and citation_precision')
    .action(async (setDir: string, options: { answers?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const dir = path.resolve(setDir);
      if (!fs.existsSync(path.join(dir, 'questions.jsonl')) || !fs.existsSync(path.join(dir, 'docs'))) {
        throw new CliError(`${setDir} is not an eval set (needs docs/ and questions.jsonl)`);
      }
      // The set is ingested into a throwaway database next to the configured one: a temporary SQLite
      // file, or a temporary database on the configured PostgreSQL server.
      const target = parseDatabaseUrl(databaseUrlFrom(globals));
      const progress = progressBar('Ingesting', !globals.json);
      const report = await runEval(dir, {
        database:
          target.dialect === 'postgres'
            ? { dialect: 'postgres', serverUrl: target.url }
            : { dialect: 'sqlite' },
        answers: options.answers ?? false,
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
      }).finally(() => progress.stop());
      if (globals.json) {
        printJson(report);
        return;
      }
      for (const [key, value] of Object.entries(report)) process.stdout.write(`${key.padEnd(20)} ${value}\n`);
    });
}
