import { EventStreamParser } from '../../../dashboard/src/logic/event-stream';

/** Server-sent events read as they arrive (dashboard/src/logic/event-stream.ts), by the HTML standard's rules. */

const TEXT = 'event: start\ndata: {"runId":"r"}\n\nevent: delta\ndata: {"text":"Hel"}\n\nevent: delta\ndata: {"text":"lo"}\n\n';
const EXPECTED = [
  { event: 'start', data: '{"runId":"r"}' },
  { event: 'delta', data: '{"text":"Hel"}' },
  { event: 'delta', data: '{"text":"lo"}' },
];

test('a stream in one chunk gives each event, in order', () => {
  expect(new EventStreamParser().push(TEXT)).toEqual(EXPECTED);
});

test('a stream cut anywhere into chunks gives the same events, each once it is whole', () => {
  for (let size = 1; size <= 7; size += 1) {
    const parser = new EventStreamParser();
    const events = [];
    for (let at = 0; at < TEXT.length; at += size) events.push(...parser.push(TEXT.slice(at, at + size)));
    expect(events).toEqual(EXPECTED);
  }
});

test('an event is given only when the blank line after it arrives', () => {
  const parser = new EventStreamParser();
  expect(parser.push('event: delta\ndata: {"text":"a"}\n')).toEqual([]);
  expect(parser.push('\n')).toEqual([{ event: 'delta', data: '{"text":"a"}' }]);
});

test('CRLF and CR end lines as LF does, a CRLF split between two chunks included', () => {
  const parser = new EventStreamParser();
  expect(parser.push('event: a\r\ndata: 1\r')).toEqual([]);
  expect(parser.push('\n\r\n')).toEqual([{ event: 'a', data: '1' }]);
  expect(parser.push('event: b\rdata: 2\r\r')).toEqual([{ event: 'b', data: '2' }]);
});

test('several data lines are joined by line feeds; one space after the colon is dropped, not more', () => {
  expect(new EventStreamParser().push('data: one\ndata:two\ndata:  three\n\n')).toEqual([{ event: 'message', data: 'one\ntwo\n three' }]);
});

test('comments, other fields and an event without data give nothing', () => {
  expect(new EventStreamParser().push(': keep-alive\nid: 7\nretry: 10\n\nevent: lonely\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
});

test('a byte order mark opening the stream is not part of the first field', () => {
  expect(new EventStreamParser().push('\uFEFFevent: start\ndata: {}\n\n')).toEqual([{ event: 'start', data: '{}' }]);
});

test('the end of the stream says whether an event was left unfinished', () => {
  const whole = new EventStreamParser();
  whole.push('event: end\ndata: {}\n\n');
  expect(whole.end()).toEqual({ cutOff: false });
  const cut = new EventStreamParser();
  expect(cut.push('event: end\ndata: {"run"')).toEqual([]);
  expect(cut.end()).toEqual({ cutOff: true });
});
