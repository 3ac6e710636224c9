// The package is "type": "module", so Node and TypeScript would read dist/cjs's .js and .d.ts files as ES
// modules; a package.json of its own in that folder makes them CommonJS, as they are.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const [folder] = process.argv.slice(2);
if (!folder) throw new Error('usage: node build/mark-commonjs.mjs <folder>');
await writeFile(join(folder, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
