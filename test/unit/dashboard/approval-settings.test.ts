import { approvalLabelsFromText, approvalSettingsProblem, approvalsNeeded } from '../../../dashboard/src/features/settings/approval-settings';

describe('approval settings', () => {
  test('labels are read from commas or spaces, each once', () => {
    expect(approvalLabelsFromText(' production, staging  production ')).toEqual(['production', 'staging']);
    expect(approvalLabelsFromText('')).toEqual([]);
  });

  test('a label the API would refuse, and a number outside 1 to 5, are said before sending', () => {
    expect(approvalSettingsProblem(['production'], 2)).toBeUndefined();
    expect(approvalSettingsProblem([], 1)).toBeUndefined();
    expect(approvalSettingsProblem(['Prod'], 1)?.field).toBe('labels');
    expect(approvalSettingsProblem(['production'], 0)).toEqual({ field: 'required', message: 'Between 1 and 5 approvals.' });
    expect(approvalSettingsProblem(['production'], 6)?.field).toBe('required');
  });

  test('a label needs the account’s number of approvals only when listed', () => {
    expect(approvalsNeeded({ labels: ['production'], required: 2 }, 'production')).toBe(2);
    expect(approvalsNeeded({ labels: ['production'], required: 2 }, 'staging')).toBeUndefined();
    expect(approvalsNeeded(undefined, 'production')).toBeUndefined();
  });
});
