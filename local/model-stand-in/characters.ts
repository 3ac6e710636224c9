/**
 * The stand-in measures and cuts text in characters: Unicode code points, so an emoji is one character and
 * never split between two pieces of a stream.
 */

export const CHARACTERS_PER_TOKEN = 4;

export function characterCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1))) index += 1;
    count += 1;
  }
  return count;
}

export const tokensFor = (characters: number): number => Math.ceil(characters / CHARACTERS_PER_TOKEN);

/** The first `characters` characters of the text. */
export function firstCharacters(text: string, characters: number): string {
  let index = 0;
  for (let taken = 0; taken < characters && index < text.length; taken += 1) index += codeUnitsAt(text, index);
  return text.slice(0, index);
}

/** The text in consecutive pieces of `size` characters, the last one shorter; none for an empty text. */
export function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = start;
    for (let taken = 0; taken < size && end < text.length; taken += 1) end += codeUnitsAt(text, end);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

const codeUnitsAt = (text: string, index: number): number => (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1);
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
