import type { Actor } from '../../domain/actor';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../../domain/label';
import type { PromptDetailsChange } from '../../domain/prompt-details';
import { ConflictError } from '../../table/errors';
import type { PromptHeadItem, PromptLabelItem, PromptVersionItem, StoredContent } from '../../table/item-types';
import { keys } from '../../table/schema';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildUpdate } from '../../table/update-expression';
import { readApprovalGate } from '../change-requests/approval-gate';
import { openChangeRequestWrites } from '../change-requests/opening';
import { requireNoOpenChangeRequest } from '../change-requests/open-change-requests';
import { InvalidLabelError, PromptDeletedError, PromptMissingError, RolloutActiveError, VersionNotPublishedError } from '../errors';
import { labelMovesOnHead, labelsUnchanged, planLabelMoves } from '../labels/label-move';
import { labelCopyWrites } from '../labels/labels';
import { PUSH_REASON } from '../labels/move-reasons';
import { type PlannedChange, plannedAs, type RecordedStep } from '../planned-change';
import type { VersionContent } from './authoring';
import { publishNewVersion } from './publishing';

/**
 * Everything one prompt of a `prompts push` changes, as one transaction (docs/prompts-as-code.md): the prompt
 * created, the file's version published (as every version is: publishing.ts), its labels moved or removed (as every
 * label is: labels/label-move.ts, each history entry's reason `push`), a change request opened for each label the
 * account puts under approval (which the approval gate says, inside this change: change-requests/approval-gate.ts),
 * its details set. Each step
 * keeps its own audit entry (the names the log and its filters use), all written with the change: the prompt
 * is as the file says, or as it was.
 */
export interface PromptRelease {
  readonly promptId: string;
  /** A new prompt, with this name. */
  readonly create?: { readonly promptName: string };
  /** A new version, published at once (a published version never changes, so it is written whole). */
  readonly publish?: { readonly version: string; readonly content: VersionContent; readonly note: string };
  /** `to: null` takes the label off; a label under approval is asked for instead (a change request). */
  readonly labels: readonly { readonly label: string; readonly to: string | null }[];
  /** What the change request of a label under approval says: the push's note. */
  readonly changeRequestNote?: string;
  readonly details?: PromptDetailsChange;
}

/** A release as the approval gate split it: the labels it moves, and those it asks for (`requests`), with the approvals each request needs. */
interface DecidedRelease extends PromptRelease {
  readonly changeRequests?: {
    readonly labels: readonly { readonly label: string; readonly to: string | null }[];
    readonly required: number;
    readonly note: string;
  };
}

/** Who pushes: their actor (a request's requester) and name (`cli:<operator>`). */
export interface Releaser {
  readonly actor: Actor;
  readonly by: string;
}

/** What a release did: its steps (audit entries), and the request opened for each label under approval. */
export interface ReleaseResult {
  readonly steps: number;
  readonly changeRequests: readonly { readonly label: string; readonly requestId: string }[];
}

/**
 * The release, its labels under approval asked for rather than moved: the gate's decision, held by the
 * transaction. The entry of its first step, and a refusal's, name the step as decided (a push that only asks
 * for a move is `request.open`).
 */
export async function planPromptRelease(table: Table, accountId: string, release: PromptRelease, releaser: Releaser): Promise<PlannedChange<ReleaseResult>> {
  const gate = await readApprovalGate(table, accountId, releaser);
  const asked = release.labels.filter(({ label }) => gate.asks(label));
  const decided: DecidedRelease = {
    ...release,
    labels: release.labels.filter(({ label }) => !gate.asks(label)),
    ...(asked.length > 0
      ? { changeRequests: { labels: asked, required: gate.required, note: release.changeRequestNote ?? release.publish?.note ?? 'push' } }
      : {}),
  };
  const [first] = releaseSteps(decided, { was: new Map(), promptName: '', description: null, tags: [] });
  const plan = () => planDecidedRelease(table, accountId, decided, releaser);
  const planned = first ? await plannedAs({ action: first.action, target: first.target, requested: first.requested }, plan) : await plan();
  return { ...planned, accountHolds: gate.holds };
}

