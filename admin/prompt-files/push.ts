import type { AccountOperations } from '../../lambda/operations/account-operations';
import { publishNewVersion } from '../publish-version';
import type { PromptFile } from './prompt-file';
import type { PromptPlan } from './folder-plan';

/**
 * A push, prompt by prompt, through the operations the management API makes (each audited as the operator's):
 * create the prompt, write the file's version as a draft and publish it, then move its labels and set its
 * details. Until the publish nothing of the prompt is served differently, so a failure there takes the draft
 * back and leaves the prompt as it was. The publish is the step that cannot be taken back (a published version
 * never changes): a failure after it is reported with what is left to do, which the next push does.
 */

export type PushOutcome =
  | { readonly promptId: string; readonly outcome: 'changed' }
  | { readonly promptId: string; readonly outcome: 'unchanged'; readonly reason: string }
  | { readonly promptId: string; readonly outcome: 'unfinished'; readonly reason: string; readonly left: string };

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function pushPrompt(
  ops: AccountOperations,
  accountId: string,
  plan: PromptPlan,
  file: PromptFile,
  note: string,
): Promise<PushOutcome> {
  const { promptId } = plan;
  try {
    if (plan.create) await ops.createPrompt(accountId, { promptId, promptName: file.promptName });
    if (plan.publish) {
      // Not served until the publish: a failure up to it takes the draft back, and the prompt is as it was.
      const content = { systemMessage: file.systemMessage, userMessage: file.userMessage, config: file.config };
      await publishNewVersion(ops, accountId, promptId, plan.publish.version, content, note);
    }
  } catch (error) {
    return { promptId, outcome: 'unchanged', reason: reasonOf(error) };
  }
  const steps: { readonly what: string; readonly run: () => Promise<unknown> }[] = [
    ...plan.labels.map(({ label, to }) => ({
      what: to === null ? `remove label ${label}` : `point label ${label} at ${to}`,
      run: () => (to === null ? ops.removeLabel(accountId, promptId, label) : ops.setLabel(accountId, promptId, label, to)),
    })),
    ...(plan.details ? [{ what: 'set name, description and tags', run: () => ops.updatePromptDetails(accountId, promptId, plan.details ?? {}) }] : []),
  ];
  for (const [index, step] of steps.entries()) {
    try {
      await step.run();
    } catch (error) {
      if (index === 0 && !plan.create && !plan.publish) return { promptId, outcome: 'unchanged', reason: reasonOf(error) };
      const left = steps.slice(index).map((each) => each.what).join(', ');
      return { promptId, outcome: 'unfinished', reason: reasonOf(error), left };
    }
  }
  return { promptId, outcome: 'changed' };
}
