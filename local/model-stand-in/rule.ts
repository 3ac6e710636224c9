import { textNestsDeeperThan } from '../../lambda/domain/content-rules';
import { type JudgeInput, type Judgement, parseJudgeRequest } from '../../lambda/domain/judge-request';
import { MARKER_ERROR_MESSAGES, type MarkerError, STREAM_EXCEPTIONS } from './bedrock-errors';
import { CHARACTERS_PER_TOKEN, characterCount, firstCharacters, tokensFor } from './characters';
import { type ConverseCall, MAX_BODY_NESTING } from './converse-request';
import { readMarkers } from './markers';
import type { ThrottleCounts } from './throttle-counts';

/**
 * The stand-in's rule (docs/runs.md, "The local stand-in model"): what a Converse or ConverseStream call is
 * answered, decided from its request alone, but for `THROTTLE:<n>`'s count of calls.
 */

export type Operation = 'converse' | 'converse-stream';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export type AnswerContent =
  | { readonly kind: 'text'; readonly text: string }
  /** `inputText` is the JSON as the model wrote it (and streams it); `input`, the same parsed. */
  | { readonly kind: 'toolUse'; readonly name: string; readonly inputText: string; readonly input: Record<string, unknown> };

export interface Answer {
  readonly content: AnswerContent;
  readonly stopReason: StopReason;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
  /** Before the first piece of a stream; before the whole answer of Converse (with the pauses between pieces). */
  readonly slowMs: number;
  /** Between two pieces of a stream. */
  readonly paceMs: number;
  /** An error the stream carries once its pieces are written, in place of its end. */
  readonly streamError: { readonly name: MarkerError; readonly message: string } | undefined;
}

export type Plan = { readonly kind: 'error'; readonly error: MarkerError; readonly message: string } | { readonly kind: 'answer'; readonly answer: Answer };

export function planAnswer(call: ConverseCall, operation: Operation, throttles: ThrottleCounts): Plan {
  const judge = parseJudgeRequest({ system: call.system, user: call.lastUserText });
  // A judge call's own text is what it judges: its markers are read from the rubric, its author's words.
  const markers = readMarkers(judge ? judge.rubric : call.lastUserText);
  let streamError: Answer['streamError'];
  if (markers.error !== undefined) {
    const message = `${MARKER_ERROR_MESSAGES[markers.error]} (the local stand-in model, asked by ERROR:${markers.error})`;
    const afterPieces = operation === 'converse-stream' && !judge && markers.reply !== undefined && STREAM_EXCEPTIONS[markers.error] !== undefined;
    if (!afterPieces) return { kind: 'error', error: markers.error, message };
    streamError = { name: markers.error, message };
  } else if (markers.throttle !== undefined) {
    const callNumber = throttles.record(call.lastUserText);
    if (callNumber <= markers.throttle) {
      const message = `${MARKER_ERROR_MESSAGES.ThrottlingException} (the local stand-in model, asked by THROTTLE:${markers.throttle}: call ${callNumber})`;
      return { kind: 'error', error: 'ThrottlingException', message };
    }
  }

  const written = judge ? JSON.stringify(standInJudgement(judge)) : (markers.reply ?? markers.text);
  const { text, cut } = cutReply(written, call);
  const content = contentOf(text, call.forcedTool);
  const inputTokens = tokensFor(call.inputCharacters);
  const outputTokens = tokensFor(characterCount(text));
  return {
    kind: 'answer',
    answer: {
      content,
      stopReason: cut ?? (content.kind === 'toolUse' ? 'tool_use' : 'end_turn'),
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      slowMs: markers.slowMs,
      paceMs: markers.paceMs,
      streamError,
    },
  };
}

/** The stand-in's judge: the output contains the expected text, ignoring case, or it does not. */
export function standInJudgement(input: JudgeInput): Judgement {
  if (input.expected === null) return { score: 0, reason: 'The item expects no text to compare the output with.' };
  return input.output.toLowerCase().includes(input.expected.toLowerCase())
    ? { score: 1, reason: 'The output contains the expected text.' }
    : { score: 0, reason: 'The output does not contain the expected text.' };
}

/**
 * Where the model would stop writing: before a stop sequence, when the reply up to its end fits in
 * maxTokens; else at maxTokens x 4 characters.
 */
function cutReply(reply: string, call: ConverseCall): { text: string; cut: StopReason | undefined } {
  const limit = call.maxTokens === undefined ? Number.POSITIVE_INFINITY : call.maxTokens * CHARACTERS_PER_TOKEN;
  let stopAt: { index: number; length: number } | undefined;
  for (const sequence of call.stopSequences) {
    const index = reply.indexOf(sequence);
    if (index >= 0 && (stopAt === undefined || index < stopAt.index)) stopAt = { index, length: sequence.length };
  }
  if (stopAt !== undefined && characterCount(reply.slice(0, stopAt.index + stopAt.length)) <= limit) {
    return { text: reply.slice(0, stopAt.index), cut: 'stop_sequence' };
  }
  if (characterCount(reply) > limit) return { text: firstCharacters(reply, limit), cut: 'max_tokens' };
  return { text: reply, cut: undefined };
}

/** A forced tool gets the reply as its input when it is a JSON object; anything else is text. */
function contentOf(text: string, forcedTool: string | undefined): AnswerContent {
  if (forcedTool !== undefined) {
    const input = jsonObjectOf(text);
    if (input !== undefined) return { kind: 'toolUse', name: forcedTool, inputText: text, input };
  }
  return { kind: 'text', text };
}

function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  // As deep as a request may be, and no deeper: the answer is written back as JSON.
  if (textNestsDeeperThan(text, MAX_BODY_NESTING)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
