import { request as http1Request } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { connect as tcpConnect } from 'node:net';
import { type BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { type ModelStandIn, startModelStandIn } from '../../../local/model-stand-in/server';
import { bedrockClient, pieces, readStream, textOf, userSays } from '../../support/model-stand-in';
import { sendRaw } from '../../support/raw-http';

/**
 * The stand-in against what no SDK sends (docs/security.md, "Local (`npm start`)"): bodies that are no Converse request,
 * names from `Object.prototype`, bodies too large or too deep, web pages and other hosts, over HTTP/1.1
 * and HTTP/2. Each is a Bedrock error answer (status, `x-amzn-ErrorType`, `{message}`), never a crash.
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

interface Answer {
  readonly status: number;
  readonly errorType: string | null;
  readonly body: Record<string, unknown>;
}

/** A body as given, over HTTP/1.1. */
async function post(body: string | Uint8Array, path = '/model/any-model/converse', method = 'POST'): Promise<Answer> {
  const response = await fetch(`${standIn.url}${path}`, { method, headers: { 'Content-Type': 'application/json' }, ...(method === 'GET' ? {} : { body }) });
  return { status: response.status, errorType: response.headers.get('x-amzn-errortype'), body: (await response.json()) as Record<string, unknown> };
}

const converseBody = (fields: Record<string, unknown> = {}) => JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'REPLY: fine' }] }], ...fields });

/** The stand-in still answers: what every hostile request must leave behind. */
async function stillAnswers(): Promise<void> {
  const answer = await client.send(new ConverseCommand({ modelId: 'm', messages: userSays('REPLY: still here') }));
  expect(textOf(answer.output?.message?.content)).toBe('still here');
}

afterEach(stillAnswers);

describe('bodies that are no Converse request', () => {
  test.each([
    ['not JSON', 'messages: hello', 'not valid JSON'],
    ['JSON that is no object', '[{"role": "user"}]', 'must be a JSON object'],
    ['empty', '', 'not valid JSON'],
    ['not UTF-8', new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]), 'not valid JSON'],
  ])('a body that is %s is a ValidationException', async (_, body, message) => {
    const answer = await post(body);
    expect([answer.status, answer.errorType]).toEqual([400, 'ValidationException']);
    expect(answer.body).toEqual({ message: expect.stringContaining(message) });
  });

  test('a body nesting past 64 levels is a ValidationException, refused before it is parsed', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const answer = await post(`{"additionalModelRequestFields": {"deep": ${deep}}, ${converseBody().slice(1)}`);
    expect([answer.status, answer.errorType]).toEqual([400, 'ValidationException']);
    expect(answer.body.message).toContain('nest at most 64 levels');
  });

  test.each([
    ['no messages', { messages: undefined }, "'messages'"],
    ['no message at all', { messages: [] }, "'messages'"],
    ['a role that is neither user nor assistant', { messages: [{ role: 'system', content: [{ text: 'x' }] }] }, "'messages.0.role'"],
    ['a conversation that starts with the assistant', { messages: [{ role: 'assistant', content: [{ text: 'x' }] }] }, 'must start with a user message'],
    [
      'two user messages in a row',
      {
        messages: [
          { role: 'user', content: [{ text: 'a' }] },
          { role: 'user', content: [{ text: 'b' }] },
        ],
      },
      'must alternate',
    ],
    ['a blank text', { messages: [{ role: 'user', content: [{ text: '  ' }] }] }, 'is blank'],
    ['a content block of two members', { messages: [{ role: 'user', content: [{ text: 'a', image: {} }] }] }, "'messages.0.content.0'"],
    ['a text that is no string', { messages: [{ role: 'user', content: [{ text: 42 }] }] }, "'messages.0.content.0.text'"],
    ['maxTokens 0', { inferenceConfig: { maxTokens: 0 } }, "'inferenceConfig.maxTokens'"],
    ['maxTokens not an integer', { inferenceConfig: { maxTokens: 2.5 } }, "'inferenceConfig.maxTokens'"],
    ['temperature above 1', { inferenceConfig: { temperature: 1.5 } }, "'inferenceConfig.temperature'"],
    ['topP below 0', { inferenceConfig: { topP: -0.1 } }, "'inferenceConfig.topP'"],
    ['an empty stop sequence', { inferenceConfig: { stopSequences: ['END', ''] } }, "'inferenceConfig.stopSequences.1'"],
    ['a system block that is no list', { system: 'Be brief.' }, "'system'"],
    ['no tools', { toolConfig: { tools: [] } }, "'toolConfig.tools'"],
    [
      'a tool name outside Bedrock’s pattern',
      { toolConfig: { tools: [{ toolSpec: { name: 'a tool', inputSchema: { json: {} } } }] } },
      "'toolConfig.tools.0.toolSpec.name'",
    ],
    [
      'a forced tool that is not among the tools',
      { toolConfig: { tools: [{ toolSpec: { name: 'a', inputSchema: { json: {} } } }], toolChoice: { tool: { name: 'b' } } } },
      'The tool b in toolChoice',
    ],
    [
      'a structured output schema that is not JSON',
      { outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{not json' } } } } },
      "'outputConfig.textFormat.structure.jsonSchema.schema'",
    ],
  ])('%s is a ValidationException naming what is wrong', async (_, fields, named) => {
    const answer = await post(converseBody(fields));
    expect([answer.status, answer.errorType]).toEqual([400, 'ValidationException']);
    expect(answer.body.message).toContain(named);
  });
});

