/**
 * Server-sent events as Docent writes them: each event's `data` (its `data:` lines joined by line breaks)
 * goes to `onData`; other fields and comments pass by, and an event the stream cuts short is dropped, as
 * the format says. Lines end in LF or CRLF (a bare CR is not read as one). A few lines instead of a
 * parser package: the widget's bytes are budgeted.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onData: (data: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  let data: string[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const lines = (rest + decoder.decode(next.value, { stream: true })).split('\n');
    rest = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (data.length > 0) onData(data.join('\n'));
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
}
