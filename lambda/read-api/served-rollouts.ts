import type { Prompt } from '../domain/prompt';
import { MAX_SUBJECT_LENGTH, type RolloutShare, type RolloutSide, ROLLOUT_HEADER, SUBJECT_HEADER } from '../domain/rollout';
import { sideFor } from '../domain/rollout-bucket';
import { badRequest } from '../http/api-error';
import type { ApiResult, HttpRequest } from '../http/http-event';
import type { AtLabel, ServedChange, ServedCount } from './store/api-store';
import { HeldAnswers } from './store/cached-prompt-store';

/**
 * Reads at a rolling-out label (docs/rollouts.md "Serving"): which side each request gets, what its answer says of
 * the rollout, and which sides its key's served counters must hold for it ("Served counts").
 */

/** How the subject header is named in answers and messages (the request's headers arrive in lower case). */
const SUBJECT_HEADER_NAME = 'X-Prompt-Subject';

/** What a prompt's body says of its label's rollout: enough for a client to decide later subjects by itself. */
export interface RolloutBody {
  readonly rolloutId: string;
  readonly percent: number;
  readonly from: string;
  readonly to: string;
}

/** A prompt as one request is answered with it: the side its subject gets, when its label rolls out. */
export interface ServedPrompt<P extends Prompt = Prompt> {
  readonly prompt: P;
  readonly rollout?: RolloutBody & { readonly side: RolloutSide };
}

/**
 * One request's sides: its subject's bucket, or, without a subject, one draw per rollout made once, so that every
 * decision of the request (the admission's from memory, the handler's, a second read after a change) agrees.
 */
export class RequestSides {
  private readonly draws = new Map<string, number>();

  constructor(
    private readonly subject: string | undefined,
    private readonly random: () => number = Math.random,
  ) {}

  sideOf(share: RolloutShare): RolloutSide {
    return sideFor(share, this.subject, () => this.drawFor(share.rolloutId));
  }

  private drawFor(rolloutId: string): number {
    let draw = this.draws.get(rolloutId);
    if (draw === undefined) {
      draw = this.random();
      this.draws.set(rolloutId, draw);
    }
    return draw;
  }
}

/** A subject too long to be an id: such a request is refused (400), and nothing is decided from it. */
export const subjectTooLong = (request: HttpRequest): boolean => (request.headers[SUBJECT_HEADER]?.length ?? 0) > MAX_SUBJECT_LENGTH;

export const SUBJECT_TOO_LONG = `${SUBJECT_HEADER_NAME} must be at most ${MAX_SUBJECT_LENGTH} characters: a user, session or organisation id`;

/** The side a prompt at a label is served with, decided (not yet counted: see RolloutAnswer.record). */
export function choose<P extends Prompt>(sides: RequestSides, atLabel: AtLabel<P>): ServedPrompt<P> {
  const { rollout } = atLabel;
  if (!rollout) return { prompt: atLabel };
  const side = sides.sideOf(rollout);
  const body = { rolloutId: rollout.rolloutId, percent: rollout.percent, from: atLabel.version, to: rollout.to.version };
  // The `to` side is the same prompt at the version the rollout moves to; anything else the entry carries (its
  // published versions) is the prompt's, whichever side is served.
  return { prompt: side === 'to' ? { ...atLabel, ...rollout.to } : atLabel, rollout: { ...body, side } };
}

/** The `rollout` body field, when the label rolls out. */
export const rolloutField = ({ rollout }: ServedPrompt): { rollout?: RolloutBody } =>
  rollout ? { rollout: { rolloutId: rollout.rolloutId, percent: rollout.percent, from: rollout.from, to: rollout.to } } : {};

/** One answer's sides, as a handler answers them: decided by the request's sides, recorded once served. */
export class RolloutAnswer {
  private readonly served = new Map<string, RolloutSide>();

  constructor(readonly sides: RequestSides) {}

  choose<P extends Prompt>(atLabel: AtLabel<P>): ServedPrompt<P> {
    return choose(this.sides, atLabel);
  }

  /** The prompt is in the answer: its side counts once the request succeeds. */
  record(served: ServedPrompt): void {
    if (served.rollout) this.served.set(served.rollout.rolloutId, served.rollout.side);
  }

