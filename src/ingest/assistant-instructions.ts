import { containedFolder, MAX_CONFIG_FILE_BYTES } from './contained-file.ts';
import type { WarningSink } from './warnings.ts';

/**
 * Where a docs repository keeps instructions for the assistant, first found wins: Docent's own folder,
 * then the hosted service's (which also accepts the upper-case name). Dot-folders are never pages.
 */
export const ASSISTANT_INSTRUCTION_FILES = [
  '.docent/Assistant.md',
  '.docent/ASSISTANT.md',
  '.mintlify/Assistant.md',
  '.mintlify/ASSISTANT.md',
] as const;

/**
 * Characters of repository instructions added to the system prompt: room for the persona, tone,
 * terminology and escalation paths the hosted service suggests, without letting one file crowd the
 * excerpts out of the model's context. Longer files are cut there, with a warning.
 */
export const MAX_REPOSITORY_INSTRUCTIONS_CHARS = 8_000;

export interface RepositoryInstructions {
  /** The file they came from, relative to the docs root. */
  file: string;
  text: string;
}

/** Reads the repository's assistant instructions, or null when it has none (or only whitespace). */
export const readAssistantInstructions = async (
  root: string,
  sink: WarningSink,
): Promise<RepositoryInstructions | null> => {
  const folder = containedFolder(root);
  for (const file of ASSISTANT_INSTRUCTION_FILES) {
    const read = await folder.readText(file, MAX_CONFIG_FILE_BYTES);
    if (!read.ok) {
      if (!read.missing)
        sink.add({ file, message: `cannot read assistant instructions (${read.reason}); ignored` });
      continue;
    }
    // A NUL cannot be stored as text in PostgreSQL and has no place in a prompt.
    let text = read.text
      .replace(/^\uFEFF/, '')
      .replaceAll('\0', '')
      .trim();
    if (text === '') return null;
    if (text.length > MAX_REPOSITORY_INSTRUCTIONS_CHARS) {
      sink.add({
        file,
        message: `assistant instructions are ${text.length} characters; only the first ${MAX_REPOSITORY_INSTRUCTIONS_CHARS} are used (MAX_REPOSITORY_INSTRUCTIONS_CHARS)`,
      });
      text = text.slice(0, MAX_REPOSITORY_INSTRUCTIONS_CHARS);
    }
    return { file, text };
  }
  return null;
};
