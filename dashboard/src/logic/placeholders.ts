import { parseTemplate, variablesOf } from '../../../client/src/template';

/**
 * The editor's view of `${variable}` placeholders, read by the client's own template parser
 * (client/src/template.ts): one rule everywhere, so what the editor lists is exactly what
 * `compile()` will ask for. `$${` is a literal `${`; `${}` and an unclosed `${` are text.
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
