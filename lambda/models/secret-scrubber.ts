/**
 * An endpoint's key taken out of what the endpoint writes, as it writes it: an OpenAI-compatible endpoint (a proxy
 * someone runs) may echo the Bearer token it was sent into its answer, and the answer goes on to the caller, the run's
 * record and the runs list, which every member reads. A piece is passed on at once but for an end that could be the
 * start of a key (`sk-` say), which waits for the next piece: a key split across pieces is caught too, and ordinary
 * text is not held back.
 */
export const KEY_PLACEHOLDER = '[key]';

/** Secrets shorter than this are never sought: a key is long, and a short one would cut ordinary words. */
const MIN_SECRET_LENGTH = 4;

export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) clean = clean.split(secret).join(KEY_PLACEHOLDER);
  return clean;
}

export class SecretScrubber {
  private readonly secrets: readonly string[];
  private held = '';

  constructor(secrets: readonly string[]) {
    this.secrets = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  }

  /** What may be passed on of the text so far, with this piece. */
  push(piece: string): string {
    if (this.secrets.length === 0) return piece;
    const text = withoutSecrets(this.held + piece, this.secrets);
    const cut = text.length - this.startOfKeyAtEnd(text);
    this.held = text.slice(cut);
    return text.slice(0, cut);
  }

  /** The length of the longest end of `text` that begins some key (shorter than it: a whole key is already out). */
  private startOfKeyAtEnd(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      for (let length = Math.min(text.length, secret.length - 1); length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }

  /** The rest, once the endpoint has finished writing. */
  end(): string {
    const rest = withoutSecrets(this.held, this.secrets);
    this.held = '';
    return rest;
  }
}
