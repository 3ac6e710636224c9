import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
  ConverseStreamCommand,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * AWS's own Bedrock Runtime client pointed at a local stand-in model, as a run would hold it: dummy
 * credentials and a region given outright (no credential chain, no profile, no network), and by default no
 * retries of its own, so a test sees each answer the stand-in gives.
 */
export function bedrockClient(endpoint: string, options: { maxAttempts?: number; http1?: boolean } = {}): BedrockRuntimeClient {
  const config: BedrockRuntimeClientConfig = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLOCALSTANDIN', secretAccessKey: 'local-stand-in-secret' },
    maxAttempts: options.maxAttempts ?? 1,
    // The client's default handler speaks HTTP/2; this one, HTTP/1.1.
    ...(options.http1 ? { requestHandler: new NodeHttpHandler() } : {}),
  };
  return new BedrockRuntimeClient(config);
}

/** One user message of text. */
export const userSays = (text: string): Message[] => [{ role: 'user', content: [{ text }] }];

/** The text of an answer's content blocks. */
export const textOf = (content: readonly ContentBlock[] | undefined): string => (content ?? []).map((block) => block.text ?? '').join('');

export interface ArrivedEvent {
  /** performance.now() when the SDK handed the event over. */
  readonly at: number;
  readonly event: ConverseStreamOutput;
}

export interface StreamRead {
  /** performance.now() just before the call was sent. */
  readonly sentAt: number;
  /** When `send` resolved: the SDK resolves once the first event has arrived. */
  readonly openedAt: number;
  readonly events: ArrivedEvent[];
}

/** A ConverseStream call read to its end, each event with the time it arrived. */
export async function readStream(client: BedrockRuntimeClient, input: ConverseStreamCommandInput): Promise<StreamRead> {
  const sentAt = performance.now();
  const { stream } = await client.send(new ConverseStreamCommand(input));
  const openedAt = performance.now();
  const events: ArrivedEvent[] = [];
  for await (const event of stream ?? []) events.push({ at: performance.now(), event });
  return { sentAt, openedAt, events };
}

/** The name of each event, in order: `messageStart`, `contentBlockDelta`, ... */
export const eventNames = (events: readonly ArrivedEvent[]): string[] =>
  events.map(({ event }) => Object.keys(event).filter((key) => key !== '$unknown')[0] ?? '$unknown');

/** The text (or a tool use's input) of each delta, in order. */
export const pieces = (events: readonly ArrivedEvent[]): string[] =>
  events.flatMap(({ event }) => {
    const delta = event.contentBlockDelta?.delta;
    if (delta === undefined) return [];
    return [delta.text ?? delta.toolUse?.input ?? ''];
  });

export const deltaTimes = (events: readonly ArrivedEvent[]): number[] =>
  events.filter(({ event }) => event.contentBlockDelta !== undefined).map(({ at }) => at);
