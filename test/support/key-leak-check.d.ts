export declare const CAPTURE_DIR_VARIABLE: 'PRS_LOG_CAPTURE_DIR';

/** A parsed log line or embedded-metric blob. */
export type LogRecord = Readonly<Record<string, unknown>>;

export interface KeyLeak {
  readonly key: string;
  readonly line: string;
}

export declare function findKeyLeaks(lines: readonly string[], keys: readonly string[]): KeyLeak[];

export declare function readCapture(dir: string): { lines: string[]; keys: string[] };
