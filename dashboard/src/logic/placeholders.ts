import { parseTemplate, variablesOf } from '../../../client/src/template';

/**
 * The editor's view of `${variable}` placeholders, read by the client's own template parser
 * (client/src/template.ts): one rule everywhere, so what the editor lists is exactly what
 * `compile()` will ask for. `$${` is a literal `${`; `${}` and an unclosed `${` are text. A label move and a
 * change request say with them which variables callers must now fill.
 */

/** The variables of the templates, in order of first appearance, each once. */
export function placeholdersIn(...templates: readonly string[]): string[] {
  return variablesOf(...templates.map((template) => parseTemplate(template)));
}

/** A piece of a preview: text as it will be sent, or a variable with the sample value given for it (if any). */
export type PreviewPiece = { readonly text: string } | { readonly variable: string; readonly value: string | undefined };

/** Sample values by variable name: a Map, since the names come from templates (`${__proto__}` is a name too). */
export type SampleValues = ReadonlyMap<string, string>;

/** The template with the sample values put in; a variable without a non-empty sample stays a named gap. */
export function previewPieces(template: string, samples: SampleValues): PreviewPiece[] {
  return parseTemplate(template).map((segment) => {
    if (typeof segment === 'string') return { text: segment };
    const value = samples.get(segment.variable);
    return { variable: segment.variable, value: value === '' ? undefined : value };
  });
}

/** The preview as plain text: filled variables become their values, unfilled ones stay `${name}`. */
export function previewText(template: string, samples: SampleValues): string {
  return previewPieces(template, samples)
    .map((piece) => ('text' in piece ? piece.text : (piece.value ?? `\${${piece.variable}}`)))
    .join('');
}

/** Variables still without a sample value. */
export function unfilled(variables: readonly string[], samples: SampleValues): string[] {
  return variables.filter((name) => (samples.get(name) ?? '') === '');
}

/** The variables one version needs that the other does not. */
export interface PlaceholderChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

interface Messages {
  readonly systemMessage: string;
  readonly userMessage: string;
}

/** The variables added and removed from `before` (none: a label that pointed nowhere) to `after`, as the client's parser reads them. */
export function placeholderChange(before: Messages | undefined, after: Messages): PlaceholderChange {
  const old = before ? placeholdersIn(before.systemMessage, before.userMessage) : [];
  const now = placeholdersIn(after.systemMessage, after.userMessage);
  return { added: now.filter((name) => !old.includes(name)), removed: old.filter((name) => !now.includes(name)) };
}

const variable = (name: string) => `\${${name}}`;

function listed(names: readonly string[]): string {
  const shown = names.map(variable);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * The plain warnings about a change's variables: a variable the new version needs and the old did not is a
 * failure for every caller that fills only the old ones (the client refuses to compile, or the model gets the
 * gap); one no longer used is harmless, but worth knowing. Empty when the variables are the same.
 */
export function placeholderWarnings(change: PlaceholderChange, hadBefore = true): { readonly added?: string; readonly removed?: string } {
  return {
    ...(change.added.length === 0
      ? {}
      : {
          added: hadBefore
            ? `Callers that fill only the old variables will miss ${listed(change.added)}.`
            : `Callers must fill ${listed(change.added)}: the label pointed at no version before.`,
        }),
    ...(change.removed.length === 0
      ? {}
      : {
          removed: `${listed(change.removed)} ${change.removed.length === 1 ? 'is' : 'are'} no longer used: a value sent for ${change.removed.length === 1 ? 'it' : 'them'} is ignored (compile with strict: true refuses ${change.removed.length === 1 ? 'it' : 'them'}).`,
        }),
  };
}
