import { stableJson } from '../../logic/diff-rows';

/**
 * The editor's fields as the person types them (numbers and JSON as text), and the version content
 * they make. Problems are found before sending, named by the same field paths the API uses in its
 * 400s (`config.temperature`), so either kind shows next to the same field.
 */
export interface DraftForm {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly model: string;
  readonly temperature: string;
  readonly schema: string;
  readonly inputData: string;
  readonly inputDataRootName: string;
}

export interface DraftContent {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: {
    readonly model: string;
    readonly temperature: number;
    readonly schema: readonly unknown[];
    readonly inputData: unknown;
    readonly inputDataRootName: string | null;
  };
}

export type DraftField =
  | 'systemMessage'
  | 'userMessage'
  | 'config.model'
  | 'config.temperature'
  | 'config.schema'
  | 'config.inputData'
  | 'config.inputDataRootName';

/** The same bounds as lambda/domain/content-rules.ts. */
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;
export const MAX_MODEL_LENGTH = 256;

interface ContentLike {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: Readonly<Record<string, unknown>>;
}

export function formOf(content: ContentLike): DraftForm {
  const { model, temperature, schema, inputData, inputDataRootName } = content.config;
  return {
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    model: typeof model === 'string' ? model : '',
    temperature: typeof temperature === 'number' ? String(temperature) : '',
    schema: stableJson(Array.isArray(schema) ? schema : []),
    inputData: inputData === undefined || inputData === null ? '' : stableJson(inputData),
    inputDataRootName: typeof inputDataRootName === 'string' ? inputDataRootName : '',
  };
}

export type FormResult =
  | { readonly content: DraftContent; readonly problems?: undefined }
  | { readonly content?: undefined; readonly problems: Partial<Record<DraftField, string>> };

export function contentOf(form: DraftForm): FormResult {
  const problems: Partial<Record<DraftField, string>> = {};
  const model = form.model.trim();
  if (model === '') problems['config.model'] = 'Name the model, e.g. gpt-4o-mini.';
  else if (model.length > MAX_MODEL_LENGTH) problems['config.model'] = `At most ${MAX_MODEL_LENGTH} characters.`;
  const temperature = Number(form.temperature);
  if (form.temperature.trim() === '' || !Number.isFinite(temperature) || temperature < TEMPERATURE_RANGE.min || temperature > TEMPERATURE_RANGE.max) {
    problems['config.temperature'] = `A number from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}, e.g. 0.7.`;
  }
  const schema = parseJson(form.schema.trim() === '' ? '[]' : form.schema);
  if (!schema.ok) problems['config.schema'] = `Not valid JSON: ${schema.message}.`;
  else if (!Array.isArray(schema.value)) problems['config.schema'] = 'The schema is a JSON array, e.g. [] or [{"name": "answer", "type": "string"}].';
  const inputData = parseJson(form.inputData.trim() === '' ? 'null' : form.inputData);
  if (!inputData.ok) problems['config.inputData'] = `Not valid JSON: ${inputData.message}.`;
  if (Object.keys(problems).length > 0) return { problems };
  return {
    content: {
      systemMessage: form.systemMessage,
      userMessage: form.userMessage,
      config: {
        model,
        temperature,
        schema: (schema.ok ? schema.value : []) as unknown[],
        inputData: inputData.ok ? inputData.value : null,
        inputDataRootName: form.inputDataRootName.trim() === '' ? null : form.inputDataRootName.trim(),
      },
    },
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^JSON\.parse: /, '') };
  }
}

/** Whether two forms would save the same content (JSON compared as data, not as text). */
export function sameContent(a: DraftForm, b: DraftForm): boolean {
  const left = contentOf(a);
  const right = contentOf(b);
  if (!left.content || !right.content) return JSON.stringify(a) === JSON.stringify(b);
  return stableJson(left.content) === stableJson(right.content);
}
