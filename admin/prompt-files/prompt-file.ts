import { Document, isMap, LineCounter, parseDocument, Scalar } from 'yaml';
import type { PromptConfig } from '../../lambda/domain/prompt';
import { isSettableLabel } from '../../lambda/domain/label';
import { isTag, MAX_DESCRIPTION_LENGTH, MAX_PROMPT_NAME_LENGTH, MAX_TAGS, TAG_RULE } from '../../lambda/domain/prompt-details';
import { isValidPromptId } from '../../lambda/domain/prompt';
import { isValidVersion } from '../../lambda/domain/version';
import { at, fail, InputError, type Json, readObject, readString } from '../input-reader';
import { CONTENT_FIELDS, readContent, readVersionNumber } from '../prompt-content';

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

/** A file that cannot be what it says: `<file>:<line>: <field>: <problem>`. */
export class PromptFileError extends InputError {}

export const promptIdOfFile = (fileName: string): string | undefined =>
  fileName.endsWith(PROMPT_FILE_SUFFIX) ? fileName.slice(0, -PROMPT_FILE_SUFFIX.length) : undefined;

/** The YAML path of an input-reader path: `config.schema[0]` -> ['config', 'schema', 0]. */
function yamlPath(field: string): (string | number)[] {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : (match[1] as string)));
}

/** The line of the deepest node of the path the file has; line 1 when it has none of it. */
function lineOf(document: Document, counter: LineCounter, field: string): number {
  const path = yamlPath(field);
  for (let length = path.length; length > 0; length -= 1) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return counter.linePos(node.range[0]).line;
  }
  return 1;
}

export function parsePromptFile(fileName: string, text: string): PromptFile {
  const promptId = promptIdOfFile(fileName.split('/').at(-1) ?? fileName);
  if (promptId === undefined || !isValidPromptId(promptId)) {
    throw new PromptFileError(`${fileName}:1: the file name must be <promptId>${PROMPT_FILE_SUFFIX}, the prompt id 1 to 128 of A-Z a-z 0-9 _ . -`);
  }
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const syntax = document.errors[0];
  if (syntax) {
    const line = counter.linePos(syntax.pos[0]).line;
    throw new PromptFileError(`${fileName}:${line}: not valid YAML: ${syntax.message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 0 });
  } catch {
    // An alias (`*a`): a few lines that could expand into gigabytes; a prompt file needs none.
    throw new PromptFileError(`${fileName}:1: YAML aliases (*name) are not taken in a prompt file: write the text out`);
  }
  try {
    return readPromptFile(promptId, value);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const field = error.message.split(': ')[0] ?? '';
    const where = field === '(top level)' ? 1 : lineOf(document, counter, field);
    throw new PromptFileError(`${fileName}:${where}: ${error.message}`);
  }
}

function readPromptFile(promptId: string, value: unknown): PromptFile {
  const object = readObject(value, '', FIELDS);
  // Optional: the file name says it; when written, it must say the same.
  if (object.promptId !== undefined && object.promptId !== promptId) {
    fail('promptId', `is ${JSON.stringify(object.promptId)}, but the file is named for ${promptId}`);
  }
  const promptName = readString(object, 'promptName', '', { nonEmpty: true, max: MAX_PROMPT_NAME_LENGTH });
  const description = object.description ?? null;
  if (description !== null && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH)) {
    fail('description', `must be text of at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  const tags = object.tags ?? [];
  if (!Array.isArray(tags)) fail('tags', 'must be a list');
  if (tags.length > MAX_TAGS) fail('tags', `at most ${MAX_TAGS}`);
  tags.forEach((tag, index) => {
    if (typeof tag !== 'string' || !isTag(tag)) fail(at('tags', index), `must be ${TAG_RULE}`);
  });
  if (new Set(tags).size !== tags.length) fail('tags', 'each tag once');
  const version = readVersionNumber(object, '');
  const content = readContent(object, '');
  return {
    promptId,
    promptName,
    description: description === '' ? null : (description as string | null),
    tags: [...(tags as string[])].sort(),
    version,
    ...content,
    labels: readLabels(object),
  };
}

function readLabels(object: Json): Record<string, string> {
  const labels = object.labels ?? {};
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) fail('labels', 'must be a mapping of label: version');
  const read: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [label, version] of Object.entries(labels)) {
    if (!isSettableLabel(label)) fail(at('labels', label), 'a label is 1 to 32 of a-z 0-9 - _, starting with a letter, and not latest');
    if (typeof version !== 'string' || !isValidVersion(version)) fail(at('labels', label), 'must be a version MAJOR.MINOR.PATCH');
    read[label] = version;
  }
  return sortedLabels(read);
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