describe('names from Object.prototype are data', () => {
  test('__proto__ and constructor members of a body set nothing: the call is answered by its own fields', async () => {
    const body = `{"__proto__": {"inferenceConfig": {"maxTokens": 1}}, "constructor": {"prototype": {"polluted": true}}, ${converseBody().slice(1)}`;
    const answer = await post(body);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ output: { message: { content: [{ text: 'fine' }] } }, stopReason: 'end_turn' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('messages given as an object with a __proto__ list are no list: a ValidationException', async () => {
    const answer = await post('{"messages": {"__proto__": [{"role": "user", "content": [{"text": "x"}]}]}}');
    expect([answer.status, answer.errorType]).toEqual([400, 'ValidationException']);
  });

  test('a tool named __proto__ is forced like any other, and its input keeps __proto__ as a member', async () => {
    const answer = await post(
      converseBody({
        messages: [{ role: 'user', content: [{ text: 'REPLY: {"__proto__": {"admin": true}, "toString": 1}' }] }],
        toolConfig: { tools: [{ toolSpec: { name: '__proto__', inputSchema: { json: { type: 'object' } } } }], toolChoice: { any: {} } },
      }),
    );
    const toolUse = (
      (answer.body.output as { message: { content: { toolUse: { name: string; input: object } }[] } }).message.content[0] as {
        toolUse: { name: string; input: object };
      }
    ).toolUse;
    expect(toolUse.name).toBe('__proto__');
    expect(Object.keys(toolUse.input)).toEqual(['__proto__', 'toString']);
  });
});

describe('bodies too large', () => {
  test('a body declared over 10 MB is refused with 413 (ValidationException) before a byte of it is read', async () => {
    const head = Buffer.from(
      `POST /model/m/converse HTTP/1.1\r\nHost: ${new URL(standIn.url).host}\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024 + 1}\r\n\r\n`,
    );
    const answer = await sendRaw(standIn.url, head);
    expect([answer.status, answer.headers['x-amzn-errortype']]).toEqual([413, 'ValidationException']);
    expect(JSON.parse(answer.body)).toEqual({ message: expect.stringContaining('over 10 MB') });
  });

  test('a chunked body that grows past 10 MB is cut off there with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = http1Request(`${standIn.url}/model/m/converse`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 12 && !request.destroyed) {
          sent += 1;
          if (!request.write(chunk)) return void request.once('drain', more);
        }
        request.end();
      };
      more();
    });
    expect(status).toBe(413);
  });
});

describe('routes', () => {
  test.each([
    { what: 'another operation of Bedrock Runtime', method: 'POST', path: '/model/m/invoke', status: 404, errorType: 'UnknownOperationException' },
    { what: 'a path of no operation', method: 'POST', path: '/converse', status: 404, errorType: 'UnknownOperationException' },
    { what: 'GET on Converse', method: 'GET', path: '/model/m/converse', status: 405, errorType: 'UnknownOperationException' },
    { what: 'a model id that is not URL-encoded text', method: 'POST', path: '/model/%E0%A4%A/converse', status: 400, errorType: 'ValidationException' },
    { what: 'a model id past 2,048 characters', method: 'POST', path: `/model/${'m'.repeat(2_049)}/converse`, status: 400, errorType: 'ValidationException' },
  ])('$what is answered $status $errorType', async ({ method, path, status, errorType }) => {
    const answer = await post(converseBody(), path, method);
    expect([answer.status, answer.errorType]).toEqual([status, errorType]);
    expect(answer.body).toEqual({ message: expect.any(String) });
  });
});

