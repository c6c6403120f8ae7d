import fs from 'node:fs';
import type { Command } from 'commander';
import type { ZodError } from 'zod';
import { modelInUse } from '../../assistant/providers/create-model-provider.ts';
import {
  getSiteModelSettings,
  type SiteModelOptions,
  type SiteModelSettingsPatch,
  siteInstructionsSchema,
  siteModelOptionsSchema,
  siteModelSchema,
  starterQuestionsSchema,
  updateSiteModelSettings,
} from '../../assistant/providers/site-model-settings.ts';
import { loadConfig } from '../../config.ts';
import { getSiteByDomain } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';

/**
 * `docent sites set-model`, `set-instructions` and `set-starter-questions`. They join the `sites` command when
 * another module has registered it already (register this one after it), and create it otherwise.
 */
export function registerSiteModel(program: Command): void {
  const sites =
    program.commands.find((command) => command.name() === 'sites') ??
    program.command('sites').description('manage sites');

  sites
    .command('set-model')
    .description("set the site's answer model, overriding DOCENT_MODEL (`default` goes back to it)")
    .argument('<domain>', 'domain identifier of the site')
    .argument(
      '<model>',
      'provider:model (openai:gpt-4o-mini, openai-responses:…, anthropic:…, openai-compatible:…, google:…, mistral:…, bedrock:…), builtin, or default',
    )
    .action(async (domain: string, model: string, _options: unknown, command: Command) => {
      const value = model === 'default' ? null : parsed(siteModelSchema.safeParse(model), 'model');
      await change(command, domain, { model: value });
      // Stored either way (the server's environment may differ from this shell's), but said now rather
      // than found later in the console.
      const { model: used, problem } = modelInUse(loadConfig().model, value);
      if (problem !== null)
        process.stderr.write(
          `warning: with this environment's settings the site answers with ${used}: ${problem}\n`,
        );
    });

  sites
    .command('set-instructions')
    .description("set custom instructions added to the site's system prompt")
    .argument('<domain>', 'domain identifier of the site')
    .argument('[text]', 'the instructions (or use --file)')
    .option('--file <path>', 'read the instructions from a file')
    .option('--clear', 'remove the instructions')
    .action(
      async (
        domain: string,
        text: string | undefined,
        options: { file?: string; clear?: boolean },
        command: Command,
      ) => {
        const given = [text !== undefined, options.file !== undefined, options.clear === true].filter(
          Boolean,
        ).length;
        if (given !== 1)
          throw new CliError('Give the instructions as text, or --file <path>, or --clear (exactly one)');
        let value: string | null = null;
        if (!options.clear) {
          const raw = options.file === undefined ? (text ?? '') : readFile(options.file);
          value = parsed(siteInstructionsSchema.safeParse(raw), 'instructions');
        }
        await change(command, domain, { instructions: value });
      },
    );

  sites
    .command('set-starter-questions')
    .description('set the questions the widget offers on an empty panel (replacing the earlier ones)')
    .argument('<domain>', 'domain identifier of the site')
    .option(
      '--starter-question <text>',
      'a question; repeat the option for each, in the order to show them',
      (value: string, earlier: string[]) => [...earlier, value],
      [] as string[],
    )
    .option('--clear', 'remove the starter questions')
    .action(
      async (domain: string, options: { starterQuestion: string[]; clear?: boolean }, command: Command) => {
        const given = options.starterQuestion.length > 0;
        if (given === (options.clear === true))
          throw new CliError('Give --starter-question <text> (repeatable) or --clear (exactly one)');
        const value = options.clear
          ? null
          : parsed(starterQuestionsSchema.safeParse(options.starterQuestion), 'starter questions');
        await change(command, domain, { starterQuestions: value });
      },
    );

  sites
    .command('set-model-options')
    .description(
      "set the site's model call options (replacing the earlier ones); the built-in answerer ignores them",
    )
    .argument('<domain>', 'domain identifier of the site')
    .option('--temperature <n>', 'sampling temperature, 0 to 2', decimal)
    .option('--max-output-tokens <n>', 'longest answer in tokens, 1 to 32000', decimal)
    .option('--reasoning-effort <level>', 'low, medium or high, for models that reason')
    .option('--clear', "remove the options (the provider's defaults)")
    .action(
      async (
        domain: string,
        options: {
          temperature?: number;
          maxOutputTokens?: number;
          reasoningEffort?: string;
          clear?: boolean;
        },
        command: Command,
      ) => {
        const { clear, ...values } = options;
        const given = Object.values(values).some((v) => v !== undefined);
        if (given === (clear === true))
          throw new CliError(
            'Give at least one of --temperature, --max-output-tokens, --reasoning-effort, or --clear',
          );
        const value = clear ? null : modelOptions(values);
        await change(command, domain, { modelOptions: value });
      },
    );
}

/**
 * A number written in decimal, else NaN (refused as "must be a number"): `Number` reads '' as 0 and
 * '0x10' as 16, which the admin API's JSON would never send.
 */
const decimal = (value: string): number =>
  /^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(value) ? Number(value) : Number.NaN;

async function change(command: Command, domain: string, patch: SiteModelSettingsPatch): Promise<void> {
  const globals = command.optsWithGlobals<GlobalOptions>();
  await withStorage(globals, async (storage) => {
    const site = await getSiteByDomain(storage, domain);
    if (!site) throw new CliError(`No site "${domain}"`);
    await updateSiteModelSettings(storage, site.id, patch);
    const settings = await getSiteModelSettings(storage, site.id);
    if (globals.json) printJson({ domain, ...settings });
    else {
      process.stdout.write(`Site "${domain}": model ${settings?.model ?? 'default (DOCENT_MODEL)'}, `);
      process.stdout.write(
        `${settings?.instructions ? `${settings.instructions.length} characters of instructions` : 'no instructions'}, `,
      );
      const starters = settings?.starterQuestions?.length ?? 0;
      process.stdout.write(`${starters} starter question${starters === 1 ? '' : 's'}, `);
      const options = Object.entries(settings?.modelOptions ?? {}).map(([k, v]) => `${k} ${v}`);
      process.stdout.write(
        `model options: ${options.length > 0 ? options.join(', ') : "the provider's defaults"}\n`,
      );
    }
  });
}

function parsed<T>(
  result: { success: true; data: T } | { success: false; error: ZodError },
  what: string,
): T {
  if (result.success) return result.data;
  throw new CliError(`Invalid ${what}: ${result.error.issues.map((i) => i.message).join('; ')}`);
}

/** Each model option's flag: a refusal names the one typed ("--temperature: must be at most 2"). */
const MODEL_OPTION_FLAGS: Record<keyof SiteModelOptions, string> = {
  temperature: '--temperature',
  maxOutputTokens: '--max-output-tokens',
  reasoningEffort: '--reasoning-effort',
};

function modelOptions(values: Partial<Record<keyof SiteModelOptions, unknown>>): SiteModelOptions {
  const result = siteModelOptionsSchema.safeParse(values);
  if (result.success) return result.data;
  throw new CliError(
    result.error.issues
      .map((issue) => {
        const flag: string | undefined = MODEL_OPTION_FLAGS[issue.path[0] as keyof SiteModelOptions];
        return `${flag ?? 'model options'}: ${issue.message}`;
      })
      .join('; '),
  );
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
