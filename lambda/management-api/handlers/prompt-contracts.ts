import * as z from 'zod/mini';
import { MAX_MODEL_LENGTH, MAX_NESTING_DEPTH, NESTING_RULE, nestsDeeperThan, TEMPERATURE_RANGE } from '../../domain/content-rules';
import { MAX_DESCRIPTION_LENGTH, MAX_PROMPT_NAME_LENGTH, MAX_TAGS, TAG_PATTERN, TAG_RULE } from '../../domain/prompt-details';
import { contract, described, named } from '../contract';
import { Name, Note, Percent, PromptConfigAnswer, PromptId, Version } from '../fields';
import { ChangeRequestEnvelope } from './change-request-contracts';

/** Prompts, their versions (drafts and published) and their labels. */

const TEMPERATURE_ERROR = `must be from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}`;

export const PromptConfig = z.strictObject({
  model: z
    .string()
    .check(z.minLength(1, { error: 'must not be empty' }), z.maxLength(MAX_MODEL_LENGTH, { error: `must be at most ${MAX_MODEL_LENGTH} characters` })),
  temperature: z
    .number({ error: 'must be a number' })
    .check(z.gte(TEMPERATURE_RANGE.min, { error: TEMPERATURE_ERROR }), z.lte(TEMPERATURE_RANGE.max, { error: TEMPERATURE_ERROR })),
  schema: z._default(
    z.array(z.unknown(), { error: 'must be an array' }).check(z.refine((value) => !nestsDeeperThan(value, MAX_NESTING_DEPTH), { error: NESTING_RULE })),
    [],
  ),
  inputData: z._default(z.unknown().check(z.refine((value) => !nestsDeeperThan(value, MAX_NESTING_DEPTH), { error: NESTING_RULE })), null),
  inputDataRootName: z._default(z.nullable(z.string()), null),
});

export const CreatePromptBody = named('CreatePrompt', z.strictObject({ promptId: PromptId, promptName: Name(MAX_PROMPT_NAME_LENGTH) }));

export const Tag = z.string().check(z.regex(TAG_PATTERN, { error: `must be a tag: ${TAG_RULE}` }));

