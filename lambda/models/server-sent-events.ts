/**
 * The `data:` payloads of a server-sent event stream (the WHATWG format OpenAI-compatible endpoints stream chat
 * completions in), as they arrive: lines end with LF, CRLF or CR; an event ends at a blank line; its data lines are
 * joined with LF; comments (`:`) and other fields are skipped. Bytes are decoded as UTF-8 across chunk boundaries.
 */
export async function* serverSentData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const lines = function* (final: boolean): Generator<string> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      if (end === -1 || (!final && end === buffer.length - 1 && buffer[end] === '\r')) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      yield line;
    }
  };
  const take = function* (line: string): Generator<string> {
    if (line === '') {
      if (data.length > 0) yield data.join('\n');
      data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    const value = colon === -1 ? '' : line.slice(colon + 1);
    data.push(value.startsWith(' ') ? value.slice(1) : value);
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of lines(false)) yield* take(line);
  }
  buffer += decoder.decode();
  for (const line of lines(true)) yield* take(line);
  if (buffer !== '') yield* take(buffer);
  if (data.length > 0) yield data.join('\n');
}
