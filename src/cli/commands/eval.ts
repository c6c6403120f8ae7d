import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { compareReports, flattenReport } from '../../eval/compare-reports.ts';
import { runEval } from '../../eval/run-eval.ts';
import { parseDatabaseUrl } from '../../storage/database.ts';
import type { TemporaryDatabase } from '../../storage/temporary-database.ts';
import { CliError, databaseUrlFrom, type GlobalOptions, printJson } from '../context.ts';
import { settleIfInterrupted } from '../interruption.ts';
import { progressBar } from '../progress.ts';

interface EvalFlags {
  answers?: boolean;
  compare?: string;
  questions?: string;
}

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description(
      'score retrieval (and optionally answers) on an eval set: questions.jsonl with docs/ or a set.json',
    )
    .argument('<set-dir>', 'eval set folder')
    .option('--answers', 'also score built-in answers: F1, citation precision, declines')
    .option('--compare <report.json>', 'print the differences from an earlier `eval --json` report')
    .option(
      '--questions <file.jsonl>',
      "write one JSON line per question: the pages ranked, the relevant page's rank (and under plain BM25), and with --answers the answer, whether it declined and what it cited",
    )
    .action(async (setDir: string, options: EvalFlags, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const dir = path.resolve(setDir);
      const hasDocs = fs.existsSync(path.join(dir, 'docs')) || fs.existsSync(path.join(dir, 'set.json'));
      if (!fs.existsSync(path.join(dir, 'questions.jsonl')) || !hasDocs) {
        throw new CliError(`${setDir} is not an eval set (needs questions.jsonl, and docs/ or set.json)`);
      }
      let earlier: unknown;
      if (options.compare !== undefined) {
        try {
          earlier = JSON.parse(fs.readFileSync(path.resolve(options.compare), 'utf8'));
        } catch (error) {
          throw new CliError(`--compare: cannot read ${options.compare} (${(error as Error).message})`);
        }
      }
      // Before the run, so that a path that cannot be written fails at once, not after it.
      if (options.questions !== undefined)
        checkRowsFile(options.questions, [path.join(dir, 'questions.jsonl'), options.compare]);
      // The set is ingested into a throwaway database next to the configured one: a temporary SQLite
      // file, or a temporary database on the configured PostgreSQL server.
      const target = parseDatabaseUrl(databaseUrlFrom(globals));
      const progress = progressBar('Ingesting', !globals.json);
      const rows: string[] = [];
      // Ctrl-C removes the throwaway database, as the end of the run does.
      let temporary: TemporaryDatabase | undefined;
      const removeTemporary = async () => {
        progress.stop();
        await temporary?.remove();
      };
      const report = await settleIfInterrupted(removeTemporary, 'its temporary database was removed', () =>
        runEval(dir, {
          database:
            target.dialect === 'postgres'
              ? { dialect: 'postgres', serverUrl: target.url }
              : { dialect: 'sqlite' },
          answers: options.answers ?? false,
          ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
          ...(options.questions === undefined ? {} : { onQuestion: (row) => rows.push(JSON.stringify(row)) }),
          onTemporaryDatabase: (database) => {
            temporary = database;
          },
        }).finally(() => progress.stop()),
      );
      if (options.questions !== undefined) writeRows(options.questions, rows);
      if (globals.json) {
        printJson(earlier === undefined ? report : { ...report, compared: compareReports(earlier, report) });
        return;
      }
      if (earlier !== undefined) {
        for (const row of compareReports(earlier, report)) {
          const sign = row.change > 0 ? '+' : '';
          process.stdout.write(
            `${row.key.padEnd(40)} ${String(row.before).padStart(8)} → ${String(row.after).padStart(8)}  (${sign}${row.change})\n`,
          );
        }
        return;
      }
      for (const [key, value] of Object.entries(flattenReport(report))) {
        process.stdout.write(`${key.padEnd(40)} ${value}\n`);
      }
    });
}

/**
 * The rows file can be written, and is none of the run's inputs (the set's questions, a --compare
 * report): checked without touching what it holds, which is only replaced once the run has succeeded.
 */
const checkRowsFile = (file: string, inputs: readonly (string | undefined)[]): void => {
  const target = path.resolve(file);
  const same = (other: string | undefined): boolean => {
    if (other === undefined) return false;
    const resolved = path.resolve(other);
    if (resolved === target) return true;
    try {
      return fs.realpathSync(resolved) === fs.realpathSync(target);
    } catch {
      return false;
    }
  };
  if (inputs.some(same))
    throw new CliError(`--questions: ${file} is an input of this run; name another file`);
  try {
    fs.closeSync(fs.openSync(target, 'a'));
  } catch (error) {
    throw new CliError(`--questions: cannot write ${file} (${(error as Error).message})`);
  }
};

/** Written whole to a temporary file beside it, then renamed over it: never left half written. */
const writeRows = (file: string, rows: readonly string[]): void => {
  const target = path.resolve(file);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, rows.length === 0 ? '' : `${rows.join('\n')}\n`);
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new CliError(`--questions: cannot write ${file} (${(error as Error).message})`);
  }
};
