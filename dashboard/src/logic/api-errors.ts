/**
 * An answer of the management API that was not a success, turned into words for the person. The
 * API's JSON error is `{"error", "code"}`, with `field` naming what was wrong and, on a stale draft,
 * `current` saying who saved in between. The page never shows the code or the status itself.
 */
export interface SavedBy {
  readonly etag?: string;
  readonly updatedAt?: string;
  readonly updatedBy?: string;
}

export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  constructor(
    /** 0 when no answer came at all. */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly current?: SavedBy,
    /** A 429 BUDGET_EXCEEDED: the month's model tokens counted or held, and the budget. */
    readonly budget?: { readonly used: number; readonly limit: number },
  ) {
    super(message);
  }
}

/** Builds the problem from an error answer's status and (maybe unparseable) body. */
export function problemFromAnswer(status: number, body: unknown): ApiProblem {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const current = typeof fields.current === 'object' && fields.current !== null ? (fields.current as SavedBy) : undefined;
  const budget = typeof fields.used === 'number' && typeof fields.limit === 'number' ? { used: fields.used, limit: fields.limit } : undefined;
  return new ApiProblem(status, text(fields.code) ?? codeForStatus(status), text(fields.error) ?? '', text(fields.field), current, budget);
}

function codeForStatus(status: number): string {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 412) return 'PRECONDITION_FAILED';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 428) return 'PRECONDITION_REQUIRED';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 500) return 'INTERNAL_ERROR';
  return 'BAD_REQUEST';
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capital = `${trimmed[0]?.toUpperCase()}${trimmed.slice(1)}`;
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/**
 * The problem in words. `doing` names what was attempted ("Saving the draft"), so the sentence says
 * what failed as well as why; the API's own message is kept where it explains (a field's rule).
 */
export function problemInWords(problem: unknown, doing?: string): string {
  const failed = doing ? `${doing} failed: ` : '';
  if (!(problem instanceof ApiProblem)) {
    return `${failed}something unexpected went wrong in the page. Reload it and try again.`;
  }
  const detail = sentence(problem.message);
  switch (problem.code) {
    case 'NETWORK':
      return `${failed}the service could not be reached. Check your connection and try again.`;
    case 'UNAUTHORIZED':
      return 'Your sign-in has expired. Sign in again to continue.';
    case 'FORBIDDEN':
      return `${failed}your role does not allow this.${detail ? ` ${detail}` : ''}`;
    case 'NOT_FOUND':
      return `${failed}it no longer exists, or you are no longer a member of this account.`;
    case 'CONFLICT':
      return `${failed}${detail || 'it conflicts with what is stored.'}`;
    case 'PRECONDITION_FAILED':
      return `${failed}someone else changed it since you opened it${savedBy(problem.current)}.`;
    case 'PRECONDITION_REQUIRED':
      return `${failed}reload the page and try again.`;
    case 'PAYLOAD_TOO_LARGE':
      return `${failed}${detail || 'it is too large.'} Shorten the messages or the input data.`;
    case 'BUDGET_EXCEEDED':
      return problem.budget
        ? `${failed}the account's monthly budget of model tokens is spent: ${problem.budget.used.toLocaleString('en-US')} of ${problem.budget.limit.toLocaleString('en-US')} tokens used or held by runs under way. An owner can raise it in Settings.`
        : `${failed}the account's monthly budget of model tokens is spent. An owner can raise it in Settings.`;
    case 'MODEL_THROTTLED':
      return `${failed}the model is busy and refused the run after several tries. Try again in a moment.`;
    case 'MODEL_TIMEOUT':
      return `${failed}the model took too long to answer.`;
    case 'MODEL_ERROR':
      return `${failed}the model answered with an error${detail ? `: ${detail}` : '.'}`;
    case 'SERVICE_UNAVAILABLE':
    case 'INTERNAL_ERROR':
      return `${failed}the service could not answer just now. Nothing was lost: try again in a moment.`;
    default:
      return `${failed}${detail || 'the request was not accepted.'}`;
  }
}

export function savedBy(current: SavedBy | undefined): string {
  if (!current?.updatedBy) return '';
  return ` (${current.updatedBy}${current.updatedAt ? `, at ${new Date(current.updatedAt).toLocaleString()}` : ''})`;
}

/** The form field a 400 is about: `config.temperature: must be...` names `config.temperature`. */
export function fieldOf(problem: unknown): string | undefined {
  return problem instanceof ApiProblem && problem.status === 400 ? problem.field : undefined;
}

/** A field's problem without the field's name in front, to show next to the field itself. */
export function fieldMessage(problem: ApiProblem): string {
  const prefix = problem.field ? `${problem.field}: ` : '';
  return sentence(problem.message.startsWith(prefix) ? problem.message.slice(prefix.length) : problem.message);
}
