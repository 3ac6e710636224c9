import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface ValidatorResult {
  valid: boolean;
  errors?: unknown;
}

/**
 * @seriousme/openapi-schema-validator is ESM only (it reads its schemas through import.meta) and jest
 * runs CommonJS here, so it runs in a node of its own: documents in on stdin, results out on stdout.
 */
export function validateWithOpenApiSchemaValidator(documents: readonly unknown[]): ValidatorResult[] {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const results = [];
    for (const doc of JSON.parse(input)) results.push(await new Validator().validate(doc));
    process.stdout.write(JSON.stringify(results));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    input: JSON.stringify(documents),
    encoding: 'utf8',
  });
  return JSON.parse(output) as ValidatorResult[];
}
