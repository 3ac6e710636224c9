import { commitUnaudited } from '../../operations/commit';
import type { OperationContext } from '../../operations/context';
import type { MoveCause } from '../../table/label-history';
import type { Table } from '../../table/table';
import { type LabelMoveOutcome, type Mover, planLabelMoveOrChangeRequest } from '../change-requests/approval-gate';
import { IMPORT_CAUSE, type LabelChange, planRemoveLabel, planSetLabel } from './labels';

/**
 * A prompt's labels (`ops.labels`): pointed at a published version, or taken off. Where the account puts a label
 * under approval the move is asked for instead, decided inside the change by the approval gate, for every door.
 */
export class LabelOperations {
  constructor(private readonly context: OperationContext) {}

  /** Who moves a label, as the approval gate (features/change-requests/approval-gate.ts) knows them. */
  private mover(breakGlass?: boolean): Mover {
    return { actor: this.context.actor, by: this.context.by, ...(breakGlass ? { breakGlass } : {}) };
  }

  /**
   * Points the label at a published version, its history entry saying how (the note, `restore` for a move back to
   * a past version). Where the account puts the label under approval, it is asked for instead (`request`), unless
   * it points there already (nothing moved) or the operator breaks the glass (`breakGlass`, the CLI's alone: the
   * move is made, and its history and audit entry say `break-glass`). Decided inside the change, for every door.
   */
  set(
    accountId: string,
    promptId: string,
    label: string,
    version: string,
    options: { note?: string; restore?: boolean; breakGlass?: boolean } = {},
  ): Promise<LabelMoveOutcome> {
    const { note, restore, breakGlass } = options;
    const requested = { version, ...(note === undefined ? {} : { note }), ...(restore ? { restore: true } : {}), ...(breakGlass ? { breakGlass: true } : {}) };
    return this.context.audited({ accountId, action: 'label.set', target: { promptId, label }, requested }, () =>
      planLabelMoveOrChangeRequest(this.context.table, accountId, { promptId, label, to: version, note, restore }, this.mover(breakGlass)),
    );
  }

  /** Takes the label off (404 when the prompt does not carry it); under approval, as `set` says. */
  remove(accountId: string, promptId: string, label: string, options: { breakGlass?: boolean } = {}): Promise<LabelMoveOutcome> {
    const requested = options.breakGlass ? { breakGlass: true } : undefined;
    return this.context.audited({ accountId, action: 'label.remove', target: { promptId, label }, ...(requested ? { requested } : {}) }, () =>
      planLabelMoveOrChangeRequest(this.context.table, accountId, { promptId, label, to: null }, this.mover(options.breakGlass)),
    );
  }
}

/**
 * A label set by a bulk path (no audit entry of its own, a history entry as every move has); an import raises
 * the revision once, at its end.
 */
export function setLabel(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  version: string,
  options: { raiseRevision?: boolean; cause?: MoveCause } = {},
): Promise<LabelChange> {
  return commitUnaudited(table, 'setLabel', () => planSetLabel(table, accountId, promptId, label, version, options.cause ?? IMPORT_CAUSE), {
    ...(options.raiseRevision === false ? {} : { raiseRevisionOf: accountId }),
  });
}

/** A label removed by a bulk path (no audit entry of its own), the revision raised. */
export function removeLabel(table: Table, accountId: string, promptId: string, label: string, options: { cause?: MoveCause } = {}): Promise<LabelChange> {
  return commitUnaudited(table, 'removeLabel', () => planRemoveLabel(table, accountId, promptId, label, options.cause ?? IMPORT_CAUSE), {
    raiseRevisionOf: accountId,
  });
}
