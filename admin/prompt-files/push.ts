import type { Operations } from '../../lambda/operations';
import type { PromptFile } from './prompt-file';
import type { PromptPlan } from './folder-plan';

/**
 * A push, prompt by prompt, through the operations the management API makes (each step audited as the
 * operator's): each prompt's creation, published version, labels and details are one transaction
 * (Operations.releasePrompt), so a prompt is as its file says, or as it was. A label the account puts
 * under approval is not moved: the same transaction opens a change request for it (`awaiting`).
 */

export type PushOutcome =
  | {
      readonly promptId: string;
      readonly outcome: 'changed';
      /** The version published, or null when the content was already served. */
      readonly published: string | null;
      /** Labels moved (`to` null: removed); those under approval are in `awaiting` instead. */
      readonly labels: readonly { readonly label: string; readonly from: string | null; readonly to: string | null }[];
      readonly awaiting: readonly { readonly label: string; readonly requestId: string }[];
      readonly details: boolean;
    }
  | { readonly promptId: string; readonly outcome: 'unchanged'; readonly reason: string };

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function pushPrompt(ops: Operations, accountId: string, plan: PromptPlan, file: PromptFile, note: string): Promise<PushOutcome> {
  const { promptId } = plan;
  const release = {
    promptId,
    ...(plan.create ? { create: { promptName: file.promptName } } : {}),
    ...(plan.publish
      ? { publish: { version: plan.publish.version, content: { systemMessage: file.systemMessage, userMessage: file.userMessage, config: file.config }, note } }
      : {}),
    labels: plan.labels.map(({ label, to }) => ({ label, to })),
    ...(plan.details ? { details: plan.details } : {}),
  };
  let awaiting: readonly { label: string; requestId: string }[];
  try {
    awaiting = (await ops.prompts.release(accountId, release, { note })).changeRequests;
  } catch (error) {
    return { promptId, outcome: 'unchanged', reason: reasonOf(error) };
  }
  const awaited = new Set(awaiting.map(({ label }) => label));
  return {
    promptId,
    outcome: 'changed',
    published: plan.publish?.version ?? null,
    labels: plan.labels.filter(({ label }) => !awaited.has(label)),
    awaiting,
    details: plan.details !== undefined,
  };
}
