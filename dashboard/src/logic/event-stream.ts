/**
 * Server-sent events read as they arrive, by the HTML standard's "event stream interpretation": text in, whole events
 * out. A chunk of the network may end anywhere (inside a line, between a CR and its LF, before the blank line that
 * ends an event), so what is not yet a whole line waits for the next chunk. A run's answer (docs/runs.md "Runs")
 * is one kind of such stream; the parser knows nothing of runs.
 */

export interface ServerSentEvent {
  /** The `event:` field; `message` when the event named none. */
  readonly event: string;
  /** The `data:` lines, joined by line feeds. */
  readonly data: string;
}

export class EventStreamParser {
  #pending = '';
  #started = false;
  /** A CR ended the last chunk: an LF starting the next one belongs to it. */
  #afterCr = false;
  #event = '';
  #data: string[] = [];
  #hasData = false;

  /** The events completed by this chunk, in order. */
  push(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (this.#afterCr && text.startsWith('\n')) text = text.slice(1);
    this.#afterCr = false;
    if (!this.#started && text !== '') {
      this.#started = true;
      // A byte order mark may open the stream, and only there.
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    const events: ServerSentEvent[] = [];
    let rest = this.#pending + text;
    for (let end = rest.search(/[\r\n]/); end !== -1; end = rest.search(/[\r\n]/)) {
      const line = rest.slice(0, end);
      let next = end + 1;
      if (rest[end] === '\r') {
        if (next === rest.length) this.#afterCr = true;
        else if (rest[next] === '\n') next += 1;
      }
      rest = rest.slice(next);
      const event = this.#line(line);
      if (event) events.push(event);
    }
    this.#pending = rest;
    return events;
  }

  /**
   * The stream ended: whether it ended inside an event (a line or fields not yet closed by a blank line), which the
   * standard drops and a reader should take for an answer cut off.
   */
  end(): { readonly cutOff: boolean } {
    const cutOff = this.#pending !== '' || this.#hasData || this.#event !== '';
    this.#pending = '';
    this.#reset();
    return { cutOff };
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') {
      this.#data.push(value);
      this.#hasData = true;
    }
    // `id`, `retry` and any other field: a reader of one answer has no use for them (no reconnection here).
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    // An event without data is dropped, as the standard says, its name with it.
    const event = this.#hasData ? { event: this.#event || 'message', data: this.#data.join('\n') } : undefined;
    this.#reset();
    return event;
  }

  #reset(): void {
    this.#event = '';
    this.#data = [];
    this.#hasData = false;
  }
}
