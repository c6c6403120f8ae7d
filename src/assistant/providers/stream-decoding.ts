import { JSONParseError, type LanguageModelV1StreamPart, TypeValidationError } from '@ai-sdk/provider';

/**
 * What Docent's own decoders of the providers' streamed answers share (direct-stream-model.ts says why
 * they exist). Each mirrors one package's `doStream` transform, chunk schema included, and the
 * differential tests hold them to the package's output for the same bytes.
 */

export type EmitPart = (part: LanguageModelV1StreamPart) => void;

export interface PartDecoder {
  /**
   * One server-sent event's data. Throws where the package's transform throws (the answer stream then
   * fails with that error).
   */
  event(data: string, emit: EmitPart): void;
  /** The response body ended (the package's `flush`). */
  end(emit: EmitPart): void;
}

/** The event's JSON, or the error part the package emits for text that is not JSON. */
export function parseEvent(
  data: string,
): { ok: true; value: unknown } | { ok: false; part: LanguageModelV1StreamPart } {
  try {
    return { ok: true, value: JSON.parse(data) };
  } catch (cause) {
    return { ok: false, part: { type: 'error', error: new JSONParseError({ text: data, cause }) } };
  }
}

/** The error part for JSON that is not a chunk the package's schema accepts. */
export function invalidChunk(value: unknown, problem: string): LanguageModelV1StreamPart {
  return { type: 'error', error: new TypeValidationError({ value, cause: new Error(problem) }) };
}

/** Whether `text` is JSON (tool call arguments are complete once they are). */
export function isParsableJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Type tests written the way the packages' zod schemas read: `nullish` is null or absent.

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNullish(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

export function nullishString(value: unknown): value is string | null | undefined {
  return value === null || value === undefined || typeof value === 'string';
}

export function nullishNumber(value: unknown): value is number | null | undefined {
  return value === null || value === undefined || typeof value === 'number';
}

/** A nullish object whose listed fields are all nullish numbers. */
export function nullishNumbers(value: unknown, fields: readonly string[]): boolean {
  if (isNullish(value)) return true;
  if (!isObject(value)) return false;
  for (const field of fields) if (!nullishNumber(value[field])) return false;
  return true;
}
