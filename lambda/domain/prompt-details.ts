/**
 * What people say about a prompt besides its versions (docs/management-api.md, "The management API": Prompt details): its name, a
 * description and tags, for finding it in a long list. One set of rules for the management API, the CLI and
 * prompt files. The read API serves the name only: prompt bodies keep exactly the spec's fields.
 */

export const TAG_PATTERN = /^[a-z0-9_-]{1,32}$/;
export const TAG_RULE = '1 to 32 characters of a-z, 0-9, "-" or "_"';
export const MAX_TAGS = 20;
export const MAX_DESCRIPTION_LENGTH = 1_000;
export const MAX_PROMPT_NAME_LENGTH = 200;

export function isTag(value: string): boolean {
  return TAG_PATTERN.test(value);
}

/** A change of details: each field given is set; a description of `null` (or empty) and no tags remove them. */
export interface PromptDetailsChange {
  readonly promptName?: string;
  readonly description?: string | null;
  readonly tags?: readonly string[];
}

export interface PromptDetails {
  readonly promptName: string;
  readonly description: string | null;
  readonly tags: readonly string[];
}
