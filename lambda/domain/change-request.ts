/**
 * A change request's ids and states (docs/management-api.md "Change requests"): the rules its storage, the
 * management API's contracts and the dashboard share. Imports nothing.
 */

export const CHANGE_REQUEST_STATES = ['open', 'applied', 'rejected', 'withdrawn', 'stale'] as const;

export type ChangeRequestState = (typeof CHANGE_REQUEST_STATES)[number];

/** `req_`, the instant it was asked (UTC, digits only: sorts by time), `_` and 8 hex digits. */
export const CHANGE_REQUEST_ID_PATTERN = /^req_\d{17}_[0-9a-f]{8}$/;
