import * as z from 'zod/mini';
import { contract, described, named } from '../contract';
import { Label, Name, Role } from '../fields';

/** The signed-in person and their accounts, and an account's settings. */

export const MAX_REQUIRED_APPROVALS = 5;
const REQUIRED_ERROR = `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}`;

/** Labels that move only through approved change requests, and how many distinct approvals (1 to 5, 1 when left out); `labels: []` turns it off. */
export const Approvals = z.strictObject({
  labels: z.array(Label).check(z.maxLength(20, { error: 'must list at most 20 labels' })),
  required: z.optional(
    z
      .number({ error: REQUIRED_ERROR })
      .check(z.int({ error: REQUIRED_ERROR }), z.gte(1, { error: REQUIRED_ERROR }), z.lte(MAX_REQUIRED_APPROVALS, { error: REQUIRED_ERROR })),
  ),
});

const BUDGET_ERROR = 'must be a whole number of tokens from 1 to 1,000,000,000,000, or null for no budget';

const ModelBudget = z.strictObject({
  monthlyTokens: z.nullable(
    z.number({ error: BUDGET_ERROR }).check(z.int({ error: BUDGET_ERROR }), z.gte(1, { error: BUDGET_ERROR }), z.lte(1e12, { error: BUDGET_ERROR })),
  ),
});

export const AccountPatchBody = named(
  'AccountPatch',
  z
    .strictObject({
      name: z.optional(Name(200)),
      protectedLabels: z.optional(z.array(Label).check(z.maxLength(20, { error: 'must list at most 20 labels' }))),
      approvals: z.optional(Approvals),
      models: z.optional(
        described('The budget of model tokens per UTC month of runs (docs/runs.md "Budget"); `monthlyTokens: null` takes it away', ModelBudget),
      ),
    })
    .check(
      z.refine((body) => body.name !== undefined || body.protectedLabels !== undefined || body.approvals !== undefined || body.models !== undefined, {
        error: 'give name, protectedLabels, approvals or models',
      }),
    ),
);

const Me = named(
  'Me',
  z.strictObject({
    userId: z.string(),
    email: z.string(),
    accounts: z.array(z.strictObject({ accountId: z.string(), name: z.string(), plan: z.string(), role: Role })),
  }),
);

export const AccountAnswer = named(
  'Account',
  z.strictObject({
    accountId: z.string(),
    name: z.string(),
    plan: z.string(),
    protectedLabels: z.array(z.string()),
    approvals: described(
      'Labels that move only through approved change requests, and the distinct approvals each needs; `labels: []` when off',
      z.strictObject({
        labels: z.array(z.string()),
        required: z.int().check(z.gte(1), z.lte(MAX_REQUIRED_APPROVALS)),
      }),
    ),
    models: described(
      'The budget of model tokens per UTC month of runs (owners set it); `monthlyTokens: null` when there is none',
      z.strictObject({ monthlyTokens: z.nullable(z.int().check(z.gte(1))) }),
    ),
    role: described("The caller's role in the account", Role),
  }),
);

export const readMe = contract({ method: 'GET', path: '/api/me', summary: 'The signed-in user and their accounts', answers: { 200: Me } });

export const readAccount = contract({ method: 'GET', path: '/api/accounts/{accountId}', summary: 'The account', answers: { 200: AccountAnswer } });

export const updateAccount = contract({
  method: 'PATCH',
  path: '/api/accounts/{accountId}',
  summary: 'Change the name, the protected labels, the approvals or the budget of model tokens',
  body: AccountPatchBody,
  answers: { 200: AccountAnswer },
});
