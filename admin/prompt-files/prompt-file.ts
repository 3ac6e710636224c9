import { Document, isCollection, isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit, type YAMLError } from 'yaml';
import type { PromptConfig } from '../../lambda/domain/prompt';
import { isSettableLabel } from '../../lambda/domain/label';
import { isTag, MAX_DESCRIPTION_LENGTH, MAX_PROMPT_NAME_LENGTH, MAX_TAGS, TAG_RULE } from '../../lambda/domain/prompt-details';
import { isValidPromptId } from '../../lambda/domain/prompt';
import { isValidVersion } from '../../lambda/domain/version';
import { at, fail, InputError, type Json, Problems, readObjectEach, readString, type Take } from '../input-reader';
import { CONTENT_FIELDS, readVersionNumber, takeContent } from '../prompt-content';

/**
 * One prompt as code: `<promptId>.prompt.yaml`, the prompt's current content, details and labels
 * (docs/prompts-as-code.md). Read by the seed file's own rules (admin/prompt-content.ts) and the details'
 * (lambda/domain/prompt-details.ts); every refusal names the file, the line and the field.
 */

export const PROMPT_FILE_SUFFIX = '.prompt.yaml';

export interface PromptFile {
  readonly promptId: string;
  readonly promptName: string;
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly version: string;
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: PromptConfig;
  /** label -> version, in name order. */
  readonly labels: Readonly<Record<string, string>>;
}

const FIELDS = ['promptId', 'promptName', 'description', 'tags', 'version', ...CONTENT_FIELDS, 'labels'];

/**
 * A file that cannot be what it says: one problem a line, `<file>:<line>:<column>: <field>: <problem>`, each
 * followed by the file's line and a caret under the column; every problem of the file, not only the first.
 */
export class PromptFileError extends InputError {}

export const promptIdOfFile = (fileName: string): string | undefined =>
  fileName.endsWith(PROMPT_FILE_SUFFIX) ? fileName.slice(0, -PROMPT_FILE_SUFFIX.length) : undefined;

/** The YAML path of an input-reader path: `config.schema[0]` -> ['config', 'schema', 0]. */
function yamlPath(field: string): (string | number)[] {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : (match[1] as string)));
}

/**
 * Where the deepest node of the path the file has starts (an offset); 0 when it has none of it. A problem of a
 * name (an unknown field, a bad label) is pointed at the name; any other at the value.
 */
function offsetOf(document: Document, field: string, atName: boolean): number {
  const path = yamlPath(field);
  for (let length = path.length; length > 0; length -= 1) {
    const parent = length > 1 ? document.getIn(path.slice(0, length - 1), true) : document.contents;
    const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && item.key.value === path[length - 1]) : undefined;
    const value = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    const name = isScalar(pair?.key) ? pair.key.range : undefined;
    const range = (atName || length < path.length ? name : undefined) ?? value?.range ?? name;
    if (range) return range[0];
  }
  return 0;
}

const isProblemOfName = (message: string) => message.includes(': unknown field') || message.includes(': a label is');

/**
 * Where a syntax error starts. The parser notices an unclosed `[`, `{` or quote only where the file goes on
 * without closing it (often the next line, or the end); the problem starts at the opening one.
 */
function syntaxOffset(document: Document, error: YAMLError): number {
  const at = error.pos[0];
  const wanted = error.message.startsWith('Flow sequence')
    ? (node: unknown) => isSeq(node) && node.flow === true
    : error.message.startsWith('Flow map')
      ? (node: unknown) => isMap(node) && node.flow === true
      : error.code === 'MISSING_CHAR' && error.message.includes('quote')
        ? (node: unknown) => isScalar(node) && (node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE)
        : undefined;
  if (!wanted) return at;
  let opening: number | undefined;
  visit(document, {
    Node(_key, node) {
      const range = (isCollection(node) || isScalar(node)) && node.range;
      if (range && wanted(node) && range[0] < at && range[1] >= at && (opening === undefined || range[0] > opening)) opening = range[0];
    },
  });
  return opening ?? at;
}

/** `file:line:column: message`, then the line itself and a caret under the column. */
function located(fileName: string, text: string, counter: LineCounter, offset: number, message: string): string {
  const { line, col } = counter.linePos(Math.min(offset, text.length));
  const source = text.split('\n')[line - 1] ?? '';
  const gutter = String(line).length;
  return [`${fileName}:${line}:${col}: ${message}`, `  ${line} | ${source}`, `  ${' '.repeat(gutter)} | ${' '.repeat(Math.max(col - 1, 0))}^`].join('\n');
}