async function planDecidedRelease(table: Table, accountId: string, release: DecidedRelease, releaser: Releaser): Promise<PlannedChange<ReleaseResult>> {
  const { promptId } = release;
  const { by } = releaser;
  const asked = release.changeRequests?.labels ?? [];
  for (const { label } of [...release.labels, ...asked]) if (!isSettableLabel(label)) throw new InvalidLabelError(label, LABEL_RULE);
  const head = release.create ? undefined : await table.get<PromptHeadItem>('releasePrompt', keys.promptHead(accountId, promptId));
  if (!release.create && !head) throw new PromptMissingError(accountId, promptId);
  const adds = release.labels.filter((move): move is { label: string; to: string } => move.to !== null);
  const askedAdds = asked.filter((move): move is { label: string; to: string } => move.to !== null);
  if (head?.deleted === true && (release.publish || adds.length > 0 || askedAdds.length > 0)) throw new PromptDeletedError(accountId, promptId);
  // A label takes one open request at a time: a push finds the other's and names it (the pointer's condition holds it in a race).
  await Promise.all(asked.map(({ label }) => requireNoOpenChangeRequest(table, accountId, promptId, label)));
  // A label that rolls out moves only through its rollout (the label item's condition holds it in a race).
  if (head) {
    const items = await Promise.all(
      [...release.labels, ...asked].map(({ label }) => table.get<PromptLabelItem>('releasePrompt', keys.promptLabel(accountId, label, promptId))),
    );
    const rolling = items.find((item) => item?.rollout !== undefined);
    if (rolling?.rollout) throw new RolloutActiveError(promptId, rolling.label, rolling.rollout.rolloutId);
  }

  const at = table.timestamp();
  const publication = release.publish
    ? publishNewVersion(accountId, promptId, head, { version: release.publish.version, ...release.publish.content }, { note: release.publish.note, at, by })
    : undefined;
  const published = publication?.content;
  // Versions the labels point at (or would, once approved), other than the one published here: published, and read for their copies.
  const others = [...new Set([...adds, ...askedAdds].map(({ to }) => to).filter((version) => version !== published?.version))];
  const stored = await Promise.all(others.map((version) => table.get<PromptVersionItem>('releasePrompt', keys.promptVersion(accountId, promptId, version))));
  const contentAt = new Map<string, StoredContent>();
  for (const [index, version] of others.entries()) {
    const item = stored[index];
    if (item?.published !== true) throw new VersionNotPublishedError(accountId, promptId, version, item !== undefined);
    contentAt.set(version, toStoredContent(fromStoredContent(item)));
  }
  if (published) contentAt.set(published.version, toStoredContent(published));

  const promptName = release.details?.promptName ?? release.create?.promptName ?? head?.promptName ?? promptId;
  const description = release.details?.description === undefined ? head?.description : release.details.description || undefined;
  const tags = release.details?.tags === undefined ? head?.tags : release.details.tags.length > 0 ? [...new Set(release.details.tags)] : undefined;
  // The labels moved as every path moves them, their items copying the prompt as this change leaves it.
  const moves = planLabelMoves(
    table,
    accountId,
    head,
    { promptId, promptName, deleted: head?.deleted === true },
    release.labels.map(({ label, to }) => ({ label, to, ...(to === null ? {} : { content: contentAt.get(to) }), cause: { by, reason: PUSH_REASON } })),
  );
  const { was } = moves;
  const labelsChange = release.labels.length > 0;
  const onHead = head && labelsChange ? labelMovesOnHead(head, moves) : undefined;

  const writes: TransactionWrite[] = [];
  // A prompt whose push only asks for moves leaves its head as it is (who changed it last, its labels).
  const headChanges = !head || publication !== undefined || labelsChange || release.details !== undefined;
  if (!head) {
    // The head's labels as a Map (a label named `constructor` is a name like any other): written as it is stored.
    const item = {
      ...keys.promptHead(accountId, promptId),
      type: 'prompt',
      promptId,
      promptName,
      deleted: false,
      updatedAt: at,
      updatedBy: by,
      ...(description ? { description } : {}),
      ...(tags ? { tags } : {}),
      ...publication?.headSet,
      ...(labelsChange ? { labels: new Map(moves.labels), labelsRevision: moves.revision } : {}),
    };
    writes.push({ Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });
  } else if (headChanges) {
    const emptied = [
      ...(release.details?.description !== undefined && !description ? ['description'] : []),
      ...(release.details?.tags !== undefined && !tags ? ['tags'] : []),
    ];
    writes.push({
      Update: {
        Key: keys.promptHead(accountId, promptId),
        ...buildUpdate({
          set: {
            updatedAt: at,
            updatedBy: by,
            ...(release.details?.promptName === undefined ? {} : { promptName }),
            ...(release.details?.description && description ? { description } : {}),
            ...(release.details?.tags && tags ? { tags } : {}),
            ...publication?.headSet,
            ...onHead?.set,
          },
          ...(emptied.length > 0 ? { remove: emptied } : {}),
          // What the publish and the moves each hold of the head, once each.
          condition: (e) =>
            [
              ...new Set([
                `attribute_exists(${e.name('pk')})`,
                labelsUnchanged(e, head),
                ...(publication?.headConditions(e) ?? []),
                ...(onHead?.conditions(e) ?? []),
              ]),
            ].join(' AND '),
        }),
      },
    });
  }
  const versionAt = writes.length;
  if (publication) writes.push(publication.versionWrite);
  writes.push(...moves.writes);
  // A label asked for keeps its item as it is (a rename below brings its copies in step, as any other's).
  const opened = new Map<string, { requestId: string; from: string | null }>();
  for (const { label, to } of asked) {
    const from = labelledVersion(head?.labels, label) ?? null;
    const changeRequest = openChangeRequestWrites(
      table,
      accountId,
      { promptId, label, from, to, note: release.changeRequests?.note },
      releaser,
      release.changeRequests?.required ?? 1,
    );
    opened.set(label, { requestId: changeRequest.item.requestId, from });
    writes.push(...changeRequest.writes);
  }
  if (head && release.details?.promptName !== undefined && release.details.promptName !== head.promptName) {
    const untouched = { ...head, labels: Object.fromEntries(Object.entries(head.labels ?? {}).filter(([label]) => !was.has(label))) };
    writes.push(...(await labelCopyWrites(table, accountId, untouched, { promptName, deleted: head.deleted === true })));
  }

  const steps = releaseSteps(release, {
    was,
    promptName,
    description: description ?? null,
    tags: tags ?? [],
    opened,
    ...(head ? { before: { promptName: head.promptName, description: head.description ?? null, tags: head.tags ?? [] } } : {}),
  });
  return {
    writes,
    result: { steps: steps.length, changeRequests: asked.map(({ label }) => ({ label, requestId: opened.get(label)?.requestId as string })) },
    alsoRecords: steps.slice(1),
    ...(steps[0]?.after ? { after: steps[0].after } : {}),
    visible: publication !== undefined || labelsChange || release.details?.promptName !== undefined,
    refused: async (error) => {
      if (publication && release.publish && error.failedAt(versionAt)) {
        return new ConflictError(`version ${release.publish.version} of prompt ${promptId} exists already: pull, then push again`);
      }
      if (release.create && error.failedAt(0)) return new ConflictError(`prompt ${promptId} exists already (deleted or not): pull, then push again`);
      // Anything else changed meanwhile (the head's labels, another request of a label, which the next plan names): read again.
      return 'again';
    },
  };
}

