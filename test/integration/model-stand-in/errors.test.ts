import {
  AccessDeniedException,
  type BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ModelTimeoutException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { type ModelStandIn, startModelStandIn } from '../../../local/model-stand-in/server';
import { bedrockClient, eventNames, pieces, readStream, textOf, userSays } from '../../support/model-stand-in';

/**
 * docs/runs.md, "The local stand-in model": `ERROR:<name>` and `THROTTLE:<n>`, answered as Bedrock answers
 * errors (status, `x-amzn-ErrorType`, `{message}`), which the SDK turns into its own exception classes.
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

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const converse = (text: string, on = client) => on.send(new ConverseCommand({ modelId: MODEL, messages: userSays(text) }));
const converseStream = (text: string) => readStream(client, { modelId: MODEL, messages: userSays(text) });

async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call was answered, but an error was expected');
}

const ERRORS = [
  ['ValidationException', ValidationException, 400],
  ['ModelTimeoutException', ModelTimeoutException, 408],
  ['ServiceUnavailableException', ServiceUnavailableException, 503],
  ['AccessDeniedException', AccessDeniedException, 403],
  ['ThrottlingException', ThrottlingException, 429],
] as const;

describe.each(ERRORS)('ERROR:%s', (name, ExceptionClass, status) => {
  test(`Converse answers it: the SDK throws its ${name} with HTTP status ${status}`, async () => {
    const error = await failure(converse(`Summarise this. ERROR:${name}`));
    expect(error).toBeInstanceOf(ExceptionClass);
    expect(error).toMatchObject({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });
    expect((error as Error).message).toContain(`ERROR:${name}`);
  });

  test(`ConverseStream answers it before the stream starts: the SDK throws its ${name} with HTTP status ${status}`, async () => {
    const error = await failure(converseStream(`ERROR:${name} Summarise this.`));
    expect(error).toBeInstanceOf(ExceptionClass);
    expect(error).toMatchObject({ $metadata: { httpStatusCode: status } });
  });
});

describe.each([
  ['ThrottlingException', ThrottlingException],
  ['ValidationException', ValidationException],
  ['ServiceUnavailableException', ServiceUnavailableException],
] as const)('ERROR:%s with REPLY:, in ConverseStream', (name, ExceptionClass) => {
  test(`streams the reply, then ends with ${name} as an exception frame, which the SDK throws mid-stream`, async () => {
    const { stream } = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: userSays(`ERROR:${name} REPLY: half an answer`) }));
    const received: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of stream ?? []) received.push(event.contentBlockDelta?.delta?.text ?? Object.keys(event)[0] ?? '');
      })(),
    );
    expect(received).toEqual(['messageStart', 'half an ', 'answer', 'contentBlockStop']);
    expect(error).toBeInstanceOf(ExceptionClass);
    expect((error as Error).message).toContain(`ERROR:${name}`);
  });

  test('Converse answers the error itself', async () => {
    expect(await failure(converse(`ERROR:${name} REPLY: half an answer`))).toBeInstanceOf(ExceptionClass);
  });
});

test.each([
  ['ModelTimeoutException', ModelTimeoutException],
  ['AccessDeniedException', AccessDeniedException],
] as const)('ERROR:%s with REPLY: is still answered before a stream starts: ConverseStream carries no such frame', async (name, ExceptionClass) => {
  const error = await failure(converseStream(`ERROR:${name} REPLY: never streamed`));
  expect(error).toBeInstanceOf(ExceptionClass);
  expect(error).toMatchObject({ $metadata: { httpStatusCode: expect.any(Number) } });
});

test('THROTTLE:<n>: the first n calls with that same last user message answer ThrottlingException, then it answers normally', async () => {
  const message = 'THROTTLE:2 REPLY: at last';
  const outcomes: string[] = [];
  for (let call = 0; call < 4; call += 1) {
    outcomes.push(
      await converse(message).then(
        (answer) => textOf(answer.output?.message?.content),
        (error: unknown) => (error instanceof ThrottlingException ? `throttled ${error.$metadata.httpStatusCode}` : String(error)),
      ),
    );
  }
  expect(outcomes).toEqual(['throttled 429', 'throttled 429', 'at last', 'at last']);
});

test('THROTTLE:<n> counts each message on its own, across Converse and ConverseStream', async () => {
  expect(await failure(converse('THROTTLE:1 REPLY: first message'))).toBeInstanceOf(ThrottlingException);
  expect(await failure(converseStream('THROTTLE:1 REPLY: second message'))).toBeInstanceOf(ThrottlingException);
  expect(pieces((await converseStream('THROTTLE:1 REPLY: first message')).events).join('')).toBe('first message');
  expect(textOf((await converse('THROTTLE:1 REPLY: second message')).output?.message?.content)).toBe('second message');
});

test("the SDK's own retries get through THROTTLE:2 on their third attempt", async () => {
  const retrying = bedrockClient(standIn.url, { maxAttempts: 3 });
  try {
    const answer = await converse('THROTTLE:2 REPLY: retried into an answer', retrying);
    expect(textOf(answer.output?.message?.content)).toBe('retried into an answer');
    expect(answer.$metadata.attempts).toBe(3);
  } finally {
    retrying.destroy();
  }
});

test('ERROR comes before THROTTLE, which then counts nothing', async () => {
  const message = 'ERROR:AccessDeniedException THROTTLE:1 REPLY: never';
  expect(await failure(converse(message))).toBeInstanceOf(AccessDeniedException);
  expect(await failure(converse(message))).toBeInstanceOf(AccessDeniedException);
  expect(await failure(converse('THROTTLE:1 REPLY: counted once'))).toBeInstanceOf(ThrottlingException);
});

test('ERROR and THROTTLE come before SLOW: the error is answered at once, not after the wait', async () => {
  const started = performance.now();
  expect(await failure(converse('SLOW:20000 ERROR:ServiceUnavailableException'))).toBeInstanceOf(ServiceUnavailableException);
  expect(await failure(converseStream('SLOW:20000 THROTTLE:1 once'))).toBeInstanceOf(ThrottlingException);
  expect(performance.now() - started).toBeLessThan(20_000);
});

test('a stream answered in full after an error was asked for elsewhere: only the last user message counts', async () => {
  const { events } = await readStream(client, {
    modelId: MODEL,
    messages: [
      { role: 'user', content: [{ text: 'ERROR:ThrottlingException' }] },
      { role: 'assistant', content: [{ text: 'Too many requests.' }] },
      { role: 'user', content: [{ text: 'REPLY: fine now' }] },
    ],
  });
  expect(eventNames(events).at(-2)).toBe('messageStop');
  expect(pieces(events).join('')).toBe('fine now');
});
