import { ApiProblem } from '../../logic/api-errors';

const API_DRAFT_FIELDS = ['systemMessage', 'userMessage', 'config'];

/** A 400 about a field of the draft's content: said in the form, by the field's name, rather than as a failure. */
export const isApiFieldProblem = (problem: unknown): problem is ApiProblem =>
  problem instanceof ApiProblem && problem.status === 400 && API_DRAFT_FIELDS.some((name) => problem.field?.startsWith(name) === true);

export function ApiFieldProblem({ problem }: { problem: unknown }) {
  if (!isApiFieldProblem(problem)) return null;
  return (
    <p class="error" role="alert">
      The service did not accept the draft: {problem.message}.
    </p>
  );
}