/** What one release records, step by step, as the audit log names them; the first is the change's own entry. */
export function releaseSteps(
  release: DecidedRelease,
  outcome: {
    was: ReadonlyMap<string, string | null>;
    promptName: string;
    description: string | null;
    tags: readonly string[];
    /** The prompt's details as they were, when it had a head. */
    before?: { promptName: string; description: string | null; tags: readonly string[] };
    /** The request opened for each label asked for, and where the label pointed. */
    opened?: ReadonlyMap<string, { readonly requestId: string; readonly from: string | null }>;
  },
): (RecordedStep & { readonly after?: Record<string, unknown> })[] {
  const { promptId } = release;
  return [
    ...(release.create
      ? [
          {
            action: 'prompt.create',
            target: { promptId },
            requested: { promptId, promptName: release.create.promptName },
            after: { promptName: outcome.promptName },
          },
        ]
      : []),
    ...(release.publish
      ? [
          {
            action: 'version.publish',
            target: { promptId, version: release.publish.version },
            requested: { note: release.publish.note },
            after: { published: true, note: release.publish.note },
          },
        ]
      : []),
    ...release.labels.map(({ label, to }) =>
      to === null
        ? { action: 'label.remove', target: { promptId, label }, after: { was: outcome.was.get(label) ?? null, reason: PUSH_REASON } }
        : {
            action: 'label.set',
            target: { promptId, label },
            requested: { version: to },
            after: { version: to, was: outcome.was.get(label) ?? null, reason: PUSH_REASON },
          },
    ),
    ...(release.changeRequests?.labels ?? []).map(({ label, to }) => ({
      action: 'request.open',
      target: { promptId, label },
      requested: { version: to, note: release.changeRequests?.note },
      after: {
        requestId: outcome.opened?.get(label)?.requestId ?? null,
        from: outcome.opened?.get(label)?.from ?? null,
        to,
        state: 'open',
        required: release.changeRequests?.required ?? 1,
      },
    })),
    ...(release.details
      ? [
          {
            action: 'prompt.update',
            target: { promptId },
            requested: release.details,
            ...(outcome.before ? { before: outcome.before } : {}),
            after: { promptName: outcome.promptName, description: outcome.description, tags: [...outcome.tags] },
          },
        ]
      : []),
  ];
}