/** A prompt's details (domain/prompt-details.ts): each field given is set; `null` or `""` removes the description, `[]` the tags. */
export const PromptPatchBody = named(
  'PromptPatch',
  z
    .strictObject({
      promptName: z.optional(Name(MAX_PROMPT_NAME_LENGTH)),
      description: z.optional(
        z.nullable(z.string().check(z.trim(), z.maxLength(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` }))),
      ),
      tags: z.optional(
        z.array(Tag).check(
          z.maxLength(MAX_TAGS, { error: `must list at most ${MAX_TAGS} tags` }),
          z.refine((tags) => new Set(tags).size === tags.length, { error: 'must not list a tag twice' }),
        ),
      ),
    })
    .check(z.refine((change) => Object.keys(change).length > 0, { error: 'give promptName, description or tags' })),
);

/** A draft's content; more than 300 KB of it is 413, as for the seed file. */
export const VersionContentBody = named(
  'VersionContent',
  z.strictObject({ systemMessage: z.string({ error: 'must be a string' }), userMessage: z.string({ error: 'must be a string' }), config: PromptConfig }),
);

export const PublishBody = named('Publish', z.strictObject({ note: Note }));

/**
 * A label move: the version, a note the label's history keeps as the move's reason, and `restore: true` for a
 * move back to a past version (the history says `restore`). A label under approval opens a change request instead (202).
 */
export const LabelBody = named(
  'SetLabel',
  z.strictObject({ version: Version, note: z.optional(Note), restore: z.optional(z.boolean({ error: 'must be true or false' })) }),
);

const When = z.nullable(z.string());

/** What names and describes a prompt, in every answer about one. */
const promptNamingFields = { promptId: z.string(), promptName: z.string(), description: z.nullable(z.string()), tags: z.array(z.string()) };

/** A prompt's head as lists and details both answer it. */
const promptHeadFields = {
  ...promptNamingFields,
  deleted: z.boolean(),
  latestVersion: z.nullable(z.string()),
  labels: z.record(z.string(), z.string()),
};

/** Who changed it last, and when. */
const lastChangeFields = { updatedAt: When, updatedBy: When };

export const PromptListEntry = named('PromptListEntry', z.strictObject({ ...promptHeadFields, drafts: z.array(z.string()), ...lastChangeFields }));

const PromptList = named('PromptList', z.strictObject({ prompts: z.array(PromptListEntry) }));

const PromptDetails = named('PromptDetails', z.strictObject(promptNamingFields));

export const VersionSummary = named(
  'VersionSummary',
  z.strictObject({
    version: z.string(),
    published: z.boolean(),
    publishedAt: When,
    publishedBy: When,
    note: z.nullable(z.string()),
    ...lastChangeFields,
  }),
);

export const PromptDetail = named('PromptDetail', z.strictObject({ ...promptHeadFields, ...lastChangeFields, versions: z.array(VersionSummary) }));

export const VersionAnswer = named(
  'Version',
  z.strictObject({
    version: z.string(),
    published: z.boolean(),
    systemMessage: z.string(),
    userMessage: z.string(),
    config: PromptConfigAnswer,
    etag: described('The strong ETag, as in the ETag header', z.string()),
    updatedAt: When,
    updatedBy: When,
  }),
);

const LabelSet = named('LabelSet', z.strictObject({ label: z.string(), version: z.string(), previous: z.nullable(z.string()) }));

export const LabelHistoryRollout = z.strictObject({
  rolloutId: z.string(),
  event: z.enum(['started', 'changed', 'completed', 'aborted']),
  percent: Percent,
  to: z.string(),
  served: z.optional(z.strictObject({ from: z.int(), to: z.int() })),
});

export const LabelHistoryEntry = named(
  'LabelHistoryEntry',
  z.strictObject({
    at: z.string(),
    by: described("The person's email, or `cli:<operator>`", z.string()),
    from: described('The version before; null: no label', z.nullable(z.string())),
    to: described('The version after; null: removed', z.nullable(z.string())),
    reason: described(
      'How: the note given, `restore` (`restore: <note>`), `push`, `request <requestId>`, `rollout <rolloutId>`, `import`; null for a move without a note',
      z.nullable(z.string()),
    ),
    rollout: z.optional(
      described(
        "On a rollout's entries: which, what happened to it (the label moves only when one completes), its share, where it moves the label, and once ended what each side served",
        LabelHistoryRollout,
      ),
    ),
  }),
);

const LabelHistoryPage = named(
  'LabelHistoryPage',
  z.strictObject({
    entries: z.array(LabelHistoryEntry),
    next: z.optional(described('Pass as `before` for the next page; absent on the last', z.string())),
  }),
);

const PromptVisibility = named('PromptVisibility', z.strictObject({ promptId: z.string(), deleted: z.boolean() }));

const PROMPTS = '/api/accounts/{accountId}/prompts';
const PROMPT = `${PROMPTS}/{promptId}`;
const VERSION = `${PROMPT}/versions/{version}`;
const LABEL = `${PROMPT}/labels/{label}`;

export const listPrompts = contract({
  method: 'GET',
  path: PROMPTS,
  summary: 'Every prompt, drafts-only and deleted ones included',
  answers: { 200: PromptList },
});

export const createPrompt = contract({
  method: 'POST',
  path: PROMPTS,
  summary: 'Create a prompt',
  body: CreatePromptBody,
  answers: { 201: PromptListEntry },
  refusals: [409],
});

export const readPrompt = contract({ method: 'GET', path: PROMPT, summary: 'A prompt with every version and its labels', answers: { 200: PromptDetail } });

export const updatePromptDetails = contract({
  method: 'PATCH',
  path: PROMPT,
  summary: "Change the prompt's name, description or tags",
  description: 'The read API serves the new name from the next request.',
  body: PromptPatchBody,
  answers: { 200: PromptDetails },
});

export const readVersion = contract({ method: 'GET', path: VERSION, summary: "A version's content", answers: { 200: VersionAnswer }, etag: true });

export const saveDraft = contract({
  method: 'PUT',
  path: VERSION,
  summary: 'Create (If-None-Match: *) or replace (If-Match) a draft',
  body: VersionContentBody,
  answers: { 200: VersionAnswer, 201: VersionAnswer },
  refusals: [409, 412, 413, 428],
  etag: true,
  ifMatch: true,
  ifNoneMatch: true,
});

export const deleteDraft = contract({
  method: 'DELETE',
  path: VERSION,
  summary: 'Delete a draft (If-Match)',
  answers: { 204: null },
  refusals: [409, 412, 428],
  ifMatch: true,
});

export const publishVersion = contract({
  method: 'POST',
  path: `${VERSION}/publish`,
  summary: 'Publish the draft read with If-Match',
  body: PublishBody,
  answers: { 200: VersionSummary },
  refusals: [409, 412, 428],
  ifMatch: true,
});

export const setLabel = contract({
  method: 'PUT',
  path: LABEL,
  summary: 'Point a label at a published version',
  description:
    "Protected labels need admins. `note` is kept in the label's history as the move's reason; `restore: true` marks a move back to a past version. A label under approval is not moved: 202 with the change request opened.",
  body: LabelBody,
  answers: { 200: LabelSet, 202: ChangeRequestEnvelope },
  refusals: [409],
});

export const removeLabel = contract({
  method: 'DELETE',
  path: LABEL,
  summary: 'Remove a label',
  description: 'A label under approval is not removed: 202 with the change request opened.',
  answers: { 204: null, 202: ChangeRequestEnvelope },
  refusals: [409],
});

export const labelHistory = contract({
  method: 'GET',
  path: `${LABEL}/history`,
  summary: "The label's moves and removals, newest first, 50 a page",
  query: z.object({ before: z.optional(described('The cursor `next` of the previous page', z.string())) }),
  answers: { 200: LabelHistoryPage },
});

export const deletePrompt = contract({
  method: 'POST',
  path: `${PROMPT}/delete`,
  summary: 'Hide the prompt from the read API',
  answers: { 200: PromptVisibility },
});

export const restorePrompt = contract({
  method: 'POST',
  path: `${PROMPT}/restore`,
  summary: 'Bring a deleted prompt back',
  answers: { 200: PromptVisibility },
});
