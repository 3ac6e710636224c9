/** What the functions have written so far: their log lines, as Lambda would send them to CloudWatch Logs. */
export interface ServiceLogTally {
  readonly lines: number;
  /** UTF-8 bytes of those lines, without their newlines: what CloudWatch Logs ingests as each event's message. */
  readonly bytes: number;
}

/** Powertools writes each record as one JSON line, its level or the metric envelope first. */
const SERVICE_LINE = /^\{"(?:level|_aws)":/;

function divert(stream: NodeJS.WriteStream, take: (line: string) => void): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text === undefined || !SERVICE_LINE.test(text)) return write(chunk, ...rest);
    for (const line of text.split('\n')) if (line !== '') take(line);
    const callback = rest.find((value): value is () => void => typeof value === 'function');
    if (callback) process.nextTick(callback);
    return true;
  }) as typeof stream.write;
}

/**
 * The functions write their log lines for every request, as deployed (that work is part of what is
 * measured); here they are counted and weighed, then dropped rather than printed by the thousand.
 * Powertools writes ERROR and above to stderr, the rest to stdout; Lambda sends both to the log group.
 */
export function tallyServiceLogLines(): () => ServiceLogTally {
  let lines = 0;
  let bytes = 0;
  const take = (line: string) => {
    lines += 1;
    bytes += Buffer.byteLength(line);
  };
  divert(process.stdout, take);
  divert(process.stderr, take);
  return () => ({ lines, bytes });
}
