import * as z from 'zod/mini';
import { ErrorAnswer } from '../../lambda/management-api/contract';
import { type ManagementRoute, refusalStatuses } from '../../lambda/management-api/route';

/**
 * Holds each answer of the management functions to its route's contract (lambda/management-api/handlers/*-contracts.ts):
 * a success is one the contract gives, its body exactly what that status's schema reads (the answers are strict
 * objects: a field the contract does not name fails too), and a refusal is one the route may answer, with the one
 * error body. The harness checks every answer of every management test with it.
 */
export function contractMismatches(route: ManagementRoute, status: number, body: unknown): string[] {
  const answered = Object.entries(route.contract.answers).find(([documented]) => Number(documented) === status);
  const refused = refusalStatuses(route).includes(status);
  if (!answered && !refused) return [`${route.method} ${route.path} answered ${status}, which its contract does not give`];
  const schema = answered ? answered[1] : ErrorAnswer;
  if (!schema) return body === undefined ? [] : [`${status}: a body where the contract gives none`];
  const parsed = z.safeParse(schema, body);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${status} body${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`);
}

export function expectAnswerKeepsContract(route: ManagementRoute, status: number, body: unknown): void {
  const problems = contractMismatches(route, status, body);
  if (problems.length > 0) throw new Error(`${route.method} ${route.path}: the answer breaks the route's contract:\n${problems.join('\n')}`);
}
