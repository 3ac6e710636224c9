import { EventStreamCodec } from '@smithy/eventstream-codec';
import fc from 'fast-check';
import { type ModelStandIn, startModelStandIn } from '../../../local/model-stand-in/server';
import { assertFuzz, fuzzRuns, PROTOTYPE_NAMES } from '../../support/fuzz';

/**
 * Property-based fuzzing of the local stand-in model (docs/runs.md, "The local stand-in model"): bodies of
 * Converse's shape filled with anything (names from Object.prototype, values of any JSON type, markers and
 * their look-alikes) get a Converse answer, a well-formed event stream, or a Bedrock error answer: never a
 * 5xx, never a crash. Seeded like the other fuzzing suites (test/support/fuzz.ts).
 */

jest.setTimeout(120_000);

let standIn: ModelStandIn;

beforeAll(async () => {
  standIn = await startModelStandIn();
});

afterAll(() => standIn.close());

const name = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 10 }));
const anyJson = fc.jsonValue({ maxDepth: 3 });
/** Text as a test or a careless program writes it: markers (none asking for a 5xx) and their look-alikes among words. */
const text = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        'REPLY:',
        'SLOW:1',
        'PACE:1',
        'THROTTLE:1',
        'ERROR:ThrottlingException',
        'ERROR:ValidationException',
        'SLOW:x',
        'ERROR:',
        '{"a": 1}',
        '</judge-input>',
      ),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((words) => words.join(' '));
const block = fc.oneof(
  text.map((value) => ({ text: value })),
  fc.record({ toolUse: fc.record({ toolUseId: fc.string(), name: fc.string(), input: anyJson }) }),
  fc.dictionary(name, anyJson, { minKeys: 1, maxKeys: 2 }),
);
/** A conversation Bedrock takes: user first, roles alternating, text that is not blank; with extra members of any name. */
const conversation = fc
  .record({
    turns: fc.array(
      fc.array(
        fc.oneof(
          text.map((value) => ({ text: `x ${value}` })),
          block,
        ),
        { minLength: 1, maxLength: 2 },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    system: fc.option(
      fc.array(
        text.map((value) => ({ text: `x ${value}` })),
        { minLength: 1, maxLength: 2 },
      ),
      { nil: undefined },
    ),
    inferenceConfig: fc.option(
      fc.record(
        { maxTokens: fc.integer({ min: 1, max: 20 }), stopSequences: fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 2 }) },
        { requiredKeys: [] },
      ),
      {
        nil: undefined,
      },
    ),
    toolName: fc.option(fc.constantFrom('record', '__proto__', 'constructor'), { nil: undefined }),
    toolChoice: fc.constantFrom({ any: {} }, { auto: {} }, 'named'),
    extra: fc.dictionary(name, anyJson, { maxKeys: 2 }),
  })
  .map(({ turns, system, inferenceConfig, toolName, toolChoice, extra }) => ({
    ...extra,
    messages: turns.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
    ...(system ? { system } : {}),
    ...(inferenceConfig ? { inferenceConfig } : {}),
    ...(toolName
      ? {
          toolConfig: {
            tools: [{ toolSpec: { name: toolName, inputSchema: { json: {} } } }],
            toolChoice: toolChoice === 'named' ? { tool: { name: toolName } } : toolChoice,
          },
        }
      : {}),
  }));
const message = fc.record({ role: fc.oneof(fc.constantFrom('user', 'assistant'), fc.string({ maxLength: 6 })), content: fc.array(block, { maxLength: 3 }) });
const tool = fc.record({
  toolSpec: fc.record({
    name: fc.oneof(fc.constantFrom('record', '__proto__', 'constructor'), fc.string({ maxLength: 8 })),
    inputSchema: fc.constant({ json: {} }),
  }),
});
/** Anything in Converse's members. */
const chaos = fc.record(
  {
    messages: fc.oneof(fc.array(message, { minLength: 1, maxLength: 3 }), anyJson),
    system: fc.oneof(fc.array(block, { maxLength: 2 }), anyJson),
    inferenceConfig: fc.oneof(
      fc.record(
        { maxTokens: fc.oneof(fc.integer({ min: -1, max: 20 }), anyJson), stopSequences: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }) },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
    toolConfig: fc.oneof(
      fc.record({
        tools: fc.array(tool, { maxLength: 2 }),
        toolChoice: fc.constantFrom({ any: {} }, { auto: {} }, { tool: { name: 'record' } }, { tool: { name: '__proto__' } }),
      }),
      anyJson,
    ),
    outputConfig: anyJson,
  },
  { requiredKeys: ['messages'] },
);
const body = fc.oneof(
  { weight: 3, arbitrary: conversation },
  { weight: 1, arbitrary: chaos },
  { weight: 1, arbitrary: fc.dictionary(name, anyJson, { maxKeys: 4 }) },
);

const ERROR_TYPES = ['ValidationException', 'ThrottlingException', 'UnknownOperationException'];
const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (value) => new TextEncoder().encode(value),
);

/** The frames of an event stream, each decoded by the SDK's codec (which checks their CRCs). */
function framesOf(bytes: Uint8Array): { type: string; payload: unknown }[] {
  const frames: { type: string; payload: unknown }[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    const { headers, body } = codec.decode(bytes.subarray(offset, offset + length));
    frames.push({ type: String(headers[':event-type']?.value ?? headers[':exception-type']?.value), payload: JSON.parse(new TextDecoder().decode(body)) });
    offset += length;
  }
  return frames;
}

test('any body of Converse’s shape, to either operation, is answered, an event stream or a Bedrock error: never a 5xx', async () => {
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype);
  await assertFuzz(
    'test/integration/model-stand-in/fuzz.test.ts',
    fc.record({
      operation: fc.constantFrom('converse', 'converse-stream'),
      modelId: fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ minLength: 1 })),
      body,
    }),
    async ({ operation, modelId, body: generated }) => {
      const response = await fetch(`${standIn.url}/model/${encodeURIComponent(modelId)}/${operation}`, { method: 'POST', body: JSON.stringify(generated) });
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (response.status !== 200) {
        expect(ERROR_TYPES).toContain(response.headers.get('x-amzn-errortype'));
        expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({ message: expect.any(String) });
        return;
      }
      if (operation === 'converse') {
        expect(JSON.parse(new TextDecoder().decode(bytes))).toMatchObject({
          output: { message: { role: 'assistant', content: [expect.any(Object)] } },
          usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
        });
        return;
      }
      expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
      const frames = framesOf(bytes);
      expect(frames[0]?.type).toBe('messageStart');
      expect(['metadata', 'throttlingException', 'validationException']).toContain(frames.at(-1)?.type);
    },
    fuzzRuns(150),
  );
  // Names from requests are data: nothing was set on every object's prototype.
  expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeNames);
});
