import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

/** A line the server logged, as pino writes it: its level number, message and fields. */
export type LogLine = { level: number; msg: string; err?: { message?: string; stack?: string } } & Record<
  string,
  unknown
>;

/** A logger at `info` whose lines land, parsed, in `lines` as they are written. */
export function loggerInto(lines: LogLine[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}
