import fc from 'fast-check';
import { PROMPT_BODY_SCHEMA, TOOLS } from '../../lambda/mcp/mcp-tools';
import { type JsonSchema, loadOpenApiDocument, schemaProblems } from '../support/openapi';

/**
 * The tools' output schemas say what the read API's bodies are: the MCP endpoint's `get_prompt` answers the
 * body of GET /prompts/{promptId}, so its schema and openapi.yaml's SinglePrompt must accept the same bodies.
 */

const singlePrompt = loadOpenApiDocument().components.schemas.SinglePrompt as JsonSchema;

const version = fc.tuple(fc.nat(999), fc.nat(999), fc.nat(999)).map((parts) => parts.join('.'));
const body = fc.record({
  promptId: fc.stringMatching(/^[A-Za-z0-9_.-]{1,128}$/),
  promptName: fc.string(),
  version,
  systemMessage: fc.string(),
  userMessage: fc.string(),
  config: fc.record({
    model: fc.string(),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    schema: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    inputData: fc.jsonValue({ maxDepth: 2 }),
    inputDataRootName: fc.option(fc.string(), { nil: null }),
  }),
});

/** A body with one thing wrong that a schema must notice. */
const wrong = fc.oneof(
  body.map((valid) => ({ ...valid, extra: true })),
  body.map(({ config: _config, ...rest }) => rest),
  body.map((valid) => ({ ...valid, version: 'latest' })),
  body.map((valid) => ({ ...valid, config: { ...valid.config, temperature: 3 } })),
  body.map((valid) => ({ ...valid, promptId: 'has space' })),
);

test("get_prompt's output schema and openapi.yaml's SinglePrompt accept the same bodies, and refuse the same wrong ones", () => {
  fc.assert(
    fc.property(fc.oneof(body, wrong), (value) => {
      const documented = schemaProblems(singlePrompt, value, 'SinglePrompt').length === 0;
      const tool = schemaProblems(PROMPT_BODY_SCHEMA as unknown as JsonSchema, value, 'get_prompt').length === 0;
      expect([value, tool]).toEqual([value, documented]);
    }),
    { numRuns: 300 },
  );
});

test('every tool has an object input schema and an object output schema', () => {
  for (const tool of TOOLS) {
    expect([tool.name, tool.inputSchema.type, tool.outputSchema?.type]).toEqual([tool.name, 'object', 'object']);
  }
});
