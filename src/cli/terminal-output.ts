/**
 * The CLI prints what docs folders hold (titles, file names, warnings quoting them, answers), and a
 * terminal obeys control characters: an ESC in a page title could recolour, retitle or rewrite the
 * operator's terminal. Every control character but newline and tab is shown as its `\uXXXX` escape
 * instead; in JSON output that is the same text, since JSON strings read the escape back.
 */
/** Control characters (Unicode's Cc: C0, DEL, C1) but newline and tab. */
const CONTROL = /[^\P{Cc}\n\t]/gu;

export const escapeControlCharacters = (text: string): string =>
  text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * Makes `stream` escape control characters in every string written to it (main.ts, for the CLI), and
 * end the process quietly when its reader is gone (`docent search … | head -1`: the pipe closes, and the
 * next write would throw EPIPE as an uncaught error).
 */
export function guardTerminalOutput(
  stream: NodeJS.WriteStream,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit(0);
    else throw error;
  });
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(
      typeof chunk === 'string' ? escapeControlCharacters(chunk) : chunk,
      ...rest,
    )) as typeof stream.write;
}
