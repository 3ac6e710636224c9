import { useRef, useState } from 'preact/hooks';
import type { Api } from '../../api/client';
import type { ChangeRequest } from '../../api/types';
import { ApiProblem } from '../../logic/api-errors';
import { useWorkspace } from '../../workspace';
import { approvalsNeeded } from '../settings/approval-settings';
import { answerText, asksFirst, type LabelChange, type LabelChangeAnswer, protectedLabelsOf } from './label-change';

/**
 * Changing one label, the one way every door of the prompt page does it: a change of a protected label, or of one
 * the account's approvals cover, is confirmed first (the dialog shows the diff and takes a note); a 202 is a
 * change request opened instead, said and kept to link to; a change made at once reads the page again; a refusal
 * is kept to be said in words next to what was tried.
 */
export interface LabelMove {
  readonly promptId: string;
  readonly label: string;
  readonly isProtected: boolean;
  /** The approvals a change of the label needs: it then opens a change request instead of moving. */
  readonly approvals: number | undefined;
  /** The change being confirmed, while its dialog is open. */
  readonly asking: LabelChange | undefined;
  /** The change on its way to the API. */
  readonly sending: LabelChange | undefined;
  /** Why the last change was refused, until the next try or a cancel; `failed` is that change. */
  readonly problem: unknown;
  readonly failed: LabelChange | undefined;
  /** Why the label changes, in the person's words: kept in its history, and on the change request if one opens. */
  readonly note: string;
  setNote(note: string): void;
  /** The change request the last change opened instead (202), until a change is made at once. */
  readonly opened: ChangeRequest | undefined;
  /** Sends the change, or first asks where the label needs it. */
  propose(change: LabelChange): void;
  /** Opens the confirmation of the change, with an empty note. */
  ask(change: LabelChange): void;
  /** Sends the change asked about, or `change` as the dialog has it now, with the note. */
  confirm(change?: LabelChange): void;
  /** Closes the confirmation; nothing is sent. */
  cancel(): void;
}

export interface LabelMoveOptions {
  /** The change was made at once: what the page shows of the label is to be read again. */
  onChanged(): void;
  /** The API took the change, made or asked for (e.g. to empty the form it came from). */
  onSent?(change: LabelChange): void;
  /** A 409: someone changed the label meanwhile, so the page reads it again behind the dialog. */
  onConflict?(): void;
}

export function useLabelMove(promptId: string, label: string, options: LabelMoveOptions): LabelMove {
  const { api, account, settings, announce, refreshAccount } = useWorkspace();
  const isProtected = protectedLabelsOf(settings).includes(label);
  const approvals = approvalsNeeded(settings?.approvals, label);
  const [asking, setAsking] = useState<LabelChange | undefined>(undefined);
  const [sending, setSending] = useState<LabelChange | undefined>(undefined);
  const [failure, setFailure] = useState<{ readonly change: LabelChange; readonly problem: unknown } | undefined>(undefined);
  const [note, setNote] = useState('');
  const [opened, setOpened] = useState<ChangeRequest | undefined>(undefined);
  const latest = useRef(options);
  latest.current = options;

  const send = async (change: LabelChange, said: string): Promise<void> => {
    setSending(change);
    setFailure(undefined);
    try {
      const answer = await sent(api, account.accountId, promptId, label, change, said);
      setAsking(undefined);
      latest.current.onSent?.(change);
      announce(answerText(label, change, answer));
      if (answer.kind === 'requested') {
        setOpened(answer.request);
        // The navigation counts the open change requests.
        refreshAccount();
        return;
      }
      setOpened(undefined);
      latest.current.onChanged();
    } catch (refused) {
      if (refused instanceof ApiProblem && refused.status === 409) latest.current.onConflict?.();
      setFailure({ change, problem: refused });
    } finally {
      setSending(undefined);
    }
  };
  const ask = (change: LabelChange) => {
    setFailure(undefined);
    setNote('');
    setAsking(change);
  };
  return {
    promptId,
    label,
    isProtected,
    approvals,
    asking,
    sending,
    problem: failure?.problem,
    failed: failure?.change,
    note,
    setNote,
    opened,
    propose: (change) => (asksFirst(change, isProtected, approvals) ? ask(change) : void send(change, '')),
    ask,
    confirm: (change = asking) => {
      if (change) void send(change, note);
    },
    cancel: () => {
      setAsking(undefined);
      setFailure(undefined);
    },
  };
}

/** The change sent to the API, and its answer as a change made or a change request opened. */
async function sent(api: Api, accountId: string, promptId: string, label: string, change: LabelChange, note: string): Promise<LabelChangeAnswer> {
  switch (change.kind) {
    case 'move':
    case 'point':
    case 'restore': {
      const moved = await api.setLabel(accountId, promptId, label, change.to, { note, ...(change.kind === 'restore' ? { restore: true } : {}) });
      return moved.kind === 'requested' ? moved : { kind: 'done' };
    }
    case 'remove': {
      const removed = await api.removeLabel(accountId, promptId, label);
      return removed.kind === 'requested' ? removed : { kind: 'done' };
    }
    case 'rollout': {
      const started = await api.startRollout(accountId, promptId, label, { to: change.to, percent: change.percent, note });
      return started.kind === 'requested' ? started : { kind: 'done', rollout: started.rollout };
    }
  }
}