  get answered(): ReadonlyMap<string, RolloutSide> {
    return this.served;
  }
}

/**
 * Every answer at a rolling-out label names its rollouts (a list may have several, comma-separated) and varies
 * with the subject, so that no shared cache hands one subject's side to another.
 */
export function withRolloutHeaders(result: ApiResult, answered: ReadonlyMap<string, RolloutSide>): ApiResult {
  if (answered.size === 0) return result;
  const vary = result.headers.Vary;
  return {
    ...result,
    headers: {
      ...result.headers,
      [ROLLOUT_HEADER]: [...answered.keys()].join(', '),
      Vary: vary === undefined ? SUBJECT_HEADER_NAME : `${vary}, ${SUBJECT_HEADER_NAME}`,
    },
  };
}

/** A side the store counted for the request, with the prompt revision it was counted under (its terms). */
export interface CountedSide extends ServedChange {
  readonly revision: number;
}

/**
 * What one request's served counters hold and should hold: `counted` is what the store took for it (with its
 * unit, or by a correction), `answered` what its answer served. They differ when the admission had nothing in memory
 * to decide from (a cold read), or decided under a revision the key no longer carried: one write settles it, on the
 * terms of api-store.ts ServedCount. `held` keeps the answers the admission decided from, so that the request is
 * answered from them under their revision.
 */
export class ServedRollouts {
  counted: readonly CountedSide[] = [];
  answered: ReadonlyMap<string, RolloutSide> = new Map();
  readonly held = new HeldAnswers();

  /** Undefined when the subject is refused: nothing is decided or counted for such a request. */
  readonly sides: RequestSides | undefined;

  constructor(request: HttpRequest | undefined, random: () => number = Math.random) {
    this.sides = request && subjectTooLong(request) ? undefined : new RequestSides(request?.headers[SUBJECT_HEADER], random);
  }

  /** The changes that make the counters hold what the answer served; a refusal or a failure served nothing. */
  corrections(answerStands: boolean): ServedChange[] {
    const tally = new Map<string, ServedChange>();
    const add = (rolloutId: string, side: RolloutSide, by: number) => {
      const name = `${side} ${rolloutId}`;
      tally.set(name, { rolloutId, side, by: (tally.get(name)?.by ?? 0) + by });
    };
    if (answerStands) for (const [rolloutId, side] of this.answered) add(rolloutId, side, 1);
    for (const { rolloutId, side, by } of this.counted) add(rolloutId, side, -by);
    return [...tally.values()].filter(({ by }) => by !== 0);
  }

  /** Counted sides given back (by < 0 in `changes`), grouped by the revision each was counted under: their terms. */
  givenBack(changes: readonly ServedChange[]): ServedCount[] {
    const byRevision = new Map<number, ServedChange[]>();
    for (const change of changes) {
      const revision = this.counted.find(({ rolloutId, side }) => rolloutId === change.rolloutId && side === change.side)?.revision;
      if (revision === undefined || change.by >= 0) continue;
      byRevision.set(revision, [...(byRevision.get(revision) ?? []), change]);
    }
    return [...byRevision].map(([revision, given]) => ({ changes: given, revision }));
  }

  /** The counted sides, as the store gives them back with a unit: each group on the terms it was counted on. */
  countedByRevision(): ServedCount[] {
    const byRevision = new Map<number, ServedChange[]>();
    for (const { revision, ...change } of this.counted) byRevision.set(revision, [...(byRevision.get(revision) ?? []), change]);
    return [...byRevision].map(([revision, changes]) => ({ changes, revision }));
  }
}

/** The refusal of a subject too long, thrown where the request's other faults are (after its key check). */
export function requireSides(served: ServedRollouts): RequestSides {
  if (!served.sides) throw badRequest(SUBJECT_TOO_LONG);
  return served.sides;
}

/** The request's one ServedRollouts, made when first asked for (by the admission or the handler). */
export function servedRolloutsOf(context: { servedRollouts?: ServedRollouts; httpRequest?: HttpRequest }): ServedRollouts {
  context.servedRollouts ??= new ServedRollouts(context.httpRequest);
  return context.servedRollouts;
}
