import * as accountContracts from '../../lambda/management-api/handlers/account-contracts';
import * as keyContracts from '../../lambda/management-api/handlers/key-contracts';
import { defineRoute } from '../../lambda/management-api/route';
import { contractMismatches } from '../support/management-contracts';

/**
 * defineRoute types a handler's answers by its route's contract. Each handler below answers what the contract does
 * not allow, and `npm run typecheck` fails the day one of them compiles (an unused @ts-expect-error is an error);
 * the same answers are refused at run time by the check every management test makes (test/support/management-contracts.ts).
 */

const revoked = {
  keyId: 'key_0123456789abcdef',
  name: null,
  displayPrefix: null,
  state: 'revoked',
  monthlyLimit: null,
  scope: null,
  expiresAt: null,
  createdAt: null,
  createdBy: null,
} as const;

test('a status the contract does not give is a type error', async () => {
  const route = defineRoute(keyContracts.revokeKey, {
    access: 'manage keys',
    // @ts-expect-error revoking a key answers 200, never 201
    async handle() {
      return { status: 201, body: revoked };
    },
  });
  expect(contractMismatches(route, 201, revoked)).toEqual([
    'POST /api/accounts/{accountId}/keys/{keyId}/revoke answered 201, which its contract does not give',
  ]);
});

test('a field of the wrong type, or missing, is a type error', async () => {
  const mistyped = { ...revoked, state: 'gone' };
  const missing = { keyId: revoked.keyId };
  const wrongType = defineRoute(keyContracts.revokeKey, {
    access: 'manage keys',
    // @ts-expect-error `state` is one of the key states
    async handle() {
      return { status: 200, body: mistyped };
    },
  });
  const incomplete = defineRoute(keyContracts.revokeKey, {
    access: 'manage keys',
    // @ts-expect-error a key answers every field its contract requires
    async handle() {
      return { status: 200, body: missing };
    },
  });
  expect(contractMismatches(wrongType, 200, mistyped)).toEqual(['200 body.state: Invalid option: expected one of "active"|"disabled"|"expired"|"revoked"']);
  expect(contractMismatches(incomplete, 200, missing)).toContain('200 body.state: Invalid option: expected one of "active"|"disabled"|"expired"|"revoked"');
});

test('a refusal the contract does not list is a type error; one it lists is not', async () => {
  const refusal = { error: 'no', code: 'CONFLICT' } as const;
  const refused = defineRoute(accountContracts.updateAccount, {
    access: 'change account settings',
    // @ts-expect-error changing the account answers no 409
    async handle() {
      return { status: 409, body: refusal };
    },
  });
  const allowed = defineRoute(keyContracts.updateKey, {
    access: 'manage keys',
    async handle() {
      return { status: 409, body: refusal };
    },
  });
  expect([contractMismatches(refused, 409, refusal).length > 0, contractMismatches(allowed, 409, refusal)]).toEqual([true, []]);
});
