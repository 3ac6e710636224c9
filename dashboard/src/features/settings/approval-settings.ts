/** The account's approvals: which labels move only through a change request, and how many approvals each needs. */

/** The approval settings as the owners' form holds them, checked before sending. */
export function approvalLabelsFromText(text: string): string[] {
  return Array.from(
    new Set(
      text
        .split(/[\s,]+/)
        .map((label) => label.trim())
        .filter(Boolean),
    ),
  );
}

export const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export function approvalSettingsProblem(labels: readonly string[], required: number): { field: 'labels' | 'required'; message: string } | undefined {
  const wrong = labels.filter((label) => !LABEL_PATTERN.test(label));
  if (wrong.length > 0) {
    return { field: 'labels', message: `${wrong.join(', ')}: a label is 1 to 32 characters, a to z, 0 to 9, - and _, starting with a letter.` };
  }
  if (!Number.isInteger(required) || required < 1 || required > 5) return { field: 'required', message: 'Between 1 and 5 approvals.' };
  return undefined;
}

/** How many approvals a move of `label` needs in the account; undefined when it moves at once. */
export function approvalsNeeded(
  approvals: { readonly labels: readonly string[]; readonly required: number } | null | undefined,
  label: string,
): number | undefined {
  if (!approvals?.labels.includes(label)) return undefined;
  return approvals.required;
}
