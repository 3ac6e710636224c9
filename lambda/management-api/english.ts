import { en } from 'zod/locales';
import * as z from 'zod/mini';

/**
 * zod/mini leaves its messages to the caller: the API's 400s word a field's default problems as zod does in English
 * (`config.temperature: Invalid input: expected number, received string`). Imported by route.ts, which reads every
 * body and query, rather than by the contracts: the dashboard bundles those and shows no schema's message.
 */
z.config(en());