export function parsePromptFile(fileName: string, text: string): PromptFile {
  const promptId = promptIdOfFile(fileName.split('/').at(-1) ?? fileName);
  if (promptId === undefined || !isValidPromptId(promptId)) {
    throw new PromptFileError(`${fileName}:1:1: the file name must be <promptId>${PROMPT_FILE_SUFFIX}, the prompt id 1 to 128 of A-Z a-z 0-9 _ . -`);
  }
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) =>
      located(fileName, text, counter, syntaxOffset(document, error), `not valid YAML: ${error.message.split('\n')[0]}`),
    );
    throw new PromptFileError([...new Set(problems)].join('\n'));
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 0 });
  } catch {
    // An alias (`*a`): a few lines that could expand into gigabytes; a prompt file needs none.
    let alias = 0;
    visit(document, {
      Alias(_key, node) {
        alias = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    throw new PromptFileError(located(fileName, text, counter, alias, 'YAML aliases (*name) are not taken in a prompt file: write the text out'));
  }
  const problems = new Problems();
  const file = readPromptFile(promptId, value, problems.take);
  if (!file || problems.messages.length > 0) {
    const where = problems.messages.map((message) => {
      const field = message.split(': ')[0] ?? '';
      return { message, offset: field === '(top level)' ? 0 : offsetOf(document, field, isProblemOfName(message)) };
    });
    where.sort((a, b) => a.offset - b.offset);
    throw new PromptFileError(where.map(({ message, offset }) => located(fileName, text, counter, offset, message)).join('\n'));
  }
  return file;
}

/** The file's fields, each read through `take`: every refusal is kept, and then there is no file. */
function readPromptFile(promptId: string, value: unknown, take: Take): PromptFile | undefined {
  const object = readObjectEach(value ?? {}, '', FIELDS, take);
  if (!object) return undefined;
  // Optional: the file name says it; when written, it must say the same.
  take(() => {
    if (object.promptId !== undefined && object.promptId !== promptId) {
      fail('promptId', `is ${JSON.stringify(object.promptId)}, but the file is named for ${promptId}`);
    }
  });
  const promptName = take(() => readString(object, 'promptName', '', { nonEmpty: true, max: MAX_PROMPT_NAME_LENGTH }));
  const description = take(() => {
    const description = object.description ?? null;
    if (description !== null && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH)) {
      fail('description', `must be text of at most ${MAX_DESCRIPTION_LENGTH} characters`);
    }
    return description === '' ? null : description;
  });
  const tags = take(() => readTags(object));
  const version = take(() => readVersionNumber(object, ''));
  const content = takeContent(object, '', take);
  const labels = readLabels(object, take);
  if (promptName === undefined || description === undefined || tags === undefined || version === undefined || !content || !labels) return undefined;
  return { promptId, promptName, description, tags, version, ...content, labels };
}

function readTags(object: Json): string[] {
  const tags = object.tags ?? [];
  if (!Array.isArray(tags)) fail('tags', 'must be a list');
  if (tags.length > MAX_TAGS) fail('tags', `at most ${MAX_TAGS}`);
  const read: string[] = [];
  tags.forEach((tag, index) => {
    if (typeof tag !== 'string' || !isTag(tag)) fail(at('tags', index), `must be ${TAG_RULE}`);
    read.push(tag);
  });
  if (new Set(read).size !== read.length) fail('tags', 'each tag once');
  return read.sort();
}

function readLabels(object: Json, take: Take): Record<string, string> | undefined {
  const labels = object.labels ?? {};
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return take(() => fail('labels', 'must be a mapping of label: version'));
  const read: Record<string, string> = Object.create(null) as Record<string, string>;
  let whole = true;
  for (const [label, version] of Object.entries(labels)) {
    const taken = take(() => {
      if (!isSettableLabel(label)) fail(at('labels', label), 'a label is 1 to 32 of a-z 0-9 - _, starting with a letter, and not latest');
      if (typeof version !== 'string' || !isValidVersion(version)) fail(at('labels', label), 'must be a version MAJOR.MINOR.PATCH');
      return version;
    });
    if (taken === undefined) whole = false;
    else read[label] = taken;
  }
  return whole ? sortedLabels(read) : undefined;
}

/** Labels in name order: how a file writes them, so the same labels always give the same bytes. */
export const sortedLabels = (labels: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));

/** A message as a block scalar when it has more than one line, so a pull request shows a line diff. */
function text(value: string): Scalar {
  const node = new Scalar(value);
  if (value.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
  return node;
}

/** The file's text: fields in one order, messages as block scalars; the same prompt always gives the same bytes. */
export function formatPromptFile(file: PromptFile): string {
  const document = new Document({});
  const root = document.contents;
  if (!isMap(root)) throw new Error('a new document is a map');
  root.set('promptName', text(file.promptName));
  if (file.description !== null) root.set('description', text(file.description));
  if (file.tags.length > 0) root.set('tags', document.createNode([...file.tags], { flow: true }));
  root.set('version', file.version);
  root.set('systemMessage', text(file.systemMessage));
  root.set('userMessage', text(file.userMessage));
  root.set('config', document.createNode(file.config));
  if (Object.keys(file.labels).length > 0) root.set('labels', document.createNode({ ...file.labels }));
  return document.toString({ lineWidth: 0, indent: 2 });
}
