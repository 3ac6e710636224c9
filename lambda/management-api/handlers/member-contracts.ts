import * as z from 'zod/mini';
import { contract, described, named } from '../contract';
import { Role } from '../fields';

/** Who is in an account, and with which role. */

export const MemberAddBody = named(
  'MemberAdd',
  z.strictObject({
    email: z.email({ error: 'must be an email address' }).check(z.maxLength(254, { error: 'must be at most 254 characters' })),
    role: Role,
  }),
);

export const MemberPatchBody = named('MemberPatch', z.strictObject({ role: Role }));

export const MemberAnswer = named('Member', z.strictObject({ userId: z.string(), email: z.string(), role: Role, addedAt: z.string(), addedBy: z.string() }));

const MemberList = named('MemberList', z.strictObject({ members: z.array(MemberAnswer) }));

const MemberAdded = named(
  'MemberAdded',
  z.strictObject({
    member: MemberAnswer,
    temporaryPassword: z.optional(described('Only where the pool sends no invitation (locally); shown once', z.string())),
  }),
);

const MEMBERS = '/api/accounts/{accountId}/members';
const MEMBER = `${MEMBERS}/{userId}`;

export const listMembers = contract({ method: 'GET', path: MEMBERS, summary: 'Who is in the account', answers: { 200: MemberList } });

export const addMember = contract({
  method: 'POST',
  path: MEMBERS,
  summary: 'Add a person by email',
  description: 'Only owners add owners.',
  body: MemberAddBody,
  answers: { 201: MemberAdded },
  refusals: [409],
});

export const setMemberRole = contract({
  method: 'PATCH',
  path: MEMBER,
  summary: "Change a member's role",
  description: "Only owners change an owner's role or make someone an owner; the last owner stays one (409).",
  body: MemberPatchBody,
  answers: { 200: MemberAnswer },
  refusals: [409],
});

export const removeMember = contract({
  method: 'DELETE',
  path: MEMBER,
  summary: 'Remove a member, or leave the account',
  description: 'Removing someone else needs an admin (an owner, for an owner); any member may remove themselves (leave), but the last owner (409).',
  answers: { 204: null },
  refusals: [409],
});
