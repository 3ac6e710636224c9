import { TemplateVariablesError } from './errors.js';
import type { CompiledMessages, CompileOptions, TemplateValue } from './types.js';

/**
 * A message template: text with `${name}` placeholders. A name is everything up to the next `}`
 * (the playground reads templates the same way). A literal `${` is written `$${`: the `$` in front
 * escapes it, so `$${name}` is the text `${name}`, not a variable. `${` with no `}` after it, and an
 * empty `${}`, are text too.
 */
export type Segment = string | { readonly variable: string };

export function parseTemplate(text: string): readonly Segment[] {
  const segments: Segment[] = [];
  let literal = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('${', at);
    if (open === -1) break;
    if (open > 0 && text[open - 1] === '$') {
      literal += `${text.slice(at, open - 1)}\${`;
      at = open + 2;
      continue;
    }
    const close = text.indexOf('}', open + 2);
    if (close === -1) break;
    literal += text.slice(at, open);
    const name = text.slice(open + 2, close);
    if (name === '') {
      literal += '${}';
    } else {
      if (literal !== '') segments.push(literal);
      literal = '';
      segments.push({ variable: name });
    }
    at = close + 1;
  }
  literal += text.slice(at);
  if (literal !== '') segments.push(literal);
  return segments;
}

export function variablesOf(...templates: ReadonlyArray<readonly Segment[]>): string[] {
  const names = new Set<string>();
  for (const segments of templates) {
    for (const segment of segments) if (typeof segment !== 'string') names.add(segment.variable);
  }
  return [...names];
}

/** A prompt's two messages, read once so that compiling is a walk over the pieces. */
export class PromptTemplate {
  readonly variables: readonly string[];
  private readonly system: readonly Segment[];
  private readonly user: readonly Segment[];

  constructor(
    private readonly label: string,
    systemMessage: string,
    userMessage: string,
  ) {
    this.system = parseTemplate(systemMessage);
    this.user = parseTemplate(userMessage);
    this.variables = Object.freeze(variablesOf(this.system, this.user));
  }

  compile(values: Readonly<Record<string, unknown>>, options: CompileOptions = {}): CompiledMessages {
    if (values === null || typeof values !== 'object') {
      throw new TemplateVariablesError(`Cannot compile ${this.label}: values must be an object`, [], [], []);
    }
    const missing: string[] = [];
    const invalid: string[] = [];
    for (const name of this.variables) {
      const value = Object.hasOwn(values, name) ? values[name] : undefined;
      if (value === undefined || value === null) missing.push(name);
      else if (!isTemplateValue(value)) invalid.push(name);
    }
    const unknown = options.strict === true ? Object.keys(values).filter((name) => !this.variables.includes(name)) : [];
    if (missing.length > 0 || invalid.length > 0 || unknown.length > 0) {
      const problems = [
        missing.length > 0 ? `missing ${list(missing)}` : '',
        invalid.length > 0 ? `not a string, number or boolean: ${list(invalid)}` : '',
        unknown.length > 0 ? `unknown ${list(unknown)} (the prompt's variables: ${list(this.variables) || 'none'})` : '',
      ].filter(Boolean);
      throw new TemplateVariablesError(`Cannot compile ${this.label}: ${problems.join('; ')}`, missing, unknown, invalid);
    }
    return { systemMessage: fill(this.system, values), userMessage: fill(this.user, values) };
  }
}

function isTemplateValue(value: unknown): value is TemplateValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function list(names: readonly string[]): string {
  return names.map((name) => `\${${name}}`).join(', ');
}

function fill(segments: readonly Segment[], values: Readonly<Record<string, unknown>>): string {
  let text = '';
  for (const segment of segments) text += typeof segment === 'string' ? segment : String(values[segment.variable]);
  return text;
}
