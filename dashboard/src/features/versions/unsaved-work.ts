import type { DraftForm } from './draft-form';

/**
 * What a tab keeps so that no work is lost (docs/management-api.md, "The dashboard": No lost work): unsaved draft text, per person,
 * account, prompt and version, with the ETag of the draft it was typed over; and the preview's sample values,
 * per person, account and prompt. Both live in the tab's sessionStorage: a reload and a new sign-in find them,
 * another tab and another person never do.
 */

/** The part of Web Storage used here (sessionStorage in the page; a Map in the tests). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Where one person's unsaved text of one version waits. */
export interface DraftPlace {
  readonly userId: string;
  readonly accountId: string;
  readonly promptId: string;
  readonly version: string;
}

export interface UnsavedDraft {
  readonly form: DraftForm;
  /** The ETag of the draft as it was when this text was typed over it. */
  readonly baseEtag: string;
}

/** The fields of the form, in the order the editor shows them, with the names a person reads. */
export const DRAFT_FIELDS: readonly { readonly field: keyof DraftForm; readonly label: string }[] = [
  { field: 'systemMessage', label: 'System message' },
  { field: 'userMessage', label: 'User message template' },
  { field: 'model', label: 'Model' },
  { field: 'temperature', label: 'Temperature' },
  { field: 'schema', label: 'Schema (JSON array)' },
  { field: 'inputData', label: 'Input data (JSON, optional)' },
  { field: 'inputDataRootName', label: 'Input data root name (optional)' },
];

// The parts are joined as JSON, so no id can run into the next one whatever characters it holds.
export const unsavedDraftKey = (place: DraftPlace): string =>
  `dashboard.unsaved:${JSON.stringify([place.userId, place.accountId, place.promptId, place.version])}`;

export const sampleValuesKey = (place: Omit<DraftPlace, 'version'>): string =>
  `dashboard.samples:${JSON.stringify([place.userId, place.accountId, place.promptId])}`;

export function readUnsavedDraft(storage: Pick<KeyValueStore, 'getItem'>, key: string): UnsavedDraft | undefined {
  const value = readJson(storage, key);
  if (typeof value !== 'object' || value === null) return undefined;
  const { form, baseEtag } = value as { form?: unknown; baseEtag?: unknown };
  if (typeof baseEtag !== 'string' || !isDraftForm(form)) return undefined;
  return { form, baseEtag };
}

export function writeUnsavedDraft(storage: Pick<KeyValueStore, 'setItem'>, key: string, draft: UnsavedDraft): void {
  storage.setItem(key, JSON.stringify(draft));
}

/** Sample values by variable name: a Map, since the names come from templates (`${__proto__}` is a name too). */
export function readSampleValues(storage: Pick<KeyValueStore, 'getItem'>, key: string): Map<string, string> {
  const value = readJson(storage, key);
  const samples = new Map<string, string>();
  if (!Array.isArray(value)) return samples;
  for (const entry of value) {
    if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string') samples.set(entry[0], entry[1]);
  }
  return samples;
}

export function writeSampleValues(storage: Pick<KeyValueStore, 'setItem' | 'removeItem'>, key: string, samples: ReadonlyMap<string, string>): void {
  const filled = [...samples].filter(([, value]) => value !== '');
  if (filled.length === 0) storage.removeItem(key);
  else storage.setItem(key, JSON.stringify(filled));
}

/** The fields where two forms differ, in the editor's order. */
export function differingFields(theirs: DraftForm, mine: DraftForm): (keyof DraftForm)[] {
  return DRAFT_FIELDS.map(({ field }) => field).filter((field) => theirs[field] !== mine[field]);
}

export type FieldChoice = 'theirs' | 'mine';

/** Their form with the fields the person chose to keep as they wrote them. */
export function mergeForms(theirs: DraftForm, mine: DraftForm, choices: ReadonlyMap<keyof DraftForm, FieldChoice>): DraftForm {
  const merged: Record<keyof DraftForm, string> = { ...theirs };
  for (const { field } of DRAFT_FIELDS) if (choices.get(field) === 'mine') merged[field] = mine[field];
  return merged;
}

function readJson(storage: Pick<KeyValueStore, 'getItem'>, key: string): unknown {
  try {
    const text = storage.getItem(key);
    return text === null ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isDraftForm(value: unknown): value is DraftForm {
  if (typeof value !== 'object' || value === null) return false;
  return DRAFT_FIELDS.every(({ field }) => typeof (value as Record<string, unknown>)[field] === 'string');
}
