import { isRole, ROLES, type Role } from '../../lambda/domain/roles';
import { listMembers, requireMember } from '../../lambda/features/members/members';
import { type Command, requiredOption, table, UsageError } from '../command';
import { accountOption } from '../option-values';

/** People in accounts: the same operations as the management API's members endpoints, recorded in the audit log as `cli`. */

function roleOption(args: Parameters<Command['run']>[1]): Role {
  const role = requiredOption(args, 'role');
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

function emailOption(args: Parameters<Command['run']>[1]): string {
  const email = requiredOption(args, 'email').trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new UsageError('--email must be an email address');
  return email;
}

function userOption(args: Parameters<Command['run']>[1]): string {
  const userId = requiredOption(args, 'user');
  if (!/^[A-Za-z0-9_.:@+-]{1,128}$/.test(userId)) throw new UsageError('--user must be a user id (as members list shows it)');
  return userId;
}

const add: Command = {
  words: ['members', 'add'],
  summary: 'Add a person to an account with a role; creates the user in the pool if the email has none',
  synopsis: '--account <accountId> --email <email> --role <viewer|editor|admin|owner>',
  help: [
    '--account <accountId>  the account (required)',
    '--email <email>        the person; a new user is created in the user pool if there is none with this email',
    `--role <role>          one of ${ROLES.join(', ')}`,
    'Needs USER_POOL_ID (and COGNITO_ENDPOINT for the local stand-in). In AWS, Cognito emails the invitation;',
    'locally the temporary password is printed once.',
  ],
  examples: ['members add --account acme --email ada@example.com --role owner'],
  options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const email = emailOption(args);
    const role = roleOption(args);
    const { member, temporaryPassword } = await context.operations().members.add(accountId, { email, role });
    return {
      json: { ...member, ...(temporaryPassword ? { temporaryPassword } : {}) },
      text: [
        `Added ${member.email} (${member.userId}) to account ${accountId} as ${member.role}.`,
        ...(temporaryPassword ? ['Their temporary password, shown this once (they choose their own at first sign-in):', '', `  ${temporaryPassword}`, ''] : []),
      ].join('\n'),
    };
  },
};

const list: Command = {
  words: ['members', 'list'],
  summary: "List an account's members and their roles",
  synopsis: '--account <accountId>',
  help: ['--account <accountId>  the account (required)'],
  examples: ['members list --account acme'],
  options: { account: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const members = await listMembers(context.table(), accountId);
    return {
      json: members,
      text:
        members.length === 0
          ? `Account ${accountId} has no members`
          : table(
              ['USER', 'EMAIL', 'ROLE', 'ADDED', 'BY'],
              members.map((member) => [member.userId, member.email, member.role, member.addedAt, member.addedBy]),
            ),
    };
  },
};

const setRole: Command = {
  words: ['members', 'set-role'],
  summary: "Change a member's role; an account always keeps at least one owner",
  synopsis: '--account <accountId> --user <userId> --role <viewer|editor|admin|owner>',
  help: [
    '--account <accountId>  the account (required)',
    '--user <userId>        the member, as members list shows them',
    `--role <role>          one of ${ROLES.join(', ')}`,
  ],
  examples: ['members set-role --account acme --user 0f1e... --role admin'],
  options: { account: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const userId = userOption(args);
    const role = roleOption(args);
    const before = await requireMember(context.table(), accountId, userId);
    const member = await context.operations().members.setRole(accountId, userId, role, before);
    return { json: member, text: `${member.email} is now ${member.role} of account ${accountId} (was ${before.role}).` };
  },
};

const remove: Command = {
  words: ['members', 'remove'],
  summary: 'Remove a member from an account, from their next request on',
  synopsis: '--account <accountId> --user <userId>',
  help: ['--account <accountId>  the account (required)', '--user <userId>        the member, as members list shows them'],
  examples: ['members remove --account acme --user 0f1e...'],
  options: { account: { type: 'string' }, user: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const userId = userOption(args);
    const before = await requireMember(context.table(), accountId, userId);
    const member = await context.operations().members.remove(accountId, userId, before);
    return { json: member, text: `Removed ${member.email} from account ${accountId}.` };
  },
};

export const memberCommands: readonly Command[] = [add, list, setRole, remove];
