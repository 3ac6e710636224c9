import type { BedrockRuntimeClient, ConverseStreamCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { type ModelStandIn, startModelStandIn } from '../../../local/model-stand-in/server';
import { bedrockClient, deltaTimes, eventNames, pieces, readStream, userSays } from '../../support/model-stand-in';

/**
 * docs/runs.md, "The local stand-in model": ConverseStream, through AWS's own BedrockRuntimeClient, which
 * reads the stand-in's binary event stream (application/vnd.amazon.eventstream) into its typed events.
 */

let standIn: ModelStandIn;
let client: BedrockRuntimeClient;

beforeAll(async () => {
  standIn = await startModelStandIn();
  client = bedrockClient(standIn.url);
});

afterAll(async () => {
  client.destroy();
  await standIn.close();
});

const stream = (input: Omit<ConverseStreamCommandInput, 'modelId'>) => readStream(client, { modelId: 'amazon.nova-lite-v1:0', ...input });

test('the reply streams as contentBlockDelta pieces of at most 8 characters, between messageStart and messageStop, then metadata', async () => {
  const { events } = await stream({ messages: userSays('REPLY: The quick brown fox jumps over the lazy dog.') });

  expect(eventNames(events)).toEqual(['messageStart', ...Array.from({ length: 6 }, () => 'contentBlockDelta'), 'contentBlockStop', 'messageStop', 'metadata']);
  expect(pieces(events)).toEqual(['The quic', 'k brown ', 'fox jump', 's over t', 'he lazy ', 'dog.']);
  expect(events[0]?.event.messageStart).toEqual({ role: 'assistant' });
  expect(events.filter(({ event }) => event.contentBlockDelta).map(({ event }) => event.contentBlockDelta?.contentBlockIndex)).toEqual([0, 0, 0, 0, 0, 0]);
});

test('a character outside the Basic Multilingual Plane is one character, never split between two pieces', async () => {
  const { events } = await stream({ messages: userSays('REPLY: 1234567👋89') });
  expect(pieces(events)).toEqual(['1234567👋', '89']);
});

test('messageStop carries the stop reason and metadata the usage, as Converse counts them', async () => {
  const { events } = await stream({
    system: [{ text: 'Be brief.' }],
    messages: userSays('REPLY: abcdefghijklmnopqrstuvwxyz'),
    inferenceConfig: { maxTokens: 3 },
  });
  // 9 + 33 characters in; the reply cut at 12 characters.
  expect(pieces(events).join('')).toBe('abcdefghijkl');
  expect(events.find(({ event }) => event.messageStop)?.event.messageStop).toEqual({ stopReason: 'max_tokens' });
  expect(events.at(-1)?.event.metadata).toMatchObject({
    usage: { inputTokens: 11, outputTokens: 3, totalTokens: 14 },
    metrics: { latencyMs: expect.any(Number) },
  });
});

test('SLOW:<ms> delays the first piece by that many ms, while messageStart comes before it', async () => {
  const { sentAt, openedAt, events } = await stream({ messages: userSays('SLOW:700 REPLY: eventually, all of it') });

  const [firstPiece] = deltaTimes(events);
  expect(firstPiece).toBeDefined();
  // The SDK hands the stream over once messageStart has arrived: before the first piece, not with it.
  expect(openedAt).toBeLessThan(firstPiece as number);
  expect((firstPiece as number) - sentAt).toBeGreaterThanOrEqual(700);
  expect(pieces(events).join('')).toBe('eventually, all of it');
});

test('PACE:<ms> spaces the pieces that far apart: each arrives as the stand-in writes it, not all at the end', async () => {
  // 5 pieces, 4 pauses of 200 ms: written over 800 ms. Had the answer been held back, they would arrive together.
  const { events } = await stream({ messages: userSays('PACE:200 REPLY: 0123456789012345678901234567890123456789') });
  const times = deltaTimes(events);
  expect(times).toHaveLength(5);
  // At least half the 800 ms the writing took: what a busy test process may shave off the first piece's arrival.
  expect((times.at(-1) as number) - (times[0] as number)).toBeGreaterThanOrEqual(400);
});

test('a reply of nothing streams no piece: the block ends at once, with no output tokens', async () => {
  const { events } = await stream({ messages: userSays('Say nothing. REPLY:') });
  expect(eventNames(events)).toEqual(['messageStart', 'contentBlockStop', 'messageStop', 'metadata']);
  expect(events.at(-1)?.event.metadata?.usage?.outputTokens).toBe(0);
});
