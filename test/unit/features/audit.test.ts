import { readAuditLog } from '../../../lambda/features/audit/audit-log';
import { InvalidCursorError } from '../../../lambda/features/errors';
import { featureTable, person } from '../../support/feature-table';

/**
 * The audit log as people read it (docs/management-api.md, "The management API": Audit log; lambda/features/audit/):
 * newest first, a page at a time, narrowed by a filter; a cursor is one an earlier page gave.
 */
const features = featureTable();
const owner = person('olga');

test('the log is read newest first, narrowed by its filter, and its last page says there is no next one (null)', async () => {
  const accountId = await features.account();
  const settings = features.operations(owner).accounts;
  await settings.updateSettings(accountId, { protectedLabels: ['production'] });
  await settings.updateSettings(accountId, { protectedLabels: ['production', 'staging'] });
  const page = await readAuditLog(features.table, accountId, { filter: { actor: 'olga@example.com' } });
  expect(page.next).toBeNull();
  expect(page.entries.map((entry) => entry.after)).toEqual([
    expect.objectContaining({ protectedLabels: ['production', 'staging'] }),
    expect.objectContaining({ protectedLabels: ['production'] }),
  ]);
  expect(await readAuditLog(features.table, accountId, { filter: { actor: 'someone@example.com' } })).toEqual({ entries: [], next: null });
});

test('a cursor that is not the key of an entry (AUDIT# alone, or no base64url at all) is refused naming before', async () => {
  const accountId = await features.account();
  for (const before of ['QVVESVQj', 'not a cursor']) {
    const refusal = await readAuditLog(features.table, accountId, { before, filter: {} }).catch((error: unknown) => error);
    expect(refusal).toEqual(expect.any(InvalidCursorError));
    expect(refusal).toEqual(expect.objectContaining({ field: 'before', message: 'before: must be a cursor from a previous page of the audit log' }));
  }
});
