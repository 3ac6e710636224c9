/**
 * JSON.parse, with a refusal people can act on: where (line and column) and what, never a byte offset.
 * V8's own messages give "position 79" at best, and for an unexpected token they quote the text around
 * it, which in a seed file may be an API key; so the place and the reason are worked out here instead.
 */

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`not valid JSON at line ${line}, column ${column}: ${reason}`);
  }
}

/** Parses `text`; a syntax error becomes a JsonSyntaxError naming the line and column (both from 1). */
export function parseJsonText(text: string): unknown {
  // Editors on some systems start a UTF-8 file with a byte-order mark, which JSON.parse refuses.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const { offset, reason } = firstSyntaxError(body);
    const { line, column } = lineAndColumn(body, offset);
    throw new JsonSyntaxError(line, column, reason);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** Far deeper than any file the CLI reads may nest (lambda/domain/content-rules.ts), far shallower than the call stack allows. */
const MAX_SCANNED_DEPTH = 1_000;

interface Found {
  readonly offset: number;
  readonly reason: string;
}

class Stop extends Error {
  constructor(readonly found: Found) {
    super(found.reason);
  }
}

/** A small JSON reader that only looks for the first mistake: JSON.parse has already said there is one. */
function firstSyntaxError(text: string): Found {
  let at = 0;
  const fail = (reason: string, offset = at): never => {
    throw new Stop({ offset, reason: offset >= text.length ? 'the text ends too early (is a closing bracket missing?)' : reason });
  };
  const describe = (offset: number) => (offset >= text.length ? 'the end' : `"${text[offset]}"`);
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail(`unexpected word: did you mean ${word}? (or a string in double quotes)`);
  };
  const string = () => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') {
      const char = text.charCodeAt(at);
      if (char < 0x20) fail('a line break or control character inside a string (write it as \\n or \\u00XX)');
      if (text[at] === '\\') {
        const escaped = text[at + 1] ?? '';
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) fail('\\u must be followed by four hex digits');
          at += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(escaped) || escaped === '') fail(`unknown escape \\${escaped} in a string`);
        at += 2;
        continue;
      }
      at++;
    }
    if (at >= text.length) fail('a string that starts here is never closed', start);
    at++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match || match[0] === '-' || match[0] === '') fail(`unexpected ${describe(at)}: expected a value`);
    at += match?.[0].length ?? 0;
  };
  const value = (depth: number): void => {
    skipSpace();
    const char = text[at];
    // The reader recurses: past this depth it stops (the file would be refused for its depth anyway) before the call stack does.
    if ((char === '{' || char === '[') && depth >= MAX_SCANNED_DEPTH) fail(`nests deeper than ${MAX_SCANNED_DEPTH} levels: no file this tool reads needs that`);
    if (char === '{') {
      object(depth + 1);
      return;
    }
    if (char === '[') {
      array(depth + 1);
      return;
    }
    if (char === '"') {
      string();
      return;
    }
    if (char === 't') {
      literal('true');
      return;
    }
    if (char === 'f') {
      literal('false');
      return;
    }
    if (char === 'n') {
      literal('null');
      return;
    }
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      number();
      return;
    }
    if (char === "'") fail('strings and names take double quotes, not single ones');
    fail(`unexpected ${describe(at)}: expected a value`);
  };
  const object = (depth: number) => {
    at++;
    skipSpace();
    if (text[at] === '}') {
      at++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[at] === '}') fail('a comma before "}" (JSON allows no trailing comma)');
      if (text[at] === "'") fail('strings and names take double quotes, not single ones');
      if (text[at] !== '"') fail(`unexpected ${describe(at)}: expected a property name in double quotes`);
      string();
      skipSpace();
      if (text[at] !== ':') fail(`unexpected ${describe(at)}: expected ":" after the property name`);
      at++;
      value(depth);
      skipSpace();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return;
      }
      fail(`unexpected ${describe(at)}: expected "," or "}" after a property value (is a comma missing?)`);
    }
  };
  const array = (depth: number) => {
    at++;
    skipSpace();
    if (text[at] === ']') {
      at++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[at] === ']') fail('a comma before "]" (JSON allows no trailing comma)');
      value(depth);
      skipSpace();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return;
      }
      fail(`unexpected ${describe(at)}: expected "," or "]" after an array element (is a comma missing?)`);
    }
  };
  try {
    value(0);
    skipSpace();
    if (at < text.length) fail(`unexpected ${describe(at)} after the end of the JSON value`);
  } catch (error) {
    if (error instanceof Stop) return error.found;
    throw error;
  }
  // JSON.parse refused what this reader accepts: say so without guessing a place.
  return { offset: 0, reason: 'not valid JSON' };
}
