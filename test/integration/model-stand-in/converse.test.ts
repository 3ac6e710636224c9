import { BedrockRuntimeClient, ConverseCommand, type ConverseCommandInput, type Message } from '@aws-sdk/client-bedrock-runtime';
import { type ModelStandIn, startModelStandIn } from '../../../local/model-stand-in/server';
import { bedrockClient, textOf, userSays } from '../../support/model-stand-in';

/**
 * docs/runs.md, "The local stand-in model": Converse, through AWS's own BedrockRuntimeClient pointed at the
 * stand-in. What the reply is, how it is counted and cut, and how long it takes.
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

const converse = (input: Omit<ConverseCommandInput, 'modelId'> & { modelId?: string }) =>
  client.send(new ConverseCommand({ modelId: 'anthropic.claude-3-5-haiku-20241022-v1:0', ...input }));
const replyTo = async (text: string) => textOf((await converse({ messages: userSays(text) })).output?.message?.content);

test('the reply is the text after the last REPLY: in the last user message, trimmed', async () => {
  const messages: Message[] = [
    { role: 'user', content: [{ text: 'REPLY: not this one' }] },
    { role: 'assistant', content: [{ text: 'REPLY: nor this one' }] },
    { role: 'user', content: [{ text: 'Answer briefly. REPLY: an early one REPLY:   the last one \n' }] },
  ];
  const answer = await converse({ messages });
  expect(answer.output?.message).toEqual({ role: 'assistant', content: [{ text: 'the last one' }] });
});

test('without REPLY:, the reply is the whole last user message, trimmed', async () => {
  expect(await replyTo('  Write a welcome email to Ada who just joined Acme.\n')).toBe('Write a welcome email to Ada who just joined Acme.');
});

test('the text blocks of the last user message are read as one text, a new line between them', async () => {
  const answer = await converse({ messages: [{ role: 'user', content: [{ text: 'first part' }, { text: 'REPLY: second part' }] }] });
  expect(textOf(answer.output?.message?.content)).toBe('second part');
});

test('the markers are not part of the reply, but everything after REPLY: is, word for word', async () => {
  expect(await replyTo('SLOW:5 PACE:1 Hello there')).toBe('Hello there');
  expect(await replyTo('SLOW:5 REPLY: PACE:1 and SLOW:5 stay, as does ERROR:ValidationException')).toBe(
    'PACE:1 and SLOW:5 stay, as does ERROR:ValidationException',
  );
});

test('text that only looks like a marker is text', async () => {
  expect(await replyTo('ERROR:ENOENT means SLOW:soon, and XSLOW:5 too')).toBe('ERROR:ENOENT means SLOW:soon, and XSLOW:5 too');
});

test('usage: input tokens are ceil(characters of the system and all messages / 4), output tokens ceil(characters of the reply / 4)', async () => {
  const answer = await converse({
    system: [{ text: 'Be brief.' }], // 9
    messages: [
      { role: 'user', content: [{ text: 'Hi 👋' }] }, // 4: the emoji is one character
      { role: 'assistant', content: [{ text: 'Hello.' }] }, // 6
      { role: 'user', content: [{ text: 'REPLY: héllo wörld' }] }, // 18
    ],
  });
  // 9 + 4 + 6 + 18 = 37 characters in; "héllo wörld" is 11 out.
  expect(answer.usage).toEqual({ inputTokens: 10, outputTokens: 3, totalTokens: 13 });
});

test('the stop reason is end_turn when the reply fits', async () => {
  const answer = await converse({ messages: userSays('REPLY: twelve chars'), inferenceConfig: { maxTokens: 3 } });
  expect([answer.stopReason, textOf(answer.output?.message?.content)]).toEqual(['end_turn', 'twelve chars']);
});

test('maxTokens cuts the reply at maxTokens x 4 characters, with stop reason max_tokens', async () => {
  const answer = await converse({ messages: userSays('REPLY: abcdefghijklmnopqrstuvwxyz'), inferenceConfig: { maxTokens: 2 } });
  expect(answer.stopReason).toBe('max_tokens');
  expect(textOf(answer.output?.message?.content)).toBe('abcdefgh');
  expect(answer.usage?.outputTokens).toBe(2);
});

test('a stop sequence ends the reply before it, with stop reason stop_sequence', async () => {
  const answer = await converse({ messages: userSays('REPLY: one. END two. STOP three.'), inferenceConfig: { stopSequences: ['STOP', 'END'] } });
  expect([answer.stopReason, textOf(answer.output?.message?.content)]).toEqual(['stop_sequence', 'one. ']);
});

test('a stop sequence past maxTokens x 4 characters is never reached: the reply is cut at max_tokens', async () => {
  const answer = await converse({ messages: userSays('REPLY: abcdefgh END'), inferenceConfig: { maxTokens: 1, stopSequences: ['END'] } });
  expect([answer.stopReason, textOf(answer.output?.message?.content)]).toEqual(['max_tokens', 'abcd']);
});

test.each([
  ['a foundation model', 'anthropic.claude-3-5-sonnet-20240620-v1:0'],
  ['an inference profile', 'us.anthropic.claude-3-7-sonnet-20250219-v1:0'],
  ["an inference profile's ARN", 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0'],
  ['any other name', 'my-model/with spaces & symbols?'],
])('every model id is answered: %s', async (_, modelId) => {
  const answer = await converse({ modelId, messages: userSays('REPLY: answered') });
  expect(textOf(answer.output?.message?.content)).toBe('answered');
});

test('the answer is Converse JSON: the message, the stop reason, the usage, the latency and a request id', async () => {
  const answer = await converse({ messages: userSays('REPLY: ok') });
  expect(answer).toMatchObject({
    output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
    metrics: { latencyMs: expect.any(Number) },
    $metadata: { httpStatusCode: 200, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
  });
});

test('SLOW:<ms> delays the whole answer by that many ms, and the latency says so', async () => {
  const started = performance.now();
  const answer = await converse({ messages: userSays('SLOW:600 REPLY: late') });
  expect(performance.now() - started).toBeGreaterThanOrEqual(600);
  expect(answer.metrics?.latencyMs).toBeGreaterThanOrEqual(600);
  expect(textOf(answer.output?.message?.content)).toBe('late');
});

test('PACE:<ms> delays the whole answer as long as its stream would take: that much between each two pieces', async () => {
  const started = performance.now();
  // 20 characters: 3 pieces, 2 pauses.
  await converse({ messages: userSays('PACE:250 REPLY: twenty characters ok') });
  expect(performance.now() - started).toBeGreaterThanOrEqual(500);
});

test('AWS_ENDPOINT_URL_BEDROCK_RUNTIME points a client without an endpoint at the stand-in, as npm start prints it', async () => {
  const previous = process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
  process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME = standIn.url;
  const fromEnvironment = new BedrockRuntimeClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  try {
    const answer = await fromEnvironment.send(new ConverseCommand({ modelId: 'any', messages: userSays('REPLY: found by the variable') }));
    expect(textOf(answer.output?.message?.content)).toBe('found by the variable');
  } finally {
    fromEnvironment.destroy();
    if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
    else process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME = previous;
  }
});
