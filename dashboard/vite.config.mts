import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * `npm run dashboard:build`: the single-page app into dashboard/dist, static files that `npm start` serves and
 * `cdk deploy` uploads. Nothing inline (the dashboard's Content-Security-Policy allows only its own scripts
 * and styles), no source maps shipped, and one build for every deployment: the page reads its sign-in
 * endpoints from /config.json on its own origin.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Small assets stay files: a data: URL is allowed for images only, and fonts are the system's.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  logLevel: 'warn',
});
