/**
 * Server-sent events from raw response bytes, as the provider packages' `EventSourceParserStream` reads
 * them (`@ai-sdk/provider-utils`): UTF-8 with a leading BOM dropped, lines ended by LF, CR or CRLF,
 * `data:` lines joined with `\n`, an event dispatched at a blank line (or at the end of the body), comment
 * lines and other fields ignored. Only the data is handed on: neither provider's decoding reads the
 * `event:` name (Anthropic repeats it as the data's `type`). One difference, on purpose: a CRLF split
 * between two chunks is one line break here, as the SSE standard says, where the package's parser sees
 * two (which only matters for an event of several `data:` lines).
 *
 * Plain string scanning instead of a web-stream stage: on Node 20 each stage costs more per token than
 * the decoding itself.
 */
export class SseDecoder {
  private readonly text = new TextDecoder();
  /** The unfinished last line. */
  private pending = '';
  /** The last chunk ended in CR: an LF at the start of the next one belongs to it. */
  private afterCr = false;
  private data: string[] = [];

  /** Decodes one chunk of the body; `onData` gets each complete event's data, in order. */
  push(chunk: Uint8Array, onData: (data: string) => void): void {
    this.lines(this.text.decode(chunk, { stream: true }), onData);
  }

  /** The body ended: an unterminated last line and event still count. */
  end(onData: (data: string) => void): void {
    this.lines(this.text.decode(), onData);
    if (this.pending !== '') this.line(this.pending, onData);
    this.pending = '';
    this.dispatch(onData);
  }

  private lines(text: string, onData: (data: string) => void): void {
    let start = 0;
    if (this.afterCr && text.charCodeAt(0) === LF) start = 1;
    this.afterCr = false;
    const length = text.length;
    for (let i = start; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      const piece = text.slice(start, i);
      const line = this.pending === '' ? piece : this.pending + piece;
      this.pending = '';
      this.line(line, onData);
      if (code === CR) {
        if (i + 1 === length) this.afterCr = true;
        else if (text.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
    }
    if (start < length) this.pending += text.slice(start);
  }

  private line(line: string, onData: (data: string) => void): void {
    if (line === '') {
      this.dispatch(onData);
      return;
    }
    if (line.charCodeAt(0) === COLON) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = '';
    if (colon !== -1)
      value = line.charCodeAt(colon + 1) === SPACE ? line.slice(colon + 2) : line.slice(colon + 1);
    this.data.push(value);
  }

  private dispatch(onData: (data: string) => void): void {
    if (this.data.length === 0) return;
    const data = this.data.length === 1 ? (this.data[0] as string) : this.data.join('\n');
    this.data = [];
    onData(data);
  }
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
