import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';

/**
 * ConverseStream's answer is `application/vnd.amazon.eventstream`: binary frames (a prelude, headers, a JSON
 * payload, CRCs), written here with the same codec the AWS SDK reads them with.
 */

export const EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

/** The events of ConverseStream's output union, by their member names. */
export type ConverseStreamEvent = 'messageStart' | 'contentBlockStart' | 'contentBlockDelta' | 'contentBlockStop' | 'messageStop' | 'metadata';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => decoder.decode(bytes),
  (text) => encoder.encode(text),
);

const stringHeader = (value: string) => ({ type: 'string' as const, value });

export function eventFrame(event: ConverseStreamEvent, payload: object): Uint8Array {
  return frame({ ':message-type': stringHeader('event'), ':event-type': stringHeader(event) }, payload);
}

/** An error after the stream started: `exceptionType` is its member name in the union (`throttlingException`). */
export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return frame({ ':message-type': stringHeader('exception'), ':exception-type': stringHeader(exceptionType) }, { message });
}

function frame(headers: MessageHeaders, payload: object): Uint8Array {
  return codec.encode({
    headers: { ...headers, ':content-type': stringHeader('application/json') },
    body: encoder.encode(JSON.stringify(payload)),
  });
}
