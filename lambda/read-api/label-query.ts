import { isValidLabel, LABEL_RULE, LATEST_LABEL } from '../domain/label';
import { badRequest } from '../http/api-error';
import type { HttpRequest } from '../http/http-event';

/**
 * The `label` parameter of either route: absent, or a valid name. `latest` names what no label does
 * (the highest published version), so it reads as no label at all.
 */
export function labelOf(request: HttpRequest): string | undefined {
  return labelFrom(request.query.label);
}

/** A label as a caller gave it (a query parameter, an MCP tool's argument): absent, or a valid name. */
export function labelFrom(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  if (!isValidLabel(label)) throw badRequest(`label must be ${LABEL_RULE}`);
  return label === LATEST_LABEL ? undefined : label;
}