describe('who may call it: this machine’s programs, never a web page or another host', () => {
  test.each([
    ['a page on another origin', [['Origin', 'https://attacker.example']]],
    ['a sandboxed page (Origin: null)', [['Origin', 'null']]],
    ['a page rebinding its DNS name to 127.0.0.1', [['Host', 'attacker.example']]],
    ['a page on another loopback port', [['Host', '127.0.0.1:1']]],
  ] as const)('over HTTP/1.1, %s is refused with 403 (AccessDeniedException) and gets no CORS headers', async (_, headers) => {
    const withHost = headers.some(([name]) => name === 'Host');
    const lines = [
      'POST /model/m/converse HTTP/1.1',
      ...(withHost ? [] : [`Host: ${new URL(standIn.url).host}`]),
      ...headers.map(([name, value]) => `${name}: ${value}`),
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(converseBody())}`,
      'Connection: close',
    ];
    const answer = await sendRaw(standIn.url, Buffer.from(`${lines.join('\r\n')}\r\n\r\n${converseBody()}`));
    expect([answer.status, answer.headers['x-amzn-errortype']]).toEqual([403, 'AccessDeniedException']);
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  /** One request over HTTP/2 with the given pseudo-headers and headers. */
  function http2Post(headers: Record<string, string>): Promise<{ status: number; errorType: unknown }> {
    return new Promise((resolve, reject) => {
      const session = http2Connect(standIn.url);
      session.on('error', reject);
      const stream = session.request({ ':method': 'POST', ':path': '/model/m/converse', 'content-type': 'application/json', ...headers });
      stream.on('response', (response) => {
        stream.resume();
        stream.on('close', () => {
          session.close();
          resolve({ status: Number(response[':status']), errorType: response['x-amzn-errortype'] });
        });
      });
      stream.on('error', reject);
      stream.end(converseBody());
    });
  }

  test('over HTTP/2, its own :authority is answered, as the SDK sends it', async () => {
    expect(await http2Post({ ':authority': new URL(standIn.url).host })).toEqual({ status: 200, errorType: undefined });
  });

  test.each([
    ['an :authority of another host', (): Record<string, string> => ({ ':authority': 'attacker.example' })],
    ['its own :authority with a Host of another', (own: string) => ({ ':authority': own, host: 'attacker.example' })],
    ['a web page’s Origin', (own: string) => ({ ':authority': own, origin: 'https://attacker.example' })],
  ])('over HTTP/2, %s is refused with 403 (AccessDeniedException)', async (_, headersFor) => {
    expect(await http2Post(headersFor(new URL(standIn.url).host))).toEqual({ status: 403, errorType: 'AccessDeniedException' });
  });

  test('the SDK over HTTP/1.1 (its NodeHttpHandler) is answered: its own Host header, 127.0.0.1 and the port, passes', async () => {
    const http1 = bedrockClient(standIn.url, { http1: true });
    try {
      const answer = await http1.send(new ConverseCommand({ modelId: 'm', messages: userSays('REPLY: over HTTP/1.1') }));
      expect(textOf(answer.output?.message?.content)).toBe('over HTTP/1.1');
      expect(pieces((await readStream(http1, { modelId: 'm', messages: userSays('PACE:20 REPLY: streamed over HTTP/1.1') })).events).join('')).toBe(
        'streamed over HTTP/1.1',
      );
    } finally {
      http1.destroy();
    }
  });

  test('an endpoint named localhost is answered too', async () => {
    const byName = bedrockClient(standIn.url.replace('127.0.0.1', 'localhost'));
    try {
      const answer = await byName.send(new ConverseCommand({ modelId: 'm', messages: userSays('REPLY: by name') }));
      expect(textOf(answer.output?.message?.content)).toBe('by name');
    } finally {
      byName.destroy();
    }
  });
});

describe('clients that misbehave', () => {
  test.each([
    ['HTTP/2', false],
    ['HTTP/1.1', true],
  ])('a client that leaves (over %s) in the middle of a stream does not stop the stand-in: the next call is answered', async (_, http1) => {
    const leaving = bedrockClient(standIn.url, { http1 });
    const { stream } = await leaving.send(new ConverseStreamCommand({ modelId: 'm', messages: userSays('SLOW:5000 REPLY: never read') }));
    if (stream === undefined) throw new Error('no stream');
    const first = await stream[Symbol.asyncIterator]().next();
    expect(Object.keys(first.value ?? {})).toEqual(['messageStart']);
    // Its connections closed under the stream, as a process that exits closes them.
    leaving.destroy();
  });

  test('HTTP/2’s preface followed by garbage ends that connection only', async () => {
    const { hostname, port } = new URL(standIn.url);
    await new Promise<void>((resolve) => {
      const socket = tcpConnect(Number(port), hostname, () =>
        socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.alloc(64, 0xff)])),
      );
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
      socket.resume();
    });
  });

  test('bytes that are no HTTP at all get a 400 and the connection closes', async () => {
    const answer = await sendRaw(standIn.url, Buffer.from('\x16\x03\x01 not http at all\r\n\r\n'));
    expect(answer.status).toBe(400);
  });
});
