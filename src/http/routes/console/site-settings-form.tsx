import type { Child } from 'hono/jsx';
import type { ModelInUse } from '../../../assistant/model-provider.ts';
import {
  MAX_OUTPUT_TOKENS,
  MAX_TEMPERATURE,
  type SiteModelSettings,
} from '../../../assistant/providers/site-model-settings.ts';
import { MAX_NAME_INPUT_UNITS, type Site, siteAllowedOrigins } from '../../../tenancy/sites.ts';
import { refusedField } from './layout.tsx';

/** The settings form's fields as the owner sees them: stored values, or what was just typed. */
export type SettingsFormValues = Record<(typeof SETTINGS_FIELDS)[number], string>;

const SETTINGS_FIELDS = [
  'name',
  'baseUrl',
  'allowedOrigins',
  'model',
  'temperature',
  'maxOutputTokens',
  'reasoningEffort',
  'instructions',
  'starterQuestions',
] as const;

export function storedValues(site: Site, settings: SiteModelSettings): SettingsFormValues {
  return {
    name: site.name,
    baseUrl: site.base_url ?? '',
    allowedOrigins: siteAllowedOrigins(site).join('\n'),
    model: settings.model ?? '',
    temperature: settings.modelOptions?.temperature?.toString() ?? '',
    maxOutputTokens: settings.modelOptions?.maxOutputTokens?.toString() ?? '',
    reasoningEffort: settings.modelOptions?.reasoningEffort ?? '',
    instructions: settings.instructions ?? '',
    starterQuestions: (settings.starterQuestions ?? []).join('\n'),
  };
}

/** A refused form shows what was typed, so the owner fixes one field instead of typing all again. */
export function typedValues(form: Record<string, unknown>): SettingsFormValues {
  const values = {} as SettingsFormValues;
  for (const field of SETTINGS_FIELDS) values[field] = typeof form[field] === 'string' ? form[field] : '';
  return values;
}

/** A validation issue in the form's own words: "Allowed origins, line 2: …", not "allowedOrigins.1: …". */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  baseUrl: 'Base URL',
  allowedOrigins: 'Allowed origins',
  model: 'Model',
  temperature: 'Temperature',
  maxOutputTokens: 'Longest answer',
  reasoningEffort: 'Reasoning effort',
  instructions: 'Instructions',
  starterQuestions: 'Starter questions',
};

export function issueText(path: readonly PropertyKey[], message: string): string {
  const keys = path.filter((key) => key !== 'modelOptions');
  const field = typeof keys[0] === 'string' ? (FIELD_LABELS[keys[0]] ?? keys[0]) : 'Form';
  const line = typeof keys[1] === 'number' ? `, line ${keys[1] + 1}` : '';
  return `${field}${line}: ${message}`;
}

/** The form field an issue is about (its `name`), or null: one the form has no field for. */
export function issueField(path: readonly PropertyKey[]): SettingsField | null {
  const key = path.find((key) => key !== 'modelOptions');
  return SETTINGS_FIELDS.find((field) => field === key) ?? null;
}

type SettingsField = (typeof SETTINGS_FIELDS)[number];

/** A refused value, said in the form's words, and the field it is about. */
export interface SettingsError {
  field: SettingsField | null;
  text: string;
}

export function SiteSettingsForm(props: {
  site: Site;
  values: SettingsFormValues;
  csrf: Child;
  errors: SettingsError[];
  inUse: ModelInUse | null;
}) {
  const { site, values, inUse } = props;
  // A refused field is marked invalid and described by its errors, and the first one has the cursor, so a
  // screen reader reads the field with what is wrong with it.
  const firstInvalid = props.errors.find((e) => e.field !== null)?.field;
  const invalid = (field: SettingsField) => {
    const ids = props.errors.flatMap((e, i) => (e.field === field ? [`settings-error-${i}`] : []));
    return ids.length === 0 ? {} : refusedField(ids.join(' '), field === firstInvalid);
  };
  return (
    <form
      method="post"
      action={`/console/sites/${site.domain}/settings`}
      class="stack"
      style="max-width:42rem"
    >
      {props.csrf}
      {props.errors.length > 0 ? (
        <div class="notice" role="alert" style="background:#fee2e2;border-color:#fca5a5">
          {props.errors.map((e, i) => (
            <div id={`settings-error-${i}`}>{e.text}</div>
          ))}
        </div>
      ) : null}
      <label>
        Name
        <br />
        <input
          name="name"
          {...invalid('name')}
          value={values.name}
          required
          maxlength={MAX_NAME_INPUT_UNITS}
          style="width:100%"
        />
      </label>
      <label>
        Base URL (citations link there; empty: Docent's page view)
        <br />
        <input
          name="baseUrl"
          {...invalid('baseUrl')}
          value={values.baseUrl}
          style="width:100%"
          placeholder="https://docs.example.com"
        />
      </label>
      <label>
        Allowed origins, one per line (empty: any)
        <br />
        <textarea name="allowedOrigins" {...invalid('allowedOrigins')} rows={3} style="width:100%">
          {values.allowedOrigins}
        </textarea>
      </label>
      <label>
        Model (provider:model; empty: the server's default)
        <br />
        <input
          name="model"
          {...invalid('model')}
          value={values.model}
          style="width:100%"
          placeholder="builtin, openai:gpt-4o-mini, anthropic:claude-haiku-4-5…"
        />
      </label>
      {inUse === null ? null : inUse.problem === null ? (
        <p class="muted" data-model-in-use>
          Answers are written by <code>{inUse.model}</code>.
        </p>
      ) : (
        <div class="notice" data-model-in-use style="background:#fef3c7;border-color:#fcd34d">
          The model set here is not used: {inUse.problem}. Answers are written by <code>{inUse.model}</code>{' '}
          (the server's default) until it is.
        </div>
      )}
      <fieldset style="display:flex;gap:1rem;flex-wrap:wrap;border:1px solid var(--line,#ddd)">
        <legend>Model options (a provider's model only; empty: the provider's default)</legend>
        <label>
          Temperature (0–2)
          <br />
          <input
            name="temperature"
            {...invalid('temperature')}
            type="number"
            min="0"
            max={String(MAX_TEMPERATURE)}
            step="0.1"
            value={values.temperature}
          />
        </label>
        <label>
          Longest answer (tokens)
          <br />
          <input
            name="maxOutputTokens"
            {...invalid('maxOutputTokens')}
            type="number"
            min="1"
            max={String(MAX_OUTPUT_TOKENS)}
            step="1"
            value={values.maxOutputTokens}
          />
        </label>
        <label>
          Reasoning effort
          <br />
          <select name="reasoningEffort" {...invalid('reasoningEffort')}>
            {['', 'low', 'medium', 'high'].map((level) => (
              <option value={level} selected={values.reasoningEffort === level}>
                {level === '' ? 'default' : level}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <label>
        Instructions added to the model's prompt
        <br />
        <textarea name="instructions" {...invalid('instructions')} rows={3} style="width:100%">
          {values.instructions}
        </textarea>
      </label>
      <label>
        Starter questions, one per line (at most 6)
        <br />
        <textarea name="starterQuestions" {...invalid('starterQuestions')} rows={4} style="width:100%">
          {values.starterQuestions}
        </textarea>
      </label>
      <button class="primary" type="submit">
        Save settings
      </button>
    </form>
  );
}
